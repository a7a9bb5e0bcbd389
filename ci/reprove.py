#!/usr/bin/env python3
"""For ci/jobs/check-configs.sh: the committed results with their builds re-proven.

    ci/reprove.py [--partial] RESULTS VALIDATION OUT
    ci/reprove.py --builds-of RESULTS VALIDATION   (a stand-in VALIDATION from RESULTS' own
                                                    builds: check-configs.sh --plumbing)

RESULTS is the committed results folder (<op>/<gpu>.json), VALIDATION what `cuop-tune export`
wrote for a compile-validation sweep of configs/*.yaml (<op>/validation.json). OUT gets a copy
of every measured file of RESULTS whose builds (per configuration and target: ok, compile_error,
over_limit) are replaced by the validation's, which this toolkit just compiled. `cuop-tune emit`
picks a kernel for a target only where its build is ok, so the tables emitted from OUT are those
emitted from RESULTS exactly when every shipped configuration still compiles and fits every
target. Prints the configurations whose build changed (a diff of the tables says which of them
ship). Exit 0, or 1 when an op has measured results but no validation; with --partial (a sweep of
some configs only) such an op's files are copied as they are, not re-proven, and said so.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path


def builds_by_key(builds: list[dict]) -> dict[tuple[str, str], dict]:
    return {(b["instance"], b["target"]): b for b in builds}


def reprove(results: Path, validation: Path, out: Path, partial: bool = False) -> list[str]:
    notes = []
    for path in sorted(results.glob("*/*.json")):
        if path.name == "validation.json":
            continue
        measured = json.loads(path.read_text())
        v_path = validation / path.parent.name / "validation.json"
        if not v_path.is_file():
            if not partial:
                raise RuntimeError(f"{path}: no compile-validation of its op ({v_path} is missing)")
            print(f"reprove: {path.relative_to(results)}: not re-proven (its op was not swept)")
            (out / path.parent.name).mkdir(parents=True, exist_ok=True)
            (out / path.parent.name / path.name).write_text(path.read_text())
            continue
        fresh = builds_by_key(json.loads(v_path.read_text())["builds"])
        old = builds_by_key(measured.get("builds", []))
        for key, b in sorted(old.items()):
            now = fresh.get(key)
            status = now["status"] if now else "not in configs/ (not compiled)"
            if b["status"] == "ok" and status != "ok":
                notes.append(f"{path.relative_to(results)}: {key[0]} on {key[1]}: was ok, now {status}")
        # Only the configurations the file has builds for: the validation compiles every
        # configuration of the spaces, the file lists those it measured.
        instances = {i for i, _ in old}
        measured["builds"] = [b for k, b in sorted(fresh.items()) if k[0] in instances]
        target = out / path.parent.name / path.name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(measured, indent=1, sort_keys=False) + "\n")
    return notes


def builds_of(results: Path, validation: Path) -> None:
    """<op>/validation.json holding the builds of RESULTS' measured files of that op."""
    per_op: dict[str, list[dict]] = {}
    for path in sorted(results.glob("*/*.json")):
        if path.name != "validation.json":
            per_op.setdefault(path.parent.name, []).extend(json.loads(path.read_text())["builds"])
    for op, builds in per_op.items():
        (validation / op).mkdir(parents=True, exist_ok=True)
        (validation / op / "validation.json").write_text(json.dumps({"builds": builds}) + "\n")


def main(argv: list[str]) -> int:
    if len(argv) == 3 and argv[0] == "--builds-of":
        builds_of(Path(argv[1]), Path(argv[2]))
        return 0
    partial = bool(argv) and argv[0] == "--partial"
    argv = argv[1:] if partial else argv
    if len(argv) != 3:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    try:
        notes = reprove(*(Path(a) for a in argv), partial=partial)
    except (OSError, RuntimeError, KeyError, ValueError) as e:
        print(f"reprove: error: {e}", file=sys.stderr)
        return 1
    for n in notes:
        print(f"reprove: {n}")
    print(f"reprove: {len(notes)} configurations were ok in the committed results and are not now")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
