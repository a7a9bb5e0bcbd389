"""Device probe: how much torch's depthwise times move between processes, and why.

The side-by-side tables (scripts/conv_vs_torch.py) timed torch.nn.functional.conv2d in one
process with cudnn.benchmark on, and torch's 7x7 NHWC figure moved by up to 43% between calls
(32x28x28x512: 108 and 155 us); since this probe they take torch's fastest of several processes.
Here each layer is timed in PROCS fresh processes with benchmark
on (each process lets cuDNN choose again) and one with it off, with conv_vs_torch.py's timing
method (scripts/torch_timing.py: L2 flushed by a read, median of 30), and the CUDA kernels of one
call profiled after the timing are named (torch.profiler). Then, in one more process (benchmark on), each layer is
timed on ALLOCS fresh pairs of tensors, all kept alive (so at other addresses), one after another.
Usage, on the GPU machine: python3 ci/gpu/probes/torch_depthwise_spread.py [PROCS [ALLOCS]]"""
import json
import os
import subprocess
import sys

LAYERS = [(32, 56, 56, 128, 7), (32, 28, 28, 256, 7), (32, 28, 28, 512, 7), (16, 64, 64, 384, 7), (8, 32, 32, 1024, 31)]


def child(benchmark, allocs=1):
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../../scripts"))
    import torch
    import torch.nn.functional as F
    from torch_timing import l2_flush_buffer, time_cold

    torch.backends.cudnn.benchmark = benchmark
    torch.backends.cudnn.allow_tf32 = False
    flush = l2_flush_buffer()
    out = []
    kept = []
    for n, h, w, c, r in LAYERS:
        times = []
        for _ in range(allocs):
            x = (torch.rand(n, c, h, w, device="cuda", dtype=torch.float16) * 2 - 1).to(
                memory_format=torch.channels_last)
            wt = (torch.rand(c, 1, r, r, device="cuda", dtype=torch.float16) * 2 - 1).to(
                memory_format=torch.channels_last)
            kept += [x, wt]
            fn = lambda: F.conv2d(x, wt, padding=r // 2, groups=c)  # noqa: E731
            times.append(time_cold(fn, flush, samples=30))
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
            fn()
            torch.cuda.synchronize()
        kernels = sorted({e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA})
        out.append({"layer": f"{n}x{h}x{w}x{c} {r}x{r}", "us": times[0], "times": times, "kernels": kernels})
    print(json.dumps(out))


def main():
    if len(sys.argv) > 1 and sys.argv[1].startswith("--child-"):
        child(sys.argv[1] == "--child-on", int(sys.argv[2]) if len(sys.argv) > 2 else 1)
        return
    procs = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    allocs = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    runs = [("on", i) for i in range(procs)] + [("off", 0)]
    results = {}
    for mode, i in runs:
        p = subprocess.run([sys.executable, __file__, f"--child-{mode}"], capture_output=True, text=True, check=True)
        results[(mode, i)] = json.loads(p.stdout.strip().splitlines()[-1])
    names = {}
    print("| layer (f16 NHWC depthwise) | " + " | ".join(f"benchmark {m} #{i + 1} us" for m, i in runs) + " |")
    print("| --- | " + " | ".join("---:" for _ in runs) + " |")
    for li, (n, h, w, c, r) in enumerate(LAYERS):
        cells = []
        for run in runs:
            e = results[run][li]
            tag = names.setdefault(" + ".join(e["kernels"]), chr(ord("A") + len(names)))
            cells.append(f"{e['us']:.1f} ({tag})")
        print(f"| {n}x{h}x{w}x{c} {r}x{r} | " + " | ".join(cells) + " |")
    p = subprocess.run([sys.executable, __file__, "--child-on", str(allocs)], capture_output=True, text=True,
                       check=True)
    one = json.loads(p.stdout.strip().splitlines()[-1])
    print(f"\nOne process (benchmark on), {allocs} allocations of each layer's tensors, in turn:\n")
    print("| layer | " + " | ".join(f"allocation {i + 1} us" for i in range(allocs)) + " | kernels |")
    print("| --- | " + " | ".join("---:" for _ in range(allocs)) + " | --- |")
    for e in one:
        tag = names.setdefault(" + ".join(e["kernels"]), chr(ord("A") + len(names)))
        print(f"| {e['layer']} | " + " | ".join(f"{t:.1f}" for t in e["times"]) + f" | {tag} |")
    print("\nKernels (the letter after each time):")
    for k, tag in names.items():
        print(f"- {tag}: {k[:300]}")


if __name__ == "__main__":
    main()
