#!/usr/bin/env python3
"""Holdout validation of the dispatch (docs/dispatch.md, "Holdout"): draws seeded random shapes
from a workload distribution (configs/distributions/<op>.yaml), never one a sweep file of the
op lists, and runs the dispatched op against its baseline on each, side by side in one process
(build/tools/cuop-holdout-runner). For softmax it adds torch.softmax, timed the same way in the
same run, when torch is importable.

  holdout.py draw DIST.yaml --n N --seed S [--format jsonl|sweep] [--cuop-tune BIN]
             [--stratify FIELD,... --components NAME,... [--corners]]
  holdout.py run BUILD_DIR DIST.yaml --n N --seed S [--json OUT.json] [--markdown OUT.md]
             [--samples MIN MAX BUDGET_MS] [--no-torch]

`run` prints a markdown table and the summary (geometric mean, worst, how many shapes are slower
than the baseline beyond noise: speedup < 0.97 with its 95% interval below 1, where the dispatch
ran a choice other than the baseline's; where both sides ran the same choice, such a ratio is the
comparison's own bias and is counted apart, docs/dispatch.md "Holdout"). Exit 0 when none
is, 3 when some are, 1 when an answer was wrong or a side failed, 2 on bad arguments or input,
77 without a GPU."""
import argparse
import functools
import glob
import itertools
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile

import yaml

SLOWER = 0.97  # a shape is slower beyond noise below this with an interval below 1
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def fail(msg, code=2):
    print(f"holdout.py: {msg}", file=sys.stderr)
    sys.exit(code)


def draw_value(rng, spec, where):
    if not isinstance(spec, dict):
        return spec
    mult = spec.get("multiple", 1)
    if "choice" in spec:
        v = rng.choice(spec["choice"])
    elif "uniform" in spec:
        lo, hi = spec["uniform"]
        v = rng.randint(lo, hi)
    elif "log_uniform" in spec:
        lo, hi = spec["log_uniform"]
        v = min(hi, int(math.exp(rng.uniform(math.log(lo), math.log(hi + 1)))))
    else:
        fail(f"{where}: expected choice, uniform or log_uniform, got {spec}")
    if isinstance(v, int) and mult > 1:
        v = max(mult, v // mult * mult)
    return v


def draw_component(rng, comp, where):
    out = {}
    refs = {}
    for field, spec in comp.items():
        if field in ("name", "weight"):
            continue
        if isinstance(spec, str) and spec in comp and field != spec:
            refs[field] = spec  # "groups: c": the value of another field
            continue
        v = draw_value(rng, spec, f"{where}.{field}")
        if "," in field:
            names = field.split(",")
            if not isinstance(v, list) or len(v) != len(names):
                fail(f"{where}.{field}: each choice must list {len(names)} values")
            out.update(zip(names, v))
        else:
            out[field] = v
    for field, other in refs.items():
        out[field] = out[other]
    return out


def normalize(op, s):
    """A drawn shape as the runner's input line (and the sweep file's problem)."""
    if op in ("softmax", "layernorm"):
        return {"op": op, "dtype": s["dtype"], "rows": s["rows"], "cols": s["cols"]}
    if op == "rmsnorm":
        return {"op": op, "dtype": s["dtype"], "rows": s["rows"], "cols": s["cols"], "residual": s.get("residual", 0)}
    if op == "groupnorm":
        return {"op": op, "dtype": s["dtype"], "n": s["n"], "c": s["c"], "h": s["h"], "w": s["w"],
                "groups": s.get("groups", 32), "layout": s.get("layout", "nhwc"), "silu": s.get("silu", 0)}
    if op == "gemm":
        return {"op": op, "dtype": s["dtype"], "m": s["m"], "n": s["n"], "k": s["k"]}
    r = s["r"]
    c = s["c"]
    groups = s.get("groups", 1)
    k = c if groups == c else s["k"]
    return {"op": "conv2d", "dtype": s["dtype"], "layout": s.get("layout", "nhwc"), "n": s["n"],
            "h": s["hw"], "w": s["hw"], "c": c, "k": k, "r": r, "s": r, "stride": s.get("stride", 1),
            "pad": r // 2, "dilation": 1, "groups": groups}


def key_of(line):
    return tuple(sorted((k, v) for k, v in line.items() if k != "op"))


def size_ok(dist, line):
    op = line["op"]
    if op in ("softmax", "layernorm", "rmsnorm"):
        return line["rows"] * line["cols"] <= dist.get("max_elements", 1 << 29)
    if op == "groupnorm":
        size = line["n"] * line["c"] * line["h"] * line["w"]
        return line["c"] % line["groups"] == 0 and 0 < size <= dist.get("max_elements", 1 << 29)
    if op == "gemm":
        return 2 * line["m"] * line["n"] * line["k"] <= dist.get("max_flops", 1 << 39)
    p = (line["h"] + 2 * line["pad"] - line["r"]) // line["stride"] + 1
    if p < 1:
        return False
    flops = 2 * line["n"] * line["k"] * p * p * (line["c"] // line["groups"]) * line["r"] * line["s"]
    return flops <= dist.get("max_flops", 1 << 38)


def conv_line(t, p):
    return {"op": "conv2d", "dtype": t, "layout": p.get("layout", "nhwc"), "n": p["n"], "h": p["h"], "w": p["w"],
            "c": p["c"], "k": p["k"], "r": p["r"], "s": p["s"], "stride": p.get("stride", 1), "pad": p.get("pad", 0),
            "dilation": p.get("dilation", 1), "groups": p.get("groups", 1)}


def expanded_problems(path, cuop_tune):
    """A sweep file's problems with grids and samples expanded, by `cuop-tune validate --problems`."""
    if not cuop_tune or not os.access(cuop_tune, os.X_OK):
        fail(f"{path} has grid or sample problem sets: pass --cuop-tune (a built cuop-tune) to expand them")
    r = subprocess.run([cuop_tune, "validate", "--problems", path], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"{path}: cuop-tune validate --problems failed:\n{r.stderr[-2000:]}")
    return [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]


@functools.lru_cache(maxsize=None)
def swept_shapes(op, cuop_tune=None):
    """Every problem the op's sweep files list (configs/*.yaml and configs/**/*.yaml), as keys;
    read once per process (each read expands the grids with cuop-tune)."""
    keys = set()
    for path in glob.glob(os.path.join(ROOT, "configs", "**", "*.yaml"), recursive=True):
        if os.sep + "distributions" + os.sep in path:
            continue
        try:
            spec = yaml.safe_load(open(path))
        except yaml.YAMLError:
            continue
        if not isinstance(spec, dict) or spec.get("op") != op:
            continue
        items = spec.get("problems", []) or []
        if any(isinstance(p, dict) and ("grid" in p or "sample" in p) for p in items):
            points = [(p["dtype"], p) for p in expanded_problems(path, cuop_tune)]
        else:
            points = [(t, p) for p in items for t in ([p["dtype"]] if "dtype" in p else spec.get("dtypes", [None]))]
        for t, p in points:
            q = conv_line(t, p) if op == "conv2d" else normalize(op, dict(p, dtype=t, op=op))
            keys.add(key_of(q))
    return frozenset(keys)


def draw(dist_path, n, seed, cuop_tune=None):
    dist = yaml.safe_load(open(dist_path))
    op = dist.get("op")
    comps = dist.get("components") or []
    if op not in ("softmax", "gemm", "conv2d", "layernorm", "rmsnorm", "groupnorm") or not comps:
        fail(f"{dist_path}: needs op (softmax, gemm, conv2d, layernorm, rmsnorm, groupnorm) and components")
    rng = random.Random(f"{seed}:{os.path.basename(dist_path)}")
    weights = [float(c.get("weight", 1)) for c in comps]
    exclude = swept_shapes(op, cuop_tune)
    out, seen = [], set()
    attempts = 0
    while len(out) < n:
        attempts += 1
        if attempts > 100 * n + 1000:
            fail(f"{dist_path}: could not draw {n} distinct shapes outside the sweep files")
        i = rng.choices(range(len(comps)), weights)[0]
        comp = comps[i]
        line = normalize(op, draw_component(rng, comp, f"{dist_path}:components[{i}]"))
        key = key_of(line)
        if key in exclude or key in seen or not size_ok(dist, line):
            continue
        seen.add(key)
        line["component"] = comp.get("name", str(i))
        out.append(line)
    return op, out


def stratum_values(spec):
    """The distinct values a field of a component can take: its choices in order, or its value."""
    if isinstance(spec, dict):
        if "choice" not in spec:
            fail(f"only fixed fields and choices can be stratified, not {spec}")
        return list(dict.fromkeys(spec["choice"]))
    return [spec]


def field_range(spec):
    """The least and the greatest value of a numeric field's law, or None for a fixed field."""
    if not isinstance(spec, dict):
        return None
    if "choice" in spec:
        values = [v for v in spec["choice"] if isinstance(v, int)]
        return (min(values), max(values)) if len(values) == len(spec["choice"]) else None
    for law in ("uniform", "log_uniform"):
        if law in spec:
            return tuple(spec[law])
    return None


def corners(comp, fields):
    """The corners of a component's box over its free numeric fields (not `fields`), as a half
    fraction: each field at its least or greatest value, an even number of them at the greatest.
    Each field takes both ends, and each pair of fields every combination of ends."""
    free = [(f, field_range(spec)) for f, spec in comp.items()
            if f not in fields and f not in ("name", "weight") and "," not in f]
    free = [(f, r) for f, r in free if r]
    out = []
    for ends in itertools.product((0, 1), repeat=len(free)):
        if sum(ends) % 2 == 0:
            out.append({f: r[e] for (f, r), e in zip(free, ends)})
    return out


def draw_strata(dist_path, n, seed, fields, names, cuop_tune=None, with_corners=False):
    """A region grid: for each listed component and each combination of the values its `fields`
    can take (a stratum), n distinct shapes drawn with those fields fixed, so that every stratum
    has shapes however unlikely the distribution makes it; with_corners adds the corners of the
    stratum's box (corners()), those within the distribution's size limit, so that its shapes
    span the workload's range in every size."""
    dist = yaml.safe_load(open(dist_path))
    op = dist.get("op")
    comps = {c.get("name"): c for c in dist.get("components") or []}
    exclude = swept_shapes(op, cuop_tune)
    rng = random.Random(f"{seed}:{os.path.basename(dist_path)}:strata")
    out, seen = [], set()
    for name in names:
        if name not in comps:
            fail(f"{dist_path}: no component named {name!r}")
        comp = comps[name]
        missing = [f for f in fields if f not in comp]
        if missing:
            fail(f"{dist_path}: component {name!r} has no field {missing[0]!r}")
        for combo in itertools.product(*(stratum_values(comp[f]) for f in fields)):
            fixed = dict(comp, **dict(zip(fields, combo)))
            found = 0
            for _ in range(100 * n):
                if found == n:
                    break
                line = normalize(op, draw_component(rng, fixed, f"{dist_path}:{name}"))
                key = key_of(line)
                if key in exclude or key in seen or not size_ok(dist, line):
                    continue
                seen.add(key)
                line["component"] = name
                out.append(line)
                found += 1
            if found < n:
                fail(f"{dist_path}: {name} {dict(zip(fields, combo))}: found {found} of {n} shapes")
            for corner in corners(comp, fields) if with_corners else []:
                line = normalize(op, draw_component(rng, dict(fixed, **corner), f"{dist_path}:{name}"))
                key = key_of(line)
                if key in exclude or key in seen or not size_ok(dist, line):
                    continue
                seen.add(key)
                line["component"] = name + " corner"
                out.append(line)
    return op, out


def geomean(xs):
    return statistics.geometric_mean(xs) if xs else float("nan")


def torch_softmax_times(rows):
    """torch.softmax on each softmax row's shape, timed as the runner times (cold L2, events)."""
    try:
        import torch
        sys.path.insert(0, os.path.join(ROOT, "scripts"))
        import torch_timing
    except ImportError:
        return None
    dtypes = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
    flush = torch_timing.l2_flush_buffer()
    for r in rows:
        if r["op"] != "softmax":
            continue
        x = torch.rand(r["rows"], r["cols"], device="cuda", dtype=dtypes[r["dtype"]]) * 16 - 8
        r["torch_us"] = torch_timing.time_cold(lambda: torch.softmax(x, dim=-1), flush, 60, 10)
        del x
    torch.cuda.empty_cache()
    return torch.__version__


def group_of(r):
    if r["op"] != "conv2d":
        return r["op"]
    return "conv2d depthwise" if r["groups"] == r["c"] == r["k"] and r["groups"] > 1 else "conv2d dense"


def same_choice(r):
    """Both sides ran the same configuration: the dispatch chose the baseline's own."""
    t, b = r["tuned"], r["baseline"]
    return t["instance"] == b["instance"] and t.get("kind") == b.get("kind")


def summarize(rows):
    groups = {}
    for r in rows:
        groups.setdefault(group_of(r), []).append(r)
    out = {}
    for g, rs in groups.items():
        timed = [r for r in rs if "speedup" in r]
        sp = [r["speedup"] for r in timed]
        beyond_noise = [r for r in timed if r["speedup"] < SLOWER and r["speedup_hi"] < 1]
        slower = [r for r in beyond_noise if not same_choice(r)]
        biased = [r for r in beyond_noise if same_choice(r)]
        worst = min(timed, key=lambda r: r["speedup"]) if timed else None
        s = {"shapes": len(rs), "timed": len(timed), "geomean_vs_baseline": geomean(sp),
             "worst_vs_baseline": worst["speedup"] if worst else None, "worst_shape": worst["key"] if worst else None,
             "slower_than_baseline": len(slower), "slower_shapes": [r["key"] for r in slower],
             "same_choice_beyond_noise": len(biased), "same_choice_beyond_noise_shapes": [r["key"] for r in biased],
             "tuned_wrong": sum(1 for r in rs if not r["tuned"]["correct"]),
             "model_choices": sum(1 for r in timed if r["tuned"]["instance"] != r["baseline"]["instance"])}
        vs_torch = [r["torch_us"] / r["tuned"]["median_us"] for r in timed if r.get("torch_us")]
        if vs_torch:
            base_torch = [r["torch_us"] / r["baseline"]["median_us"] for r in timed if r.get("torch_us")]
            s.update({"geomean_vs_torch": geomean(vs_torch), "worst_vs_torch": min(vs_torch),
                      "baseline_geomean_vs_torch": geomean(base_torch),
                      "slower_than_torch": sum(1 for x in vs_torch if x < SLOWER)})
        out[g] = s
    return out


def markdown(rows, summary, header):
    lines = [header, "", "| shape | component | dispatched (source) | us | baseline | us | speedup [95% CI] | torch us | vs torch |",
             "| --- | --- | --- | ---: | --- | ---: | ---: | ---: | ---: |"]
    for r in rows:
        t, b = r["tuned"], r["baseline"]
        if "speedup" not in r:
            lines.append(f"| {r.get('key', r['line'])} | {r.get('component', '')} | {t['instance']} ({t['error'] or t['source']}) "
                         f"| - | {b['instance']} ({b['error']}) | - | - | - | - |")
            continue
        tu = r.get("torch_us")
        torch_cols = f"{tu:.1f} | {tu / t['median_us']:.2f}" if tu else "- | -"
        lines.append(f"| {r['key']} | {r.get('component', '')} | {t['instance']} ({t['source']}) | {t['median_us']:.1f} "
                     f"| {b['instance']} | {b['median_us']:.1f} | {r['speedup']:.3f} [{r['speedup_lo']:.3f}, {r['speedup_hi']:.3f}] "
                     f"| {torch_cols} |")
    lines += ["", "| group | shapes | model's own choice | geomean vs baseline | worst | slower beyond noise | geomean vs torch | worst vs torch | baseline vs torch |",
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for g, s in summary.items():
        f = lambda k, fmt="{:.3f}": fmt.format(s[k]) if s.get(k) is not None else "-"
        lines.append(f"| {g} | {s['shapes']} | {s['model_choices']} | {f('geomean_vs_baseline')} | {f('worst_vs_baseline')} "
                     f"| {s['slower_than_baseline']} | {f('geomean_vs_torch')} | {f('worst_vs_torch')} | {f('baseline_geomean_vs_torch')} |")
    for g, s in summary.items():
        if s["same_choice_beyond_noise"]:
            lines.append(f"\n{g}: {s['same_choice_beyond_noise']} shapes ran the baseline's own choice on both sides and "
                         f"still measured below {SLOWER} beyond noise (the comparison's bias, not counted as slower): "
                         + ", ".join(s["same_choice_beyond_noise_shapes"]))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("draw")
    d.add_argument("dist")
    d.add_argument("--n", type=int, default=100)
    d.add_argument("--seed", type=int, required=True)
    d.add_argument("--format", choices=["jsonl", "sweep"], default="jsonl")
    d.add_argument("--cuop-tune", help="a built cuop-tune, to expand grid and sample problem sets of the sweep files")
    d.add_argument("--stratify", help="comma-separated fields: --n shapes for every combination of their values")
    d.add_argument("--components", help="with --stratify: the components drawn from (comma-separated names)")
    d.add_argument("--corners", action="store_true", help="with --stratify: add each stratum's corners")
    r = sub.add_parser("run")
    r.add_argument("build")
    r.add_argument("dist", nargs="+")
    r.add_argument("--n", type=int, default=100)
    r.add_argument("--seed", type=int, required=True)
    r.add_argument("--json")
    r.add_argument("--markdown")
    r.add_argument("--samples", nargs=3, type=float, default=[20, 200, 60])
    r.add_argument("--no-torch", action="store_true")
    a = ap.parse_args()
    if a.n < 1:
        fail("--n must be at least 1")

    if a.cmd == "draw":
        if bool(a.stratify) != bool(a.components):
            fail("--stratify and --components go together")
        if a.stratify:
            op, shapes = draw_strata(a.dist, a.n, a.seed, a.stratify.split(","), a.components.split(","), a.cuop_tune,
                                     a.corners)
        else:
            op, shapes = draw(a.dist, a.n, a.seed, a.cuop_tune)
        if a.format == "jsonl":
            for s in shapes:
                print(json.dumps(s))
        else:
            for s in shapes:
                p = {k: v for k, v in s.items() if k not in ("op", "component")}
                if op == "conv2d":
                    p = {k: v for k, v in p.items() if not (k in ("dilation", "groups") and v == 1)}
                print("  - {" + ", ".join(f"{k}: {v}" for k, v in p.items()) + "}")
        return 0

    runner = os.path.join(a.build, "tools", "cuop-holdout-runner")
    if not os.access(runner, os.X_OK):
        fail(f"{runner}: not built")
    shapes = []
    for dist in a.dist:
        shapes += draw(dist, a.n, a.seed, os.path.join(a.build, "tuner", "cuop-tune"))[1]
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
        for s in shapes:
            f.write(json.dumps(s) + "\n")
        path = f.name
    lo, hi, budget = a.samples
    proc = subprocess.run([runner, path, str(int(lo)), str(int(hi)), str(budget)], capture_output=True, text=True)
    os.unlink(path)
    if proc.returncode in (2, 77):
        print(proc.stderr, file=sys.stderr, end="")
        return proc.returncode
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    for row, s in zip(rows, shapes):
        row["component"] = s["component"]
    torch_version = None if a.no_torch else torch_softmax_times(rows)
    summary = summarize(rows)
    header = (f"Holdout: {len(rows)} shapes drawn with seed {a.seed} from {', '.join(a.dist)}; "
              f"speedup = baseline median / dispatched median (cold L2, alternating samples)"
              + (f"; torch {torch_version}" if torch_version else ""))
    text = markdown(rows, summary, header)
    print(text)
    if a.markdown:
        open(a.markdown, "w").write(text + "\n")
    if a.json:
        json.dump({"seed": a.seed, "distributions": a.dist, "summary": summary, "shapes": rows}, open(a.json, "w"), indent=1)
    if proc.returncode != 0:
        print(proc.stderr[-3000:], file=sys.stderr)
        return 1
    return 3 if any(s["slower_than_baseline"] for s in summary.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
