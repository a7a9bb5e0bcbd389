"""Times the test models with torch's ops and with cuop's, eager and torch.compile'd, side by side
in one process: CUDA events around each forward, median of REPS after warm-up (docs/python.md).

usage: python python/tests/bench_models.py [--reps N] [--out FILE.md]
"""

import argparse
import os
import sys

import torch

import blocks

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import torch_timing  # noqa: E402  (the side-by-side scripts' timer)

CASES = [  # name, block, input, dtype, block arguments, input arguments
    ("transformer 4x512 d1024 h16 ffn4096", blocks.TransformerBlock, blocks.transformer_input, torch.bfloat16, {}, {}),
    ("transformer 1x2048 d2048 h16 ffn8192", blocks.TransformerBlock, blocks.transformer_input, torch.bfloat16,
     {"dim": 2048, "hidden": 8192}, {"batch": 1, "seq": 2048, "dim": 2048}),
    ("transformer 8x1 d4096 h32 ffn11008 (decode)", blocks.TransformerBlock, blocks.transformer_input, torch.bfloat16,
     {"dim": 4096, "heads": 32, "hidden": 11008}, {"batch": 8, "seq": 1, "dim": 4096}),
    ("mobilenet 32x24x56x56 x6 k3", blocks.InvertedResidual, blocks.mobilenet_input, torch.float16,
     {"channels": 24}, {"channels": 24}),
    ("mobilenet 32x64x28x28 x6 k5", blocks.InvertedResidual, blocks.mobilenet_input, torch.float16,
     {"channels": 64, "kernel": 5}, {"channels": 64, "size": 28}),
    ("mobilenet 8x160x14x14 x6 k7", blocks.InvertedResidual, blocks.mobilenet_input, torch.float16,
     {"channels": 160, "kernel": 7}, {"batch": 8, "channels": 160, "size": 14}),
]


def median_ms(fn, x, reps):
    with torch.no_grad():
        return torch_timing.time_cold(lambda: fn(x), None, samples=reps) / 1000.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--out", help="also write the table to this markdown file")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("bench_models: torch sees no CUDA device", file=sys.stderr)
        return 77
    lines = [f"{torch.cuda.get_device_name()}, torch {torch.version.__version__}, median of {args.reps} forwards (ms)",
             "", "| model | torch eager | cuop eager | ratio | torch compile | cuop compile | ratio |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, block, make_input, dtype, kw, input_kw in CASES:
        torch._dynamo.reset()
        reference, ours = blocks.pair(block, dtype, **kw)
        x = make_input(dtype, **input_kw)
        t = [median_ms(m, x, args.reps) for m in (reference, ours, torch.compile(reference), torch.compile(ours))]
        lines.append(f"| {name} | {t[0]:.3f} | {t[1]:.3f} | {t[0] / t[1]:.2f}x | {t[2]:.3f} | {t[3]:.3f} | "
                     f"{t[2] / t[3]:.2f}x |")
        print(lines[-1], flush=True)
    print("\n".join(lines))
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
