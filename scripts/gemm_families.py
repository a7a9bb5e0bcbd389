#!/usr/bin/env python3
"""Per GEMM problem of a sweep database: the best verified time of each candidate family (our mma
and skinny kernels, cuBLASLt's heuristic first choice, the best of cuBLASLt's listed
answers), in TFLOP/s, the best choice against the heuristic, and the geometric means of that
ratio (all problems, decode problems m <= 64). Markdown on stdout.

usage: gemm_families.py DB [--only TEXT]"""
import json
import math
import sqlite3
import sys

db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else ""
rows = db.execute("""
  SELECT p.key, p.dims_json, c.family, c.instance, MIN(t.median_us), COUNT(*)
  FROM trials t JOIN problems p ON p.id = t.problem_id JOIN configs c ON c.id = t.config_id
  WHERE p.op = 'gemm' AND t.status = 'ok'
  GROUP BY p.key, c.family, (c.instance LIKE '%_cublaslt_heuristic') """).fetchall()
best = {}
for key, dims, family, instance, us, n in rows:
    if only and only not in key:
        continue
    d = json.loads(dims)
    entry = best.setdefault(key, {"flops": 2.0 * d["m"] * d["n"] * d["k"], "dims": d})
    slot = "heuristic" if instance.endswith("_cublaslt_heuristic") else family
    entry[slot] = min(us, entry.get(slot, float("inf")))
OURS = ("mma", "skinny")
print("| problem | heuristic TFLOP/s | best cuBLASLt listed | mma best | skinny best "
      "| best B read TB/s | best / heuristic |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
tf = lambda e, s: f"{e['flops'] / e[s] / 1e6:.1f}" if s in e else "-"
ratios, decode = [], []
for key in sorted(best, key=lambda k: (best[k]["dims"]["m"], best[k]["dims"]["n"], best[k]["dims"]["k"])):
    e = best[key]
    d = e["dims"]
    e["best"] = min(e.get(s, float("inf")) for s in ("cublaslt", "heuristic") + OURS)
    e["lt"] = min(e.get("cublaslt", float("inf")), e.get("heuristic", float("inf")))
    ratio = "-"
    if "heuristic" in e:
        r = e["heuristic"] / e["best"]
        ratio = f"{r:.2f}x"
        ratios.append(r)
        if d["m"] <= 64:
            decode.append(r)
    b_tbs = 2.0 * d["n"] * d["k"] / e["best"] / 1e6
    print(f"| {key} | {tf(e, 'heuristic')} | {tf(e, 'lt')} | {tf(e, 'mma')} | {tf(e, 'skinny')} "
          f"| {b_tbs:.2f} | {ratio} |")
geo = lambda v: math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")
print(f"\nBest / heuristic, geometric mean: {geo(ratios):.3f}x over {len(ratios)} problems; "
      f"decode (m <= 64): {geo(decode):.3f}x over {len(decode)} (min {min(decode, default=float('nan')):.2f}x).")
