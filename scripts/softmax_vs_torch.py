#!/usr/bin/env python3
"""Side by side on one GPU: the dispatched cuop::softmax (examples/softmax_bench, the tuner's own
timing method) and torch.softmax timed the same way (CUDA events, L2 flushed outside the timed
region by reading a buffer of twice the L2 size, warm-up, median). Prints a markdown table.
--dirty-flush writes the buffer instead (Triton's and nvbench's way), which leaves the L2 full of
dirty lines whose write-back is charged to the timed kernel; docs/measurement.md compares both.

usage: softmax_vs_torch.py BUILD_DIR [--copy]"""
import json
import subprocess
import sys

import torch

import torch_timing

DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}


DIRTY = "--dirty-flush" in sys.argv


def time_cold(fn, flush, samples=200, warmup=20):
    return torch_timing.time_cold(fn, flush, samples, warmup, dirty=DIRTY)


def main():
    build = sys.argv[1]
    cmd = [f"{build}/examples/softmax_bench"] + (["--dirty-flush"] if DIRTY else [])
    bench = subprocess.run(cmd, capture_output=True, text=True)
    if bench.returncode not in (0, 1):
        sys.exit(f"softmax_bench failed ({bench.returncode}): {bench.stderr}")
    ours = [json.loads(line) for line in bench.stdout.splitlines() if line.startswith("{")]
    props = torch.cuda.get_device_properties(0)
    flush = torch_timing.l2_flush_buffer()

    # Copy bandwidth: a large device-to-device copy, bytes read plus written.
    a = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
    b = torch.empty_like(a)
    copy_us = time_cold(lambda: b.copy_(a), flush, samples=50)
    copy_gbps = 2 * a.numel() / copy_us / 1e3
    del a, b

    rows = []
    for r in ours:
        x = torch.rand(r["rows"], r["cols"], device="cuda", dtype=DTYPES[r["dtype"]]) * 16 - 8
        bytes_moved = 2 * x.numel() * x.element_size()
        torch_us = time_cold(lambda: torch.softmax(x, dim=-1), flush)
        rows.append((r, bytes_moved, bytes_moved / torch_us / 1e3))
        del x

    method = "write (dirty) flush" if DIRTY else "read (clean) flush"
    print(f"GPU: {props.name}; L2 {method}; device-to-device copy {copy_gbps:.0f} GB/s; torch {torch.__version__}\n")
    print("| shape | dtype | MB | chosen kernel (source) | cuop GB/s | % of copy | torch GB/s | cuop / torch | verified |")
    print("| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | --- |")
    ratios = []
    for r, nbytes, torch_gbps in rows:
        ratio = r["gbps"] / torch_gbps
        ratios.append(ratio)
        print(f"| {r['rows']}x{r['cols']} | {r['dtype']} | {nbytes / 2 / 1e6:.0f} | `{r['instance']}` ({r['source']}) "
              f"| {r['gbps']:.0f} | {100 * r['gbps'] / copy_gbps:.1f} | {torch_gbps:.0f} | {ratio:.2f}x | "
              f"{'yes' if r['correct'] else 'NO'} |")
    geo = torch_timing.geomean(ratios)
    print(f"\nGeometric mean cuop / torch over {len(ratios)} shapes: {geo:.2f}x")


if __name__ == "__main__":
    main()
