#!/usr/bin/env python3
"""Per GEMM problem of a sweep database: the best verified time of each candidate family (our mma
and skinny kernels, cuBLASLt's heuristic first choice, the best of cuBLASLt's listed answers),
in TFLOP/s, with our kernels' best as a fraction of the heuristic. Markdown on stdout.

usage: gemm_families.py DB [--only TEXT]"""
import json
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
print("| problem | heuristic TFLOP/s | best cuBLASLt listed | mma best | skinny best | ours / heuristic |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
tf = lambda e, s: f"{e['flops'] / e[s] / 1e6:.1f}" if s in e else "-"
for key in sorted(best, key=lambda k: (best[k]["dims"]["m"], best[k]["dims"]["n"], best[k]["dims"]["k"])):
    e = best[key]
    lt = min(e.get("cublaslt", float("inf")), e.get("heuristic", float("inf")))
    e["lt"] = lt
    ours = min(e.get("mma", float("inf")), e.get("skinny", float("inf")))
    ratio = f"{e['heuristic'] / ours:.2f}x" if "heuristic" in e and ours < float("inf") else "-"
    print(f"| {key} | {tf(e, 'heuristic')} | {tf(e, 'lt')} | {tf(e, 'mma')} | {tf(e, 'skinny')} | {ratio} |")
