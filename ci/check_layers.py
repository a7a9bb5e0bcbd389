#!/usr/bin/env python3
"""The tuner's folders are layers (docs/ARCHITECTURE.md, Layers): a file includes only from its own
folder and the folders below it, so no two folders depend on each other and `core` depends on
nothing in the tuner. Each op's folder under tuner/ops/ is on its own: it may use the ops layer's
shared files (tuner/ops/*.hpp) and everything below, never another op's folder, and the shared
files never include an op's folder (the registry reaches them through the generated table). The
kernel library (kernels/) never includes the tuner. Exit 1 naming each include that breaks a rule;
0 when none does."""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Lowest first. A folder may include from itself and from any folder before it.
LAYERS = ["core", "measure", "compile", "store", "strategy", "catalog", "spec", "space", "results", "model",
          "trial", "emit", "ops", "runner", "gate", "report", "cli"]
RANK = {name: i for i, name in enumerate(LAYERS)}
INCLUDE = re.compile(r'^\s*#\s*include\s+"tuner/([^"]+)"', re.M)


def folder_of(path: str) -> tuple[str, str]:
    """('ops', 'softmax') for tuner/ops/softmax/x.cpp, ('ops', '') for tuner/ops/op.hpp."""
    parts = path.split("/")
    op = parts[1] if parts[0] == "ops" and len(parts) > 2 else ""
    return parts[0], op


def check_file(rel: Path, text: str) -> list[str]:
    problems = []
    src_layer, src_op = folder_of(rel.relative_to("tuner").as_posix()) if rel.parts[0] == "tuner" else ("", "")
    for m in INCLUDE.finditer(text):
        target = m.group(1)
        line = text.count("\n", 0, m.start()) + 1
        where = f"{rel.as_posix()}:{line}"
        if rel.parts[0] == "kernels":
            problems.append(f"{where}: the kernel library includes the tuner (tuner/{target})")
            continue
        if rel.parts[0] != "tuner":
            continue
        dst_layer, dst_op = folder_of(target)
        if dst_layer not in RANK:
            problems.append(f"{where}: tuner/{dst_layer}/ is in no layer (add it to LAYERS in ci/check_layers.py)")
        elif src_layer not in RANK:
            problems.append(f"{where}: tuner/{src_layer}/ is in no layer (add it to LAYERS in ci/check_layers.py)")
        elif RANK[dst_layer] > RANK[src_layer]:
            problems.append(f"{where}: {src_layer} includes tuner/{target}, from the layer above it ({dst_layer})")
        elif dst_op and src_layer == "ops" and dst_op != src_op:
            who = f"op folder {src_op}" if src_op else "the ops layer's shared files"
            problems.append(f"{where}: {who} includes tuner/{target}, op {dst_op}'s own")
    return problems


def main() -> int:
    problems = []
    for top in ("tuner", "kernels"):
        for path in sorted((ROOT / top).rglob("*")):
            if path.suffix in (".hpp", ".cpp", ".cuh", ".cu", ".h") and path.is_file():
                problems += check_file(path.relative_to(ROOT), path.read_text(errors="replace"))
    for p in problems:
        print(f"check_layers: {p}")
    print(f"check_layers: {len(problems)} includes break the layers" if problems else
          f"check_layers: the tuner's {len(LAYERS)} layers hold")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
