#!/usr/bin/env python3
"""Side by side on one GPU, in one run: the dispatched cuop::conv2d and cuDNN's heuristic first
plan (examples/conv_bench, Google Benchmark with CUDA-event manual time, L2 flushed, both answers
verified), and torch.nn.functional.conv2d (cudnn.benchmark on, TF32 off) timed the same way
(CUDA events, L2 flushed by reading a buffer of twice its size, warm-up, median). Prints a
markdown table and the goals' figures.

Each side runs in PROCS fresh processes (environment CONV_VS_TORCH_PROCS, default 3), because
torch's time for one layer has moved by up to 67% between processes with the same cuDNN kernel
(docs/conv-h200.md) while ours moves by under 1%. Every ratio is the conservative one: our
slowest median against the heuristic's and torch's fastest. The table gives each side's range.

usage: conv_vs_torch.py BUILD_DIR SWEEP_YAML
       conv_vs_torch.py --torch-child SWEEP_YAML   (one process's torch medians, as JSON)"""
import json
import os
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


def problems_of(sweep):
    spec = yaml.safe_load(open(sweep))
    dtype = spec["dtypes"][0]
    return dtype, spec["problems"], [key_of(p, dtype) for p in spec["problems"]]


def torch_child(sweep):
    """One process's torch medians, {key: us}, as JSON on stdout."""
    dtype, problems, keys = problems_of(sweep)
    torch.backends.cudnn.benchmark = True
    flush = l2_flush_buffer()
    print(json.dumps({key: torch_time(p, dtype, flush) for p, key in zip(problems, keys)}))


def run_or_exit(what, argv):
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{what} failed ({done.returncode}): {done.stderr[-2000:]}")
    return done.stdout


def bench_runs(build, keys, procs):
    """{(who, key): [benchmark of each process]} from PROCS conv_bench processes."""
    runs = {}
    for _ in range(procs):
        out = run_or_exit("conv_bench", [f"{build}/examples/conv_bench", "--shapes=" + ";".join(keys),
                                         "--benchmark_format=json"])
        for b in json.loads(out)["benchmarks"]:
            who, key = b["name"].split("/")[:2]
            runs.setdefault((who, key), []).append(b)
    return runs


def spread(times):
    return f"{min(times):.1f}-{max(times):.1f}" if len(times) > 1 else f"{times[0]:.1f}"


def main():
    if sys.argv[1] == "--torch-child":
        return torch_child(sys.argv[2])
    build, sweep = sys.argv[1], sys.argv[2]
    procs = int(os.environ.get("CONV_VS_TORCH_PROCS", "3"))
    dtype, problems, keys = problems_of(sweep)
    runs = bench_runs(build, keys, procs)
    torch_runs = [json.loads(run_or_exit("torch", [sys.executable, __file__, "--torch-child", sweep]))
                  for _ in range(procs)]
    props = torch.cuda.get_device_properties(0)
    print(f"GPU: {props.name}; L2 flushed (read); torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}"
          f" (benchmark on, TF32 off unless the problem allows it); each side in {procs} processes: cuop us is"
          " the slowest process's median, the heuristic's and torch's the fastest (each side's range in parentheses)\n")
    print("| problem | cuop choice | cuop us | TFLOP/s | TB/s | cuDNN heuristic us | cuop / heuristic | torch us | cuop / torch |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    dense16, dense32, slower, depthwise = [], [], [], {}
    for p, key in zip(problems, keys):
        torch_times = [run[key] for run in torch_runs]
        torch_us = min(torch_times)
        torch_cell = f"{torch_us:.1f} ({spread(torch_times)})"
        ours_runs = runs.get(("cuop_conv2d", key), [])
        failed = [b for b in ours_runs if b.get("error_occurred")]
        if not ours_runs or failed:
            why = failed[0].get("error_message", "?") if failed else "not run"
            print(f"| {key} | (failed: {why}) | | | | | | {torch_cell} | |")
            continue
        ours = max(ours_runs, key=lambda b: b["real_time"])  # the slowest process
        us = ours["real_time"]
        ours_cell = f"{us:.1f} ({spread([b['real_time'] for b in ours_runs])})"
        all_dnn = runs.get(("cudnn_heuristic", key), [])
        dnn_runs = [b for b in all_dnn if not b.get("error_occurred")]
        if dnn_runs:
            dnn = min(dnn_runs, key=lambda b: b["real_time"])  # the fastest process
            ratio = dnn["real_time"] / us
            dnn_cell = f"{dnn['real_time']:.1f} ({spread([b['real_time'] for b in dnn_runs])})"
            ratio_cell = f"{ratio:.2f}x"
            if p.get("groups", 1) == 1:
                (dense32 if p.get("dtype", dtype) == "f32" else dense16).append(ratio)
            if ratio < 0.98:
                slower.append((key, ratio))
        else:
            dnn_cell, ratio_cell = f"({all_dnn[0].get('error_message', '?') if all_dnn else 'not run'})", "-"
        vs_torch = torch_us / us
        if p.get("groups", 1) > 1:
            depthwise[key] = vs_torch
        print(f"| {key} | `{ours.get('label', '?')}` | {ours_cell} | {ours['TFLOPs']:.1f} | "
              f"{ours['TBps']:.2f} | {dnn_cell} | {ratio_cell} | {torch_cell} | {vs_torch:.2f}x |")
    def mean_of(ratios):  # a sweep subset without dense layers has no mean to give
        return f"over {len(ratios)}: {geomean(ratios):.3f}x" if ratios else "none in this set"
    print(f"\nDense 16-bit layers: geometric mean cuop / cuDNN heuristic {mean_of(dense16)}")
    print(f"Dense f32 layers (large filters, TF32 where allowed): {mean_of(dense32)}")
    print(f"All dense layers: {mean_of(dense16 + dense32)}")
    print("More than 2% slower than the heuristic: " + (", ".join(f"{k} ({r:.2f}x)" for k, r in slower) or "none"))
    print("Depthwise, cuop / torch: " + ", ".join(f"{k} {r:.2f}x" for k, r in depthwise.items()))


if __name__ == "__main__":
    main()
