"""B against A of lab/norm/ab.sh: per op (GroupNorm: per layout and SiLU), set and call size
(under or over 12 us on A), how much faster B runs (A's time over B's, geometric mean), each side
against torch (measured beside it in its own run), and the shapes below 0.97x torch.
usage: python3 lab/norm/ab_table.py norm-A.json norm-B.json"""
import json
import sys
from statistics import geometric_mean

SHAPE_FIELDS = ("rows", "cols", "n", "c", "h", "w", "groups")


def label(r):
    if r["op"] == "groupnorm":
        return f"groupnorm {r['layout']}{'+silu' if r['silu'] else ''}"
    return r["op"] + ("+add" if r.get("residual") else "")


def rows(path):
    return {(label(r), r["dtype"], *(r.get(f) for f in SHAPE_FIELDS), r["set"]): r
            for r in json.load(open(path))["rows"]}


def main():
    a, b = rows(sys.argv[1]), rows(sys.argv[2])
    print("| op | set | calls | shapes | B faster | A vs torch | B vs torch | below 0.97x (A, B) | B correct |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | --- | --- |")
    for name in sorted({k[0] for k in a}):
        for set_ in ("swept", "validation"):
            for small in (True, False):
                keys = [k for k in a if k in b and k[0] == name and k[-1] == set_
                        and (a[k]["cuop_us"] < 12) == small]
                if not keys:
                    continue
                print(f"| {name} | {set_} | {'< 12 us' if small else '>= 12 us'} | {len(keys)} "
                      f"| {geometric_mean([a[k]['cuop_us'] / b[k]['cuop_us'] for k in keys]):.3f}x "
                      f"| {geometric_mean([a[k]['ratio'] for k in keys]):.2f}x | {geometric_mean([b[k]['ratio'] for k in keys]):.2f}x "
                      f"| {sum(a[k]['ratio'] < 0.97 for k in keys)}, {sum(b[k]['ratio'] < 0.97 for k in keys)} "
                      f"| {all(b[k]['ok'] for k in keys)} |")


if __name__ == "__main__":
    main()
