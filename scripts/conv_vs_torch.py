#!/usr/bin/env python3
"""Side by side on one GPU, in one run: the dispatched cuop::conv2d and cuDNN's heuristic first
plan (examples/conv_bench, Google Benchmark with CUDA-event manual time, L2 flushed, both answers
verified), and torch.nn.functional.conv2d (cudnn.benchmark on, TF32 off) timed the same way
(CUDA events, L2 flushed by reading a buffer of twice its size, warm-up, median). Prints a
markdown table and the goals' figures.

usage: conv_vs_torch.py BUILD_DIR SWEEP_YAML"""
import json
import subprocess
import sys

import torch
import torch.nn.functional as F
import yaml

from torch_timing import geomean, l2_flush_buffer, time_cold

DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}


def key_of(p, dtype):
    lay = p.get("layout", "nhwc")
    return (f"{p.get('dtype', dtype)}_{lay}_{p['n']}x{p['h']}x{p['w']}x{p['c']}_k{p['k']}_r{p['r']}x{p['s']}"
            f"_s{p.get('stride', 1)}_p{p.get('pad', 0)}_d{p.get('dilation', 1)}_g{p.get('groups', 1)}"
            + ("_tf32" if p.get("tf32", 0) else ""))


def torch_time(p, dtype, flush):
    t = DTYPES[p.get("dtype", dtype)]
    mf = torch.channels_last if p.get("layout", "nhwc") == "nhwc" else torch.contiguous_format
    g = p.get("groups", 1)
    torch.backends.cudnn.allow_tf32 = bool(p.get("tf32", 0))
    x = (torch.rand(p["n"], p["c"], p["h"], p["w"], device="cuda", dtype=t) * 2 - 1).to(memory_format=mf)
    w = (torch.rand(p["k"], p["c"] // g, p["r"], p["s"], device="cuda", dtype=t) * 2 - 1).to(memory_format=mf)
    return time_cold(lambda: F.conv2d(x, w, stride=p.get("stride", 1), padding=p.get("pad", 0),
                                      dilation=p.get("dilation", 1), groups=g), flush, samples=30)


def main():
    build, sweep = sys.argv[1], sys.argv[2]
    spec = yaml.safe_load(open(sweep))
    dtype = spec["dtypes"][0]
    problems = spec["problems"]
    keys = [key_of(p, dtype) for p in problems]
    bench = subprocess.run([f"{build}/examples/conv_bench", "--shapes=" + ";".join(keys), "--benchmark_format=json"],
                           capture_output=True, text=True)
    if bench.returncode != 0:
        sys.exit(f"conv_bench failed ({bench.returncode}): {bench.stderr[-2000:]}")
    results = {}
    for b in json.loads(bench.stdout)["benchmarks"]:
        who, key = b["name"].split("/")[:2]
        results[(who, key)] = b
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.allow_tf32 = False
    props = torch.cuda.get_device_properties(0)
    flush = l2_flush_buffer()
    print(f"GPU: {props.name}; L2 flushed (read); torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}"
          " (benchmark on, TF32 off unless the problem allows it)\n")
    print("| problem | cuop choice | cuop us | TFLOP/s | TB/s | cuDNN heuristic us | cuop / heuristic | torch us | cuop / torch |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    dense16, dense32, slower, depthwise = [], [], [], {}
    for p, key in zip(problems, keys):
        ours, dnn = results.get(("cuop_conv2d", key)), results.get(("cudnn_heuristic", key))
        torch_us = torch_time(p, dtype, flush)
        if not ours or ours.get("error_occurred"):
            print(f"| {key} | (failed: {(ours or {}).get('error_message', 'not run')}) | | | | | | {torch_us:.1f} | |")
            continue
        us = ours["real_time"]
        if dnn and not dnn.get("error_occurred"):
            ratio = dnn["real_time"] / us
            dnn_cell, ratio_cell = f"{dnn['real_time']:.1f}", f"{ratio:.2f}x"
            if p.get("groups", 1) == 1:
                (dense32 if p.get("dtype", dtype) == "f32" else dense16).append(ratio)
            if ratio < 0.98:
                slower.append((key, ratio))
        else:
            dnn_cell, ratio_cell = f"({(dnn or {}).get('error_message', 'not run')})", "-"
        vs_torch = torch_us / us
        if p.get("groups", 1) > 1:
            depthwise[key] = vs_torch
        print(f"| {key} | `{ours.get('label', '?')}` | {us:.1f} | {ours['TFLOPs']:.1f} | "
              f"{ours['TBps']:.2f} | {dnn_cell} | {ratio_cell} | {torch_us:.1f} | {vs_torch:.2f}x |")
    def mean_of(ratios):  # a sweep subset without dense layers has no mean to give
        return f"over {len(ratios)}: {geomean(ratios):.3f}x" if ratios else "none in this set"
    print(f"\nDense 16-bit layers: geometric mean cuop / cuDNN heuristic {mean_of(dense16)}")
    print(f"Dense f32 layers (large filters, TF32 where allowed): {mean_of(dense32)}")
    print(f"All dense layers: {mean_of(dense16 + dense32)}")
    print("More than 2% slower than the heuristic: " + (", ".join(f"{k} ({r:.2f}x)" for k, r in slower) or "none"))
    print("Depthwise, cuop / torch: " + ", ".join(f"{k} {r:.2f}x" for k, r in depthwise.items()))


if __name__ == "__main__":
    main()
