#!/usr/bin/env python3
"""Side by side on one GPU, in one run: the dispatched cuop::gemm and cuBLASLt's heuristic first
choice (examples/gemm_bench, Google Benchmark with CUDA-event manual time, L2 flushed, both
answers verified), and torch.matmul timed the same way (CUDA events, L2 flushed by reading a
buffer of twice its size, warm-up, median). Prints a markdown table and the goals' figures. For
decode shapes (m <= 64) it adds gemm_bench's read floor: the fastest streaming read of B alone,
timed the same way, and heuristic / floor, the most any kernel that reads B once could gain.

--repetitions N runs every benchmark N times in a random interleaving (Google Benchmark's
--benchmark_enable_random_interleaving) and reads the medians: back-to-back single runs of the
same cuBLASLt configuration measured 0.89x apart on 64x4096x4096, interleaved 1.00x.

--min-time S: the GPU time each benchmark runs for (gemm_bench's default 0.2 s); with
repetitions, a smaller one keeps the whole table inside a device call's limit.

usage: gemm_vs_torch.py BUILD_DIR SWEEP_YAML|MxNxK,... [--dtype bf16] [--repetitions N] [--min-time S]"""
import json
import subprocess
import sys

import torch
import yaml

from torch_timing import geomean, l2_flush_buffer, time_cold

DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16}


def main():
    build, sweep = sys.argv[1], sys.argv[2]
    dtype = sys.argv[sys.argv.index("--dtype") + 1] if "--dtype" in sys.argv else "bf16"
    if sweep.endswith(".yaml"):
        shapes = [(p["m"], p["n"], p["k"]) for p in yaml.safe_load(open(sweep))["problems"]]
    else:
        shapes = [tuple(int(x) for x in s.split("x")) for s in sweep.split(",")]
    args = [f"{build}/examples/gemm_bench", "--shapes=" + ",".join(f"{m}x{n}x{k}" for m, n, k in shapes),
            "--benchmark_format=json"] + (["--f16"] if dtype == "f16" else [])
    reps = int(sys.argv[sys.argv.index("--repetitions") + 1]) if "--repetitions" in sys.argv else 1
    if "--min-time" in sys.argv:
        args.append(f"--min-time={float(sys.argv[sys.argv.index('--min-time') + 1])}")
    if reps > 1:
        args += [f"--benchmark_repetitions={reps}", "--benchmark_enable_random_interleaving=true",
                 "--benchmark_report_aggregates_only=true"]
    bench = subprocess.run(args, capture_output=True, text=True)
    if bench.returncode != 0:
        sys.exit(f"gemm_bench failed ({bench.returncode}): {bench.stderr[-2000:]}")
    results = {}
    for b in json.loads(bench.stdout)["benchmarks"]:
        if reps > 1 and b.get("aggregate_name") != "median" and not b.get("error_occurred"):
            continue
        who, shape, _ = b["name"].split("/")[:3]
        results[(who, shape)] = b
    props = torch.cuda.get_device_properties(0)
    flush = l2_flush_buffer()

    order = f"median of {reps} randomly interleaved repetitions" if reps > 1 else "one run each, back to back"
    print(f"GPU: {props.name}; {dtype}; L2 flushed (read); torch {torch.__version__}; D = A (m x k) * W^T (W: n x k); "
          f"gemm_bench: {order}\n")
    print("| m x n x k | cuop choice (source) | cuop us | cuop TFLOP/s | B read TB/s | cuBLASLt heuristic TFLOP/s | cuop / heuristic | torch.matmul TFLOP/s | B read floor us | heuristic / floor |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    ratios, decode, slower, bounds = [], [], [], {}
    for m, n, k in shapes:
        key = f"{m}x{n}x{k}"
        ours, lt = results.get(("cuop_gemm", key)), results.get(("cublaslt_heuristic", key))
        if not ours or ours.get("error_occurred"):
            print(f"| {key} | (failed: {(ours or {}).get('error_message', 'not run')}) | | | | | | | | |")
            continue
        lt_failed = not lt or lt.get("error_occurred")
        a = torch.rand(m, k, device="cuda", dtype=DTYPES[dtype]) * 2 - 1
        w = torch.rand(n, k, device="cuda", dtype=DTYPES[dtype]) * 2 - 1
        torch_us = time_cold(lambda: torch.matmul(a, w.t()), flush)
        del a, w
        flops = 2.0 * m * n * k
        ours_us = ours["real_time"]  # microseconds (manual time)
        if lt_failed:  # the heuristic's answer failed verification (or did not run): no ratio
            lt_cell, ratio_cell = f"({(lt or {}).get('error_message', 'not run')})", "-"
        else:
            lt_us = lt["real_time"]
            ratio = lt_us / ours_us
            ratios.append(ratio)
            if m <= 64:
                decode.append(ratio)
            if ratio < 0.98:
                slower.append((key, ratio))
            lt_cell, ratio_cell = f"{flops / lt_us / 1e6:.1f}", f"{ratio:.2f}x"
        floor = results.get(("b_read_floor", key))
        floor_cell, bound_cell = "-", "-"
        if floor and not floor.get("error_occurred"):
            floor_cell = f"{floor['real_time']:.1f}"
            if not lt_failed:
                bounds[key] = (m, lt["real_time"] / floor["real_time"])
                bound_cell = f"{bounds[key][1]:.2f}x"
        print(f"| {key} | `{ours.get('label', '?')}` | {ours_us:.1f} | {flops / ours_us / 1e6:.1f} | "
              f"{n * k * 2 / ours_us / 1e6:.2f} | {lt_cell} | {ratio_cell} | {flops / torch_us / 1e6:.1f} | "
              f"{floor_cell} | {bound_cell} |")
    print(f"\nGeometric mean cuop / cuBLASLt heuristic over {len(ratios)} shapes: {geomean(ratios):.3f}x")
    print(f"Decode shapes (m <= 64): geometric mean {geomean(decode):.2f}x, min {min(decode) if decode else float('nan'):.2f}x")
    if bounds:
        per_m = {}
        for m, b in bounds.values():
            per_m.setdefault(m, []).append(b)
        print(f"Decode shapes, heuristic / B read floor (the most a kernel reading B once could gain): geometric mean "
              f"{geomean([b for _, b in bounds.values()]):.2f}x over {len(bounds)}; "
              + ", ".join(f"m = {m}: {geomean(v):.2f}x" for m, v in sorted(per_m.items())))
    print("Shapes more than 2% slower than the heuristic: " + (", ".join(f"{s} ({r:.2f}x)" for s, r in slower) or "none"))


if __name__ == "__main__":
    main()
