"""Where the time of a small norm call goes: cuop's layer_norm and torch's on a few small shapes,
each timed cold (L2 flushed, as scripts/norm_vs_torch.py) and warm, with what cuop dispatched.
Run after `ci/gpu/run.sh python` (the package installed): python3 lab/norm/tiny_calls.py"""
import sys

import torch

sys.path.insert(0, "scripts")
import torch_timing  # noqa: E402

import cuop  # noqa: E402

SHAPES = [(24, 88, torch.float32), (24, 96, torch.float32), (23, 88, torch.float32), (24, 88, torch.bfloat16),
          (1, 768, torch.bfloat16), (43, 8, torch.float32)]


def main():
    flush = torch_timing.l2_flush_buffer()
    print("| shape | dtype | cuop cold | torch cold | cuop warm | torch warm | cuop runs |")
    print("| --- | --- | ---: | ---: | ---: | ---: | --- |")
    for rows, cols, dt in SHAPES:
        x = torch.randn(rows, cols, device="cuda", dtype=dt)
        w = torch.randn(cols, device="cuda", dtype=dt)
        b = torch.randn(cols, device="cuda", dtype=dt)
        ours = lambda: cuop.layer_norm(x, [cols], w, b, 1e-5)  # noqa: E731
        theirs = lambda: torch.nn.functional.layer_norm(x, [cols], w, b, 1e-5)  # noqa: E731
        times = [torch_timing.time_cold(f, fl, samples=50) for fl in (flush, None) for f in (ours, theirs)]
        which = cuop.which.layer_norm(x, [cols])
        print(f"| {rows}x{cols} | {str(dt)[6:]} | " + " | ".join(f"{t:.1f}" for t in times) + f" | {which} |")


if __name__ == "__main__":
    main()
