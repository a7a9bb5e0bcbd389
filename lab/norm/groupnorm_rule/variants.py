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


def odd_channels_widest(t, lay, silu, n, c, hw, g, sm=90):
    """NHWC groups of an odd channel count take 16-byte vectors (the kernels cover a run's ends)."""
    inst = fit.rule(t, lay, silu, n, c, hw, g, sm)
    cpg = c // g
    if lay == "nhwc" and cpg % 2 == 1:
        inst = inst.replace(f"_vec{fit.nhwc_vec(t, cpg)}_", f"_vec{16 // fit.ELEM[t]}_")
    return inst


def small_groups_128(base, below):
    """group_loop on 128-thread blocks where a group has fewer than `below` elements."""
    def rule(t, lay, silu, n, c, hw, g, sm=90):
        inst = base(t, lay, silu, n, c, hw, g, sm)
        if "group_loop" in inst and c // g * hw < below:
            inst = inst.replace("_threads512", "_threads128")
        return inst
    return rule


VARIANTS = {
    "the library's rule": fit.rule,
    "NHWC odd channels: 16-byte vectors": odd_channels_widest,
    "groups below 1024 elements: 128 threads": small_groups_128(fit.rule, 1024),
    "both": small_groups_128(odd_channels_widest, 1024),
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
