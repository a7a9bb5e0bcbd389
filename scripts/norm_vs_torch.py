#!/usr/bin/env python3
"""LayerNorm, RMSNorm and GroupNorm side by side with torch in one process (docs/norm.md): cuop's
ops (the `cuop` package, pip-installed) against torch.nn.functional.layer_norm, rms_norm and
group_norm; the fused add_rms_norm against torch's unfused pair (residual.add_(x), then rms_norm)
and GroupNorm with SiLU against group_norm then silu. Each call timed alone with CUDA events, the
L2 flushed before it, median of --samples; answers checked against torch.

Shape sets: `swept` (the sweep files' problems, configs/{layernorm,rmsnorm,groupnorm}.yaml) and
`validation` (--n shapes per op drawn with --seed from configs/distributions/, none of them swept).

usage: python3 scripts/norm_vs_torch.py --cuop-tune build/tuner/cuop-tune [--sets swept,validation]
       [--n 100] [--seed 20261206] [--samples 30] [--json FILE] [--out FILE.md]
Exit 77 without a GPU, 1 on a wrong answer.
"""
import argparse
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import holdout  # noqa: E402  (the seeded draws and the sweep files' problems)
import torch_timing  # noqa: E402

DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
TOLERANCE = {"f32": 1e-4, "f16": 4e-3, "bf16": 2e-2}
GROUPNORM_TOLERANCE = {"f32": 1e-4, "f16": 5e-3, "bf16": 3e-2}


def swept(op, cuop_tune):
    path = os.path.join(ROOT, "configs", f"{op}.yaml")
    return [holdout.normalize(op, dict(p, op=op)) for p in holdout.expanded_problems(path, cuop_tune)]


def groupnorm_calls(line):
    """(cuop call, torch call): GroupNorm on an NCHW or channels_last tensor, SiLU after it when
    the line says so (torch: the unfused pair)."""
    import cuop

    t = DTYPES[line["dtype"]]
    n, c, h, w, groups = line["n"], line["c"], line["h"], line["w"], line["groups"]
    g = torch.Generator(device="cuda").manual_seed(n * 7919 + c * 31 + h * w)
    x = torch.randn(n, c, h, w, device="cuda", dtype=t, generator=g)
    if line["layout"] == "nhwc":
        x = x.contiguous(memory_format=torch.channels_last)
    wt = torch.rand(c, device="cuda", dtype=t, generator=g) + 0.5
    b = torch.rand(c, device="cuda", dtype=t, generator=g) - 0.5
    silu = bool(line["silu"])
    F = torch.nn.functional

    def theirs():
        y = F.group_norm(x, groups, wt, b, 1e-5)
        return F.silu(y) if silu else y

    return (lambda: cuop.group_norm(x, groups, wt, b, 1e-5, silu=silu)), theirs, None


def calls(line):
    """(cuop call, torch call, output check) on fresh tensors of the line's shape."""
    import cuop

    if line["op"] == "groupnorm":
        return groupnorm_calls(line)
    t = DTYPES[line["dtype"]]
    rows, cols = line["rows"], line["cols"]
    g = torch.Generator(device="cuda").manual_seed(rows * 7919 + cols)
    x = torch.randn(rows, cols, device="cuda", dtype=t, generator=g)
    w = torch.rand(cols, device="cuda", dtype=t, generator=g) + 0.5
    if line["op"] == "layernorm":
        b = torch.rand(cols, device="cuda", dtype=t, generator=g) - 0.5
        return (lambda: cuop.layer_norm(x, [cols], w, b), lambda: torch.nn.functional.layer_norm(x, [cols], w, b),
                None)
    eps = 1e-6
    if not line.get("residual"):
        return (lambda: cuop.rms_norm(x, [cols], w, eps), lambda: torch.nn.functional.rms_norm(x, [cols], w, eps),
                None)
    r_cuop = torch.randn(rows, cols, device="cuda", dtype=t, generator=g)
    r_torch = r_cuop.clone()

    def torch_pair():
        r_torch.add_(x)
        return torch.nn.functional.rms_norm(r_torch, [cols], w, eps)

    return (lambda: cuop.add_rms_norm(x, r_cuop, [cols], w, eps), torch_pair, (r_cuop, r_torch))


def bytes_moved(line):
    size = torch.tensor([], dtype=DTYPES[line["dtype"]]).element_size()
    if line["op"] == "groupnorm":
        return 2 * line["n"] * line["c"] * line["h"] * line["w"] * size
    return (4 if line.get("residual") else 2) * line["rows"] * line["cols"] * size


def measure(line, flush, samples):
    ours, theirs, residuals = calls(line)
    y_ours, y_theirs = ours(), theirs()  # one call each: the residuals move together
    torch.cuda.synchronize()
    tol = (GROUPNORM_TOLERANCE if line["op"] == "groupnorm" else TOLERANCE)[line["dtype"]]
    ok = torch.allclose(y_ours.float(), y_theirs.float(), rtol=tol, atol=tol)
    if residuals is not None:
        ok = ok and torch.equal(residuals[0], residuals[1])
    us_ours = torch_timing.time_cold(ours, flush, samples=samples)
    us_torch = torch_timing.time_cold(theirs, flush, samples=samples)
    return dict(line, ok=bool(ok), cuop_us=us_ours, torch_us=us_torch, ratio=us_torch / us_ours,
                cuop_gbs=bytes_moved(line) / us_ours / 1e3, which=which(line))


def which(line):
    import cuop

    t = DTYPES[line["dtype"]]
    if line["op"] == "groupnorm":
        x = torch.empty(line["n"], line["c"], line["h"], line["w"], device="cuda", dtype=t)
        if line["layout"] == "nhwc":
            x = x.contiguous(memory_format=torch.channels_last)
        return cuop.which.group_norm(x, line["groups"], bool(line["silu"]))
    x = torch.empty(line["rows"], line["cols"], device="cuda", dtype=t)
    if line["op"] == "layernorm":
        return cuop.which.layer_norm(x, [line["cols"]])
    return cuop.which.rms_norm(x, [line["cols"]], bool(line.get("residual")))


def label(r):
    if r["op"] == "groupnorm":
        return f"groupnorm {r['layout']}{'+silu' if r['silu'] else ''}"
    return f"{r['op']}{'+add' if r.get('residual') else ''}"


def shape_of(r):
    if r["op"] == "groupnorm":
        return f"{r['n']}x{r['c']}x{r['h']}x{r['w']} g{r['groups']}"
    return f"{r['rows']}x{r['cols']}"


def summarize(rows):
    out = []
    for name in sorted({(r["set"], label(r)) for r in rows}):
        rs = [r for r in rows if (r["set"], label(r)) == name]
        ratios = [r["ratio"] for r in rs]
        big = [r["cuop_gbs"] for r in rs if bytes_moved(r) >= 64 << 20]
        out.append({"set": name[0], "op": name[1], "shapes": len(rs), "geomean": torch_timing.geomean(ratios),
                    "worst": min(ratios), "slower": sum(x < 0.97 for x in ratios), "wrong": sum(not r["ok"] for r in rs),
                    "min_gbs_64mb": min(big) if big else None})
    return out


def markdown(rows, summary, header):
    lines = [header, "", "| set | op | shapes | geomean vs torch | worst | < 0.97x | wrong | min GB/s (>= 64 MB) |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for s in summary:
        gbs = f"{s['min_gbs_64mb']:.0f}" if s["min_gbs_64mb"] else "-"
        lines.append(f"| {s['set']} | {s['op']} | {s['shapes']} | {s['geomean']:.2f}x | {s['worst']:.2f}x | "
                     f"{s['slower']} | {s['wrong']} | {gbs} |")
    lines += ["", "| set | op | dtype | shape | cuop us | torch us | ratio | GB/s | choice |",
              "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | --- |"]
    for r in rows:
        lines.append(f"| {r['set']} | {label(r)} | {r['dtype']} | {shape_of(r)} | {r['cuop_us']:.1f} | "
                     f"{r['torch_us']:.1f} | {r['ratio']:.2f} | {r['cuop_gbs']:.0f} | {r['which']} |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cuop-tune", required=True, help="a built cuop-tune (expands the sweep files' grids)")
    ap.add_argument("--sets", default="swept,validation")
    ap.add_argument("--ops", default="layernorm,rmsnorm,groupnorm")
    ap.add_argument("--n", type=int, default=100, help="validation shapes per op")
    ap.add_argument("--seed", type=int, default=20261206)
    ap.add_argument("--samples", type=int, default=30)
    ap.add_argument("--json")
    ap.add_argument("--out")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("norm_vs_torch: torch sees no CUDA device", file=sys.stderr)
        return 77
    lines = []
    for op in args.ops.split(","):
        if "swept" in args.sets:
            lines += [dict(line, set="swept") for line in swept(op, args.cuop_tune)]
        if "validation" in args.sets:
            dist = os.path.join(ROOT, "configs", "distributions", f"{op}.yaml")
            _, drawn = holdout.draw(dist, args.n, args.seed, args.cuop_tune)
            lines += [dict(line, set="validation") for line in drawn]
    flush = torch_timing.l2_flush_buffer()
    rows = [measure(line, flush, args.samples) for line in lines]
    summary = summarize(rows)
    header = (f"{torch.cuda.get_device_name()}, torch {torch.__version__}, validation seed {args.seed}, "
              f"median of {args.samples} cold calls")
    text = markdown(rows, summary, header)
    if args.out:
        open(args.out, "w").write(text)
    if args.json:
        json.dump({"summary": summary, "rows": rows}, open(args.json, "w"), indent=1)
    print("\n".join(text.splitlines()[:len(summary) + 4]))
    return 1 if any(not r["ok"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
