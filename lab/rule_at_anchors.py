"""Two default rules compared where a results file measured both: the baselines of the same results
files as two builds print them (`cuop-tune baselines FILES > A.json`, once per build), and per
problem A's baseline time over B's (above 1: B's rule is faster there), with the geometric mean.
Sweep timings of the anchors, not a side-by-side run; a problem whose baseline either build did not
measure is counted, not compared.
usage: python3 lab/rule_at_anchors.py A.json B.json [--only SUBSTRING]"""
import argparse
import json
from statistics import geometric_mean


def baselines(path):
    return {(b["file"], b["problem"]): b for b in json.load(open(path))}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--only", default="", help="problems whose key contains this")
    args = ap.parse_args()
    a, b = baselines(args.a), baselines(args.b)
    keys = sorted(k for k in a.keys() & b.keys() if args.only in k[1] and a[k]["baseline"] != b[k]["baseline"])
    ratios, unmeasured = [], 0
    print("| problem | A's rule | B's rule | A us | B us | A over B |")
    print("| --- | --- | --- | ---: | ---: | ---: |")
    for k in keys:
        if not (a[k]["measured"] and b[k]["measured"]):
            unmeasured += 1
            continue
        ratio = a[k]["median_us"] / b[k]["median_us"]
        ratios.append(ratio)
        print(f"| {k[1]} | `{a[k]['baseline']}` | `{b[k]['baseline']}` | {a[k]['median_us']:.2f} "
              f"| {b[k]['median_us']:.2f} | {ratio:.3f} |")
    same = sum(1 for k in a.keys() & b.keys() if args.only in k[1] and a[k]["baseline"] == b[k]["baseline"])
    summary = f"{geometric_mean(ratios):.3f}x, {min(ratios):.3f}x to {max(ratios):.3f}x" if ratios else "-"
    print(f"\n{len(ratios)} problems whose rule changed: A over B {summary}; {unmeasured} with a baseline "
          f"not measured; {same} with the same rule")


if __name__ == "__main__":
    main()
