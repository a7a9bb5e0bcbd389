#!/usr/bin/env python3
"""ci/matrix.yaml: read and check it, answer the job scripts' questions, write the workflow.

    ci/matrix.py check                      the matrix is well formed and its promises are what
                                            the rules give for each arch set's architectures
    ci/matrix.py archs SET                  CMAKE_CUDA_ARCHITECTURES of an arch set
    ci/matrix.py promises SET               "sm_80=native sm_86=native ..." for compat_matrix.py
    ci/matrix.py image [VERSION]            the container of a CUDA version (default: the first)
    ci/matrix.py gpu-set GPU                the arch set a GPU gate runner builds
    ci/matrix.py jobs                       every job of the matrix, one a line
    ci/matrix.py workflow [--check FILE]    the hosted CI's workflow (to stdout), or a diff
                                            against FILE and exit 1 when FILE is stale

Needs PyYAML (Debian's python3-yaml, which scripts/install-deps.sh installs).
"""
from __future__ import annotations

import argparse
import difflib
import itertools
import json
import re
import sys
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import compat_matrix  # noqa: E402

MATRIX = Path(__file__).resolve().parent / "matrix.yaml"
WORKFLOW = Path(__file__).resolve().parents[1] / ".github" / "workflows" / "ci.yml"
BUILD_TYPES = {"Release", "Debug", "RelWithDebInfo", "MinSizeRel"}
DIMENSIONS = ("arch_set", "cuda", "build_type")
# The architectures with a validated table of their own (tuner/compile/targets.cpp; a test
# compares): the arch sets build those. `cuop-tune emit` serves any other from the nearest of them.
EMIT_TARGETS = {"75", "80", "86", "89", "90", "90a", "100a", "120"}


class MatrixError(Exception):
    pass


def load(path: Path = MATRIX) -> dict:
    try:
        m = yaml.safe_load(Path(path).read_text())
    except (OSError, yaml.YAMLError) as e:
        raise MatrixError(f"{path}: {e}") from e
    errors = validate(m)
    if errors:
        raise MatrixError("\n".join(f"{path}: {e}" for e in errors))
    return m


def _keys(where: str, d, required: set, optional: set = frozenset()) -> list[str]:
    if not isinstance(d, dict):
        return [f"{where}: expected a mapping"]
    errors = [f'{where}: missing "{k}"' for k in sorted(required - d.keys())]
    errors += [f'{where}: unknown key "{k}"' for k in sorted(d.keys() - required - optional)]
    return errors


def validate(m) -> list[str]:
    top = {"cuda", "build_types", "targets", "arch_sets", "cpu_jobs", "gpu_jobs"}
    errors = _keys("matrix", m, top)
    if errors:
        return errors
    if not isinstance(m["cuda"], dict) or not m["cuda"]:
        errors.append("cuda: expected a mapping of versions to container images")
    else:
        for v, image in m["cuda"].items():
            if not re.fullmatch(r"13\.\d+", str(v)) or not isinstance(v, str):
                errors.append(f'cuda: "{v}" is not a quoted CUDA 13.x version')
            if not isinstance(image, str) or not image.startswith("nvidia/cuda:"):
                errors.append(f'cuda: "{v}": "{image}" is not an nvidia/cuda image')
    bad = [b for b in m["build_types"] or [] if b not in BUILD_TYPES]
    if bad or not m["build_types"]:
        errors.append(f"build_types: {bad or 'empty'} (expected some of {sorted(BUILD_TYPES)})")
    targets = m["targets"] or []
    errors += [f'targets: unknown target "{t}"' for t in targets if t not in compat_matrix.TARGETS]
    if not isinstance(m["arch_sets"], dict) or not m["arch_sets"]:
        return errors + ["arch_sets: expected a mapping"]
    for name, s in m["arch_sets"].items():
        where = f"arch_sets.{name}"
        e = _keys(where, s, {"cuda_architectures", "promises"})
        if e:
            errors += e
            continue
        try:
            images = compat_matrix.cmake_images(str(s["cuda_architectures"]))
        except ValueError as ex:
            errors.append(f"{where}.cuda_architectures: {ex}")
            continue
        for entry in re.split(r"[;,]", str(s["cuda_architectures"])):
            if entry.split("-")[0] not in EMIT_TARGETS:
                errors.append(f'{where}.cuda_architectures: "{entry}" is not a target '
                              f"with a table of its own ({', '.join(sorted(EMIT_TARGETS))})")
        promises = s["promises"] or {}
        for t, level in promises.items():
            if t not in targets:
                errors.append(f'{where}.promises: "{t}" is not in targets')
            if level not in ("native", "ptx"):
                errors.append(f'{where}.promises.{t}: "{level}" (expected native or ptx)')
        derived = {t: c.level for t, c in compat_matrix.matrix(images, targets).items()
                   if c.level != "none"}
        if promises != derived:
            errors.append(f"{where}.promises: {_flat(promises)} is not what "
                          f'"{s["cuda_architectures"]}" gives: {_flat(derived)}')
    for kind, jobs in (("cpu_jobs", m["cpu_jobs"]), ("gpu_jobs", m["gpu_jobs"])):
        if not isinstance(jobs, dict) or not jobs:
            errors.append(f"{kind}: expected a mapping of job names")
            continue
        for name, job in jobs.items():
            where = f"{kind}.{name}"
            if kind == "cpu_jobs":
                errors += _keys(where, job, {"runs_on", "over", "steps", "timeout_minutes"})
                if isinstance(job, dict):
                    errors += [f'{where}.over: unknown dimension "{d}"'
                               for d in job.get("over") or [] if d not in DIMENSIONS]
            else:
                errors += _keys(where, job, {"gpus", "steps", "timeout_minutes"}, {"needs"})
                if isinstance(job, dict):
                    for gpu, arch_set in (job.get("gpus") or {}).items():
                        if gpu not in targets and gpu + "a" not in targets:
                            errors.append(f'{where}.gpus: "{gpu}" is not a target')
                        if arch_set not in m["arch_sets"]:
                            errors.append(f'{where}.gpus.{gpu}: unknown arch set "{arch_set}"')
                    errors += [f'{where}.needs: unknown CPU job "{n}"'
                               for n in job.get("needs") or [] if n not in m["cpu_jobs"]]
            if isinstance(job, dict):
                root = MATRIX.parents[1]
                errors += [f'{where}.steps: "{s}" does not exist' for s in job.get("steps") or []
                           if not (root / s).is_file()]
    return errors


def _flat(promises: dict) -> str:
    return " ".join(f"{t}={lvl}" for t, lvl in promises.items()) or "(nothing)"


def entries(m: dict, job: dict) -> list[dict]:
    """One matrix entry per combination of the job's dimensions. A CPU job that does not vary
    over CUDA runs in the first version's container."""
    values = {"arch_set": list(m["arch_sets"]), "cuda": list(m["cuda"]),
              "build_type": list(m["build_types"])}
    out = []
    for combo in itertools.product(*(values[d] for d in job["over"])):
        e = dict(zip(job["over"], combo))
        e.setdefault("cuda", next(iter(m["cuda"])))
        e["image"] = m["cuda"][e["cuda"]]
        out.append(e)
    return out


def jobs(m: dict) -> list[str]:
    lines = []
    for name, job in m["cpu_jobs"].items():
        for e in entries(m, job):
            lines.append(f"cpu {name} " + " ".join(f"{k}={v}" for k, v in e.items()))
    for name, job in m["gpu_jobs"].items():
        for gpu, arch_set in job["gpus"].items():
            lines.append(f"gpu {name} gpu={gpu} arch_set={arch_set} runs-on=[self-hosted, gpu, {gpu}]")
    return lines


def _scalar(v) -> str:
    s = str(v)
    plain = re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.-]*", s) and s.lower() not in (
        "true", "false", "yes", "no", "on", "off", "null", "y", "n")
    return s if plain else json.dumps(s)


def _flow(d: dict) -> str:
    return "{" + ", ".join(f"{k}: {_scalar(v)}" for k, v in d.items()) + "}"


ENV = {"arch_set": "ARCH_SET", "cuda": "CUDA_VERSION", "build_type": "BUILD_TYPE", "gpu": "GPU_ARCH"}


def workflow(m: dict) -> str:
    w = [
        "# Generated by `python3 ci/matrix.py workflow` from ci/matrix.yaml: edit that file, then",
        "# `python3 ci/matrix.py workflow > .github/workflows/ci.yml`, and commit both. The ctest test",
        "# ci.workflow_fresh (and ci/jobs/check-fresh.sh) fails, with a diff, when this file is stale.",
        "# Jobs, and how to run each locally: docs/ci.md.",
        "name: ci",
        "on:",
        "  push:",
        "    branches: [main]",
        "  pull_request:",
        "  workflow_dispatch:",
        "concurrency:",
        "  group: ci-${{ github.ref }}",
        "  cancel-in-progress: true",
        "jobs:",
    ]
    for name, job in m["cpu_jobs"].items():
        es = entries(m, job)
        dims = [d for d in DIMENSIONS if d in job["over"]]
        title = " ".join([name] + [f"${{{{ matrix.{d} }}}}" for d in dims])
        if "cuda" in dims:
            title = title.replace("${{ matrix.cuda }}", "cuda ${{ matrix.cuda }}")
        w += [f"  {name}:",
              f"    name: {title}",
              f"    runs-on: {job['runs_on']}",
              "    container: ${{ matrix.image }}",
              f"    timeout-minutes: {job['timeout_minutes']}",
              "    strategy:",
              "      fail-fast: false",
              "      matrix:",
              "        include:"]
        w += [f"          - {_flow(e)}" for e in es]
        w += ["    env:"]
        w += [f"      {ENV[d]}: ${{{{ matrix.{d} }}}}" for d in ("arch_set", "cuda", "build_type")
              if d in es[0]]
        w += ["      BUILD_DIR: build",
              "    steps:",
              "      - name: git, for the checkout (the CUDA container has none)",
              "        run: apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq"
              " --no-install-recommends git ca-certificates",
              "      - uses: actions/checkout@v4",
              "      - name: the Debian packages the project builds with",
              "        run: ./scripts/install-deps.sh"]
        for step in job["steps"]:
            w += [f"      - name: {step}", f"        run: {step}"]
    for name, job in m["gpu_jobs"].items():
        w += [f"  {name}:",
              f"    name: {name} ${{{{ matrix.gpu }}}} (${{{{ matrix.arch_set }}}} build)",
              '    runs-on: [self-hosted, gpu, "${{ matrix.gpu }}"]']
        if job.get("needs"):
            w += [f"    needs: [{', '.join(job['needs'])}]"]
        w += [f"    timeout-minutes: {job['timeout_minutes']}",
              "    strategy:",
              "      fail-fast: false",
              "      matrix:",
              "        include:"]
        w += [f"          - {_flow({'gpu': g, 'arch_set': s})}" for g, s in job["gpus"].items()]
        w += ["    env:",
              "      GPU_ARCH: ${{ matrix.gpu }}",
              "      ARCH_SET: ${{ matrix.arch_set }}",
              "      BUILD_TYPE: Release",
              "      BUILD_DIR: build",
              "    steps:",
              "      - uses: actions/checkout@v4",
              "      - name: the Debian packages the project builds with (the runner has the CUDA 13 driver and toolkit)",
              "        run: ./scripts/install-deps.sh"]
        for step in job["steps"]:
            w += [f"      # {step} ends with `cuop-tune gate configs/gate/*.yaml --baseline results/`"
                  " (or, for a GPU without a committed baseline, measures and exports the suites)"] if "gate" in step else []
            w += [f"      - name: {step}", f"        run: {step}"]
    return "\n".join(w) + "\n"


def check_workflow(m: dict, path: Path) -> list[str]:
    """A unified diff (empty when fresh) of the committed workflow against the generated one."""
    want = workflow(m)
    have = Path(path).read_text() if Path(path).is_file() else ""
    return list(difflib.unified_diff(have.splitlines(True), want.splitlines(True),
                                     f"{path} (committed)", f"{path} (from ci/matrix.yaml)"))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="matrix.py", description="ci/matrix.yaml: " + __doc__.split("\n")[0])
    p.add_argument("--matrix", type=Path, default=MATRIX)
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("check")
    sub.add_parser("archs").add_argument("arch_set")
    sub.add_parser("promises").add_argument("arch_set")
    sub.add_parser("image").add_argument("version", nargs="?")
    sub.add_parser("gpu-set").add_argument("gpu")
    sub.add_parser("jobs")
    wf = sub.add_parser("workflow")
    wf.add_argument("--check", type=Path, metavar="FILE", nargs="?", const=WORKFLOW)
    a = p.parse_args(argv)
    try:
        m = load(a.matrix)
        if a.cmd in ("archs", "promises") and a.arch_set not in m["arch_sets"]:
            raise MatrixError(f'unknown arch set "{a.arch_set}" (expected one of: '
                              f"{', '.join(m['arch_sets'])})")
        if a.cmd == "check":
            print(f"{a.matrix}: {len(jobs(m))} jobs, promises agree with the architectures")
        elif a.cmd == "archs":
            print(m["arch_sets"][a.arch_set]["cuda_architectures"])
        elif a.cmd == "promises":
            print(_flat(m["arch_sets"][a.arch_set]["promises"]))
        elif a.cmd == "image":
            version = a.version or next(iter(m["cuda"]))
            if version not in m["cuda"]:
                raise MatrixError(f'unknown CUDA version "{version}"')
            print(m["cuda"][version])
        elif a.cmd == "gpu-set":
            sets = {g: s for job in m["gpu_jobs"].values() for g, s in job["gpus"].items()}
            if a.gpu not in sets:
                raise MatrixError(f'no GPU job for "{a.gpu}" (expected one of: {", ".join(sets)})')
            print(sets[a.gpu])
        elif a.cmd == "jobs":
            print("\n".join(jobs(m)))
        elif a.cmd == "workflow" and a.check:
            diff = check_workflow(m, a.check)
            if diff:
                sys.stdout.writelines(diff)
                print(f"matrix: error: {a.check} is stale: run `python3 ci/matrix.py workflow > "
                      f"{a.check}`", file=sys.stderr)
                return 1
            print(f"{a.check}: agrees with {a.matrix}")
        else:
            sys.stdout.write(workflow(m))
    except MatrixError as e:
        print(f"matrix: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
