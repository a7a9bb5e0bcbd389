#!/usr/bin/env python3
"""The gate's detection table from the injection runs of `ci/gpu/run.sh gate-inject`.

Reads inject-<mode>-<permille>-<rep>.json (gate reports) in the folder given and prints, per mode
(abba, base), injected extra work and problem: how many repetitions gave each verdict, the mean
measured ratio and the threshold used. Markdown, for docs/measurement.md.
"""
import collections
import glob
import json
import os
import re
import statistics
import sys


def main(folder):
    cells = collections.defaultdict(list)
    for path in glob.glob(os.path.join(folder, "inject-*.json")):
        m = re.match(r"inject-(abba|base)-(\d+)-(\d+)\.json", os.path.basename(path))
        if not m:
            continue
        mode, permille = m.group(1), int(m.group(2))
        try:
            report = json.load(open(path))
        except ValueError:
            cells[(mode, permille, "(no report)")].append(None)
            continue
        for row in report["rows"]:
            cells[(mode, permille, row["problem"])].append(row)
    print("| mode | injected | problem | runs | SLOWER | SAME | AMBIGUOUS | FASTER | mean ratio | threshold | retried |")
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for (mode, permille, problem), rows in sorted(cells.items()):
        rows = [r for r in rows if r]
        verdicts = collections.Counter(r["verdict"] for r in rows)
        ratio = statistics.mean(r["ratio"] for r in rows) if rows else float("nan")
        threshold = max((r["effective_threshold"] for r in rows), default=float("nan"))
        retried = sum(1 for r in rows if r.get("retries", 0) > 0)
        label = "A B B A" if mode == "abba" else "baseline"
        print(f"| {label} | {permille / 10:g}% | {problem.replace('softmax_f32_', '')} | {len(rows)} | "
              f"{verdicts['SLOWER']} | {verdicts['SAME']} | {verdicts['AMBIGUOUS']} | {verdicts['FASTER']} | "
              f"{ratio:.4f} | {100 * threshold:.0f}% | {retried} |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
