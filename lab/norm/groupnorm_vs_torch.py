"""cuop.group_norm (whatever the build's table chooses) against torch.nn.functional.group_norm
and, with SiLU, against torch's unfused pair (group_norm, then silu), in one process: each call
timed alone with CUDA events, the L2 flushed before it, median of --samples; answers checked
against torch. A lab measurement until GroupNorm has a validation distribution and joins
scripts/norm_vs_torch.py (docs/norm.md, "GroupNorm").

Shapes: the GroupNorm layers of Stable Diffusion 1.5 and SDXL U-Nets and VAE decoders (named
below), and --n draws with --seed from the distribution below (batch 1..16; channels 32..2560 in
multiples of the 32 groups; spatial sides 8..256), NCHW and NHWC (channels_last), bf16 and f16.

usage (after `ci/gpu/run.sh python`): python3 lab/norm/groupnorm_vs_torch.py [--n 40] [--seed 20261207]
       [--samples 20] [--json FILE]
"""
import argparse
import json
import math
import random
import sys

import torch

sys.path.insert(0, "scripts")
import torch_timing  # noqa: E402

# (name, n, c, h, w): U-Net blocks at 512x512 (SD 1.5, latent 64x64) and 1024x1024 (SDXL, latent
# 128x128), batch 2 (classifier-free guidance); VAE decoder blocks at 512x512, batch 1.
NAMED = [
    ("sd15-down0", 2, 320, 64, 64), ("sd15-down1", 2, 640, 32, 32), ("sd15-down2", 2, 1280, 16, 16),
    ("sd15-mid", 2, 1280, 8, 8), ("sdxl-down0", 2, 320, 128, 128), ("sdxl-down1", 2, 640, 64, 64),
    ("sdxl-mid", 2, 1280, 32, 32), ("vae-up3", 1, 128, 512, 512), ("vae-up2", 1, 256, 256, 256),
    ("vae-mid", 1, 512, 64, 64),
]
GROUPS = 32
DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16}
TOLERANCE = {"bf16": 3e-2, "f16": 5e-3}
MAX_ELEMENTS = 1 << 28


def drawn(n, seed):
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        batch = round(math.exp(rng.uniform(0, math.log(16))))
        c = GROUPS * rng.randint(1, 80)
        side = round(math.exp(rng.uniform(math.log(8), math.log(256))))
        if batch * c * side * side <= MAX_ELEMENTS:
            out.append((f"drawn{len(out)}", batch, c, side, side))
    return out


def measure(shape, dtype, nhwc, silu, flush, samples):
    import cuop

    _, n, c, h, w = shape
    t = DTYPES[dtype]
    x = torch.randn(n, c, h, w, device="cuda", dtype=t)
    if nhwc:
        x = x.contiguous(memory_format=torch.channels_last)
    wt = torch.rand(c, device="cuda", dtype=t) + 0.5
    b = torch.rand(c, device="cuda", dtype=t) - 0.5
    F = torch.nn.functional

    def theirs():
        y = F.group_norm(x, GROUPS, wt, b, 1e-5)
        return F.silu(y) if silu else y

    def ours():
        return cuop.group_norm(x, GROUPS, wt, b, 1e-5, silu=silu)

    ok = torch.allclose(ours().float(), theirs().float(), rtol=TOLERANCE[dtype], atol=TOLERANCE[dtype])
    us_ours = torch_timing.time_cold(ours, flush, samples=samples)
    us_torch = torch_timing.time_cold(theirs, flush, samples=samples)
    moved = 2 * x.numel() * x.element_size()
    return {"shape": shape[0], "n": n, "c": c, "h": h, "w": w, "dtype": dtype, "nhwc": nhwc, "silu": silu, "ok": ok,
            "cuop_us": us_ours, "torch_us": us_torch, "ratio": us_torch / us_ours, "cuop_gbs": moved / us_ours / 1e3}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--seed", type=int, default=20261207)
    ap.add_argument("--samples", type=int, default=20)
    ap.add_argument("--json")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("groupnorm_vs_torch: torch sees no CUDA device", file=sys.stderr)
        return 77
    flush = torch_timing.l2_flush_buffer()
    rows = []
    for shapes, label in ((NAMED, "named"), (drawn(args.n, args.seed), "drawn")):
        for i, shape in enumerate(shapes):
            dtype = "bf16" if i % 2 == 0 else "f16"
            for nhwc in (False, True):
                for silu in (False, True):
                    rows.append(dict(measure(shape, dtype, nhwc, silu, flush, args.samples), set=label))
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, seed {args.seed}, median of {args.samples}")
    print("| set | layout | silu | shapes | geomean vs torch | worst | < 0.97x | wrong | median GB/s |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for label in ("named", "drawn"):
        for nhwc in (False, True):
            for silu in (False, True):
                rs = [r for r in rows if r["set"] == label and r["nhwc"] == nhwc and r["silu"] == silu]
                ratios = [r["ratio"] for r in rs]
                gbs = sorted(r["cuop_gbs"] for r in rs)
                print(f"| {label} | {'NHWC' if nhwc else 'NCHW'} | {silu} | {len(rs)} | "
                      f"{torch_timing.geomean(ratios):.2f}x | {min(ratios):.2f}x | {sum(x < 0.97 for x in ratios)} | "
                      f"{sum(not r['ok'] for r in rs)} | {gbs[len(gbs) // 2]:.0f} |")
    if args.json:
        json.dump(rows, open(args.json, "w"), indent=1)
    return 1 if any(not r["ok"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
