#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora: OUT/spec, OUT/results, OUT/compare (docs/ci.md, Fuzzing).

spec:    the sweep files of configs/, tests/data/spec/, tests/data/bad_input/, tests/calibration/,
         tests/faults/, and every YAML input of the error catalogue and the unit tests (their raw
         string literals that look like sweep files).
results: slices of the committed results/<op>/<gpu>.json (a few problems each, with their runs and
         builds, laid out as export writes them: one element per line), the compare fixtures of
         tests/data/compare/, and the hand-written hostile files of tests/fuzz/seeds/results/.
compare: the same as results.

Deterministic: the same tree gives the same files (named by content hash). Usage:
    seeds.py OUT [--max-bytes N]
"""
import argparse
import glob
import hashlib
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def write(out_dir, data):
    if isinstance(data, str):
        data = data.encode()
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(out_dir, name), "wb") as f:
        f.write(data)


def files(*patterns):
    out = []
    for p in patterns:
        out += glob.glob(os.path.join(ROOT, p), recursive=True)
    return sorted(set(out))


RAW_STRING = re.compile(r'R"([a-z]*)\((.*?)\)\1"', re.S)


def sweep_literals():
    """YAML raw strings of the catalogue and unit tests: R"yaml(...)yaml", or R"(...)" holding op:."""
    for path in files("tests/cli/*.cpp", "tests/unit/*.cpp"):
        with open(path, encoding="utf-8") as f:
            for tag, text in RAW_STRING.findall(f.read()):
                if tag == "yaml" or (tag == "" and re.search(r"^\s*op:", text, re.M)):
                    yield text


def render(head, runs, trials, builds):
    """The layout export writes (tuner/results/results_file.cpp, render)."""
    compact = lambda v: json.dumps(v, separators=(",", ":"), ensure_ascii=False)
    out = "{\n"
    for key, value in head.items():
        out += f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)},\n"
    for name, rows, last in (("runs", runs, False), ("trials", trials, False), ("builds", builds, True)):
        out += f'  "{name}": [\n'
        out += "".join(f"    {compact(r)}{',' if i + 1 < len(rows) else ''}\n" for i, r in enumerate(rows))
        out += "  ]\n" if last else "  ],\n"
    return out + "}\n"


def slices(path, max_bytes, count=12):
    """Files of one or a few problems each, spread over the file's problems, under max_bytes."""
    with open(path, encoding="utf-8") as f:
        whole = json.load(f)
    head = {k: v for k, v in whole.items() if k not in ("runs", "trials", "builds")}
    problems = sorted({t["problem"] for t in whole["trials"]})
    if not problems:
        return
    step = max(1, len(problems) // count)
    for start in range(0, len(problems), step):
        chosen = set(problems[start:start + 2])
        trials = [t for t in whole["trials"] if t["problem"] in chosen]
        while trials:
            instances = {t["instance"] for t in trials}
            used_runs = {t.get("run") for t in trials}
            runs = [r for r in whole["runs"] if r["id"] in used_runs]
            builds = [b for b in whole["builds"] if b["instance"] in instances]
            text = render(head, runs, trials, builds)
            if len(text.encode()) <= max_bytes:
                yield text
                break
            trials = trials[: len(trials) // 2]  # keep the first (fastest-sorted) half


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--max-bytes", type=int, default=32768, help="largest results seed")
    args = ap.parse_args()
    spec_dir, results_dir, compare_dir = (os.path.join(args.out, n) for n in ("spec", "results", "compare"))
    for d in (spec_dir, results_dir, compare_dir):
        os.makedirs(d, exist_ok=True)

    for path in files("configs/**/*.yaml", "tests/data/spec/*.yaml", "tests/data/bad_input/*.yaml",
                      "tests/calibration/*.yaml", "tests/faults/*.yaml"):
        with open(path, "rb") as f:
            write(spec_dir, f.read())
    for text in sweep_literals():
        write(spec_dir, text)

    results = []
    for path in files("results/**/*.json"):
        results += list(slices(path, args.max_bytes))
    for path in files("tests/data/compare/**/*.json", "tests/fuzz/seeds/results/*.json"):
        with open(path, "rb") as f:
            results.append(f.read())
    for text in results:
        write(results_dir, text)
        write(compare_dir, text)
    for d in (spec_dir, results_dir, compare_dir):
        print(f"seeds.py: {len(os.listdir(d))} seeds in {d}")


if __name__ == "__main__":
    sys.exit(main())
