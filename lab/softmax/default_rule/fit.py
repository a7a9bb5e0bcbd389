#!/usr/bin/env python3
"""The softmax default rule against each training shape's best (lab, not product).

Reads the raced trials of configs/regions/softmax-grid.yaml (h100-grid-trials.csv.xz: one H100
run at ed2a060; raced-out configurations carry the median of their race samples) and prints, per
region of the rule, the geometric mean of rule / best for the former rule (cols only) and for the
rule of kernels/src/softmax/family.cpp, which `rule` below mirrors, except its row_tile line
(short 16-bit rows off the vector grid): these trials have no row_tile, which
lab/softmax/row-tile-probe.yaml measured apart. The library's rule is the reference:
tests/unit/model_test.cpp pins its names.

usage: lab/softmax/default_rule/fit.py [TRIALS.csv.xz]
"""
import collections
import csv
import lzma
import math
import os
import sys

ELEM = {"f32": 4, "f16": 2, "bf16": 2}
MIN_THREADS, MIN_BLOCKS, MAX_SEGMENTS, BLOCK_ROWS = 32768, 256, 128, 1024


def pow2_at_least(v):
    p = 1
    while p < v:
        p *= 2
    return p


def warp(t, vec, lanes, rows_per_block, chunks):
    return f"softmax_{t}_warp_row_vec{vec}_rowthreads{lanes}_blockrows{rows_per_block}_chunks{chunks}_persistent0"


def short_row_split(e, p, lanes16, chunks16):
    """Short rows of P columns: (vec, lanes, chunks). f32 the same in both rules; 16-bit takes its
    lane count past 16 columns (lanes16(P)) and its chunks per lane (chunks16(per lane)) from the rule."""
    lanes = 1
    if e == 4 and p > 4:
        lanes = min(8, p // 4)
    elif e == 2 and p > 8:
        lanes = 2 if p == 16 else lanes16(p)
    per = p // lanes
    if p <= (4 if e == 4 else 8):
        return per, lanes, 1
    if e == 4:
        v = min(4, per)
        return v, lanes, per // v
    ch = chunks16(per)
    return per // ch, lanes, ch


def fewest_lanes(vectors):
    """The fewest lanes (4 to 32) holding a row of 16-byte vectors in 1 or 4 chunks: (lanes, chunks)."""
    ch = 1 if vectors <= 32 else 4
    lanes = 4
    while lanes < 32 and lanes * ch < vectors:
        lanes *= 2
    return lanes, ch


def former_rule(t, rows, cols):
    e = ELEM[t]
    vec = 16 // e
    vectors = (max(cols, 1) + vec - 1) // vec
    p = pow2_at_least(cols)
    if p <= (128 if e == 4 else 256):
        v, lanes, ch = short_row_split(e, p, lambda p: 4, lambda per: min(8, per // 2))
        return warp(t, v, lanes, 256 // lanes, ch)
    if vectors <= 128:
        lanes, ch = fewest_lanes(vectors)
        return warp(t, vec, lanes, 256 // lanes, ch)
    for threads, ch in [(256, 1), (256, 2), (256, 4), (256, 8), (1024, 4), (1024, 8)]:
        if threads * ch >= vectors:
            return f"softmax_{t}_block_row_vec{vec}_threads{threads}_chunks{ch}_persistent0"
    large = vectors > 2048 * 128
    return f"softmax_{t}_split_row_vec{vec}_threads{1024 if large else 512}_chunks{8 if large else 4}"


def rule(t, rows, cols):
    e = ELEM[t]
    vec = 16 // e
    rows, cols = max(rows, 1), max(cols, 1)
    vectors = (cols + vec - 1) // vec
    p = pow2_at_least(cols)
    if p <= (128 if e == 4 else 256):
        v, lanes, ch = short_row_split(e, p, lambda p: max(4, min(8, p // 16)),
                                       lambda per: min(8, per // 4) if per >= 16 else min(4, per // 2))
    elif vectors <= 128 and e == 2:
        v, lanes = 4, 4
        while lanes < 32 and lanes * 8 < p // v:
            lanes *= 2
        ch = p // v // lanes
        return spread_lanes(t, rows, v, lanes, ch, True)
    elif vectors <= 128:
        v = vec
        lanes, ch = fewest_lanes(vectors)
    else:
        pv = pow2_at_least(vectors)
        if pv <= 4096:
            threads = 128
            while pv // threads > 4:
                threads *= 2
            ch = pv // threads
            while threads < 1024 and ch > 1 and rows * threads < MIN_THREADS:
                threads, ch = threads * 2, ch // 2
            return f"softmax_{t}_block_row_vec{vec}_threads{threads}_chunks{ch}_persistent0"
        if rows >= BLOCK_ROWS and vectors <= 1024 * 16:
            threads = 512 if vectors <= 512 * 16 else 1024
            ch = 4 if threads == 512 else 8
            smem = max(2, (-(-vectors // threads) - ch + 1) // 2 * 2)
            return f"softmax_{t}_block_row_vec{vec}_threads{threads}_chunks{ch}_persistent0_smemchunks{smem}"
        threads, ch = 256, 8
        segments = lambda: -(-cols // (vec * threads * ch))
        while ch > 2 and rows * segments() < MIN_BLOCKS:
            ch //= 2
        if segments() > MAX_SEGMENTS:
            threads, ch = 1024, 8
        return f"softmax_{t}_split_row_vec{vec}_threads{threads}_chunks{ch}_persistent0"
    return spread_lanes(t, rows, v, lanes, ch, False)


def spread_lanes(t, rows, v, lanes, ch, small_blocks):
    e = ELEM[t]
    spread = small_blocks
    while lanes < 32 and rows * lanes < MIN_THREADS:
        if ch > 1:
            ch //= 2
        elif v * e > 4:
            v //= 2
        else:
            break
        lanes *= 2
        spread = True
    block = max(128 if spread else 256, lanes)
    return warp(t, v, lanes, block // lanes, ch)


def region(t, cols):
    e = ELEM[t]
    if pow2_at_least(cols) <= (128 if e == 4 else 256):
        return "short rows (warp_row, narrow vectors)"
    if cols <= 128 * 16 // e:
        return "medium rows (warp_row)"
    if cols <= 4096 * 16 // e:
        return "long rows (block_row)"
    return "longest rows (split_row; block_row past 1024 rows)"


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "h100-grid-trials.csv.xz")
    shapes = collections.defaultdict(dict)
    with lzma.open(path, "rt") as f:
        for r in csv.DictReader(f):
            shapes[(r["dtype"], int(r["rows"]), int(r["cols"]))][r["instance"]] = float(r["median_us"])
    logs = collections.defaultdict(lambda: ([], []))
    for (t, rows, cols), times in sorted(shapes.items()):
        best = min(times.values())
        for i, fn in enumerate((former_rule, rule)):
            name = fn(t, rows, cols)
            if name not in times:
                sys.exit(f"{t} {rows}x{cols}: {name} was not measured")
            for key in (region(t, cols), "all"):
                logs[key][i].append(math.log(times[name] / best))
    print("| region | shapes | former rule / best | rule / best |")
    print("| --- | ---: | ---: | ---: |")
    for key, (old, new) in sorted(logs.items(), key=lambda kv: kv[0] == "all"):
        g = lambda l: math.exp(sum(l) / len(l))
        print(f"| {key} | {len(old)} | {g(old):.3f} | {g(new):.3f} |")


if __name__ == "__main__":
    main()
