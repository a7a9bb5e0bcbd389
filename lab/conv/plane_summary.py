"""Per class of depthwise layers (dtype, filter, stride) in a conv2d sweep database: the best plane
configuration and the best of our other kernels against cuDNN's heuristic (geometric means), and
the bandwidth of plane and of cuDNN on the shapes of 30 MB or more; then the per-shape best over
every problem with and without plane. The table in docs/dispatch.md ("Region sweep: depthwise
grid and corners") comes from its output for the H100's NCHW grid database (5x5 and 7x7 rows
merged there by geometric mean).
usage: python3 lab/conv/plane_summary.py DB"""
import collections
import json
import math
import sqlite3
import statistics
import sys


def geomean(values):
    return statistics.geometric_mean(values) if values else float("nan")


def filter_class(r):
    return "3" if r == 3 else "5" if r == 5 else "7" if r == 7 else "9-15" if r <= 15 else "17-31"


def main(path):
    db = sqlite3.connect(path)
    rows = db.execute(
        "select p.key, p.dims_json, p.bytes, c.family, c.instance, t.median_us from trials t "
        "join problems p on p.id = t.problem_id join configs c on c.id = t.config_id where t.status = 'ok'")
    problems = collections.defaultdict(list)
    shape = {}
    for key, dims, size, family, instance, median in rows:
        problems[key].append((family, instance, median))
        shape[key] = (json.loads(dims), size)
    classes = collections.defaultdict(list)
    best_all, best_old = [], []
    for key, trials in problems.items():
        dims, size = shape[key]
        base = [m for f, i, m in trials if "heuristic" in i]
        plane = [m for f, i, m in trials if "_plane_" in i]
        others = [m for f, i, m in trials if f == "depthwise" and "_plane_" not in i]
        if not base:
            continue
        best_all.append(base[0] / min(m for _, _, m in trials))
        best_old.append(base[0] / min([base[0]] + others))
        if not plane:
            continue
        dtype = "f32" if key.split("_")[1] == "f32" else "16-bit"
        classes[(dtype, filter_class(dims["r"]), dims["stride"])].append(
            (base[0] / min(plane), base[0] / min(others) if others else float("nan"), size / min(plane) / 1e3,
             size / base[0] / 1e3, size))
    print("| dtype | filter | stride | shapes | plane / cuDNN | best (max) | our others / cuDNN | plane GB/s | cuDNN GB/s |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for (dtype, fc, stride), v in sorted(classes.items()):
        big = [x for x in v if x[4] >= 30e6]
        plane_gbps = f"{statistics.median(x[2] for x in big):.0f}" if big else "-"
        cudnn_gbps = f"{statistics.median(x[3] for x in big):.0f}" if big else "-"
        others = [x[1] for x in v if not math.isnan(x[1])]
        print(f"| {dtype} | {fc} | {stride} | {len(v)} | {geomean([x[0] for x in v]):.2f} | "
              f"{max(x[0] for x in v):.2f} | {geomean(others):.2f} | {plane_gbps} | {cudnn_gbps} |")
    print(f"\nper-shape best over {len(best_all)} problems: {geomean(best_all):.2f}x cuDNN's heuristic, "
          f"{geomean(best_old):.2f}x without plane")


if __name__ == "__main__":
    main(sys.argv[1])
