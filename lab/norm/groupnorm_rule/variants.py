#!/usr/bin/env python3
"""Candidate changes to GroupNorm's default rule, scored on the training shapes (lab, not product).

Each variant edits the choice of fit.rule (the library's rule) and is scored like fit.py scores
the rule: the geometric mean over the region sweep's shapes of the variant's time / the shape's
best, and the worst shape. Training shapes only: a variant that wins here still has to be
measured on validation shapes (scripts/norm_vs_torch.py) before it goes into
kernels/src/groupnorm/family.cpp, and its configurations must be in the trials (a variant that
picks one the sweep did not race is reported as missing).

usage: lab/norm/groupnorm_rule/variants.py [TRIALS.csv.xz]
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import fit  # noqa: E402


def every_nhwc_widest(t, lay, silu, n, c, hw, g, sm=90):
    """Every NHWC group takes 16-byte vectors, not only those of an odd channel count."""
    inst = fit.rule(t, lay, silu, n, c, hw, g, sm)
    if lay == "nhwc":
        vec = inst.split("_vec")[1].split("_")[0]
        inst = inst.replace(f"_vec{vec}_", f"_vec{16 // fit.ELEM[t]}_")
    return inst


def pairs_to_127(t, lay, silu, n, c, hw, g, sm=90):
    """Pairs of 1024-thread blocks for 33 to 127 groups, as the previous rule took."""
    inst = fit.rule(t, lay, silu, n, c, hw, g, sm)
    if "group_loop" in inst and "_threads1024" in inst and fit.PAIR_GROUPS < n * g and sm >= 90:
        inst = inst.replace("group_loop", "group_cluster") + "_cluster2"
    return inst


VARIANTS = {
    "the library's rule": fit.rule,
    "the previous rule (e400a55)": fit.previous_rule,
    "every NHWC group: 16-byte vectors": every_nhwc_widest,
    "pairs of blocks up to 127 groups": pairs_to_127,
}


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "h100-grid-trials.csv.xz")
    shapes = fit.load(path)
    print("| variant (training shapes) | shapes | rule / best | worst | missing |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for label, rule in VARIANTS.items():
        logs, missing, worst = [], 0, 0.0
        for key, times in shapes.items():
            inst = rule(*key)
            if inst not in times:
                missing += 1
                continue
            ratio = times[inst] / min(times.values())
            logs.append(math.log(ratio))
            worst = max(worst, ratio)
        print(f"| {label} | {len(logs)} | {math.exp(sum(logs) / len(logs)):.3f} | {worst:.2f} | {missing} |")


if __name__ == "__main__":
    main()
