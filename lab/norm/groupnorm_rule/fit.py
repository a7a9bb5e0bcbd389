#!/usr/bin/env python3
"""GroupNorm's default rule against each training shape's best (lab, not product).

Reads the raced trials of configs/regions/groupnorm-grid.yaml (a CSV of lab/norm/trials_csv.py:
raced-out configurations carry the median of their race samples) and prints, per region of the
rule, the geometric mean of rule / best for the former rule (group_loop, 16-byte vectors, 512
threads), the previous rule (e400a55) and the rule of kernels/src/groupnorm/family.cpp, which
`rule` below mirrors. The
library's rule is the reference: tests/unit/groupnorm_rule_test.cpp pins its choices.

usage: lab/norm/groupnorm_rule/fit.py [-v] [TRIALS.csv.xz]    (-v: every shape)
"""
import collections
import csv
import lzma
import math
import os
import sys

ELEM = {"f32": 4, "f16": 2, "bf16": 2}
# The rule's constants (kernels/src/groupnorm/family.cpp).
THREADS = 512
CLUSTER_BELOW_THREADS = 1 << 16  # one block of THREADS per group leaves the GPU this short
CLUSTER_MIN_ELEMENTS = 1 << 14
FEW_GROUPS, PAIR_GROUPS, RULE_BLOCKS = 32, 64, 256
SMALL_GROUP_ELEMENTS = 1024


def name(t, lay, silu, fam, vec, threads, cluster=0, span=0):
    s = f"groupnorm_{t}_{lay}{'_silu_' if silu else '_'}{fam}_vec{vec}_threads{threads}"
    if fam == "group_span":
        s += f"_span{span}"
    if fam != "group_loop":
        s += f"_cluster{cluster}"
    return s


def nhwc_vec(t, cpg):
    """The widest vector (4 to 16 bytes) whose elements divide a group's channels."""
    e = ELEM[t]
    v = max(1, 4 // e)
    while v * 2 * e <= 16 and cpg % (v * 2) == 0:
        v *= 2
    return v


def former_rule(t, lay, silu, n, c, hw, g):
    return name(t, lay, silu, "group_loop", 16 // ELEM[t], 512)


def small_clusters(t, lay, silu, vec, owners, sm):
    """The smallest cluster of 256-thread blocks that gives RULE_BLOCKS in all, or the largest."""
    cluster = 8
    while cluster < (16 if sm == 90 else 8) and owners * cluster < RULE_BLOCKS:  # 16: non-portable
        cluster *= 2
    return name(t, lay, silu, "group_cluster", vec, 256, cluster)


def previous_rule(t, lay, silu, n, c, hw, g, sm=90):
    """The rule of e400a55, measured on validation shapes (docs/norm.md)."""
    cpg = c // g
    vec = 16 // ELEM[t] if lay == "nchw" else nhwc_vec(t, cpg)
    owners = n * g
    if sm >= 90 and owners * THREADS < CLUSTER_BELOW_THREADS and cpg * hw >= CLUSTER_MIN_ELEMENTS:
        if owners > FEW_GROUPS:
            return name(t, lay, silu, "group_cluster", vec, 1024, 2)
        return small_clusters(t, lay, silu, vec, owners, sm)
    return name(t, lay, silu, "group_loop", vec, THREADS)


def rule(t, lay, silu, n, c, hw, g, sm=90):
    cpg = c // g
    vec = 16 // ELEM[t] if lay == "nchw" or cpg % 2 == 1 else nhwc_vec(t, cpg)
    owners, elements = n * g, cpg * hw
    if elements < SMALL_GROUP_ELEMENTS:
        return name(t, lay, silu, "group_loop", vec, 128)
    if owners * THREADS >= CLUSTER_BELOW_THREADS or elements < CLUSTER_MIN_ELEMENTS:
        return name(t, lay, silu, "group_loop", vec, THREADS)
    if sm < 90 or owners > PAIR_GROUPS:
        return name(t, lay, silu, "group_loop", vec, 1024)
    if owners > FEW_GROUPS:
        return name(t, lay, silu, "group_cluster", vec, 1024, 2)
    return small_clusters(t, lay, silu, vec, owners, sm)


def region(t, lay, silu, n, c, hw, g):
    owners = n * g
    few = "few groups" if owners * THREADS < CLUSTER_BELOW_THREADS else "many groups"
    return f"{lay} {few}"


def load(path):
    opener = lzma.open if path.endswith(".xz") else open
    shapes = collections.defaultdict(dict)
    with opener(path, "rt") as f:
        for r in csv.DictReader(f):
            lay = "nchw" if r["layout"] == "1" else "nhwc"
            key = (r["dtype"], lay, r["silu"] == "1", int(r["n"]), int(r["c"]), int(r["h"]) * int(r["w"]),
                   int(r["groups"]))
            us = float(r["median_us"])
            shapes[key][r["instance"]] = min(us, shapes[key].get(r["instance"], us))
    return shapes


def main():
    args = [a for a in sys.argv[1:] if a != "-v"]
    path = args[0] if args else os.path.join(os.path.dirname(__file__), "h100-grid-trials.csv.xz")
    shapes = load(path)
    by_region = collections.defaultdict(lambda: [0, 0.0, 0.0, 0.0])
    missing = 0
    for key, times in sorted(shapes.items()):
        best_inst, best = min(times.items(), key=lambda kv: kv[1])
        old, prev, new = former_rule(*key), previous_rule(*key), rule(*key)
        if any(i not in times for i in (old, prev, new)):
            print(f"not measured: {key} {[i for i in (old, prev, new) if i not in times]}")
            missing += 1
            continue
        r = by_region[region(*key)]
        r[0] += 1
        r[1] += math.log(times[old] / best)
        r[2] += math.log(times[prev] / best)
        r[3] += math.log(times[new] / best)
        if "-v" in sys.argv:
            print(f"{key} best {best:8.1f} {best_inst[10:]:50s} former x{times[old] / best:.2f} "
                  f"previous x{times[prev] / best:.2f} rule x{times[new] / best:.2f} {new[10:]}")
    total = [0, 0.0, 0.0, 0.0]
    print("| region (training shapes) | shapes | former rule / best | previous rule / best | rule / best |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name_, (k, a, p, b) in sorted(by_region.items()):
        print(f"| {name_} | {k} | {math.exp(a / k):.3f} | {math.exp(p / k):.3f} | {math.exp(b / k):.3f} |")
        total = [total[0] + k, total[1] + a, total[2] + p, total[3] + b]
    k, a, p, b = total
    if k:
        print(f"| all | {k} | {math.exp(a / k):.3f} | {math.exp(p / k):.3f} | {math.exp(b / k):.3f} |")
    if missing:
        print(f"{missing} shapes lack a rule's configuration")


if __name__ == "__main__":
    main()
