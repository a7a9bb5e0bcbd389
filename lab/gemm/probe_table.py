"""Per problem of a GEMM sweep database: cuBLASLt's heuristic, the best wgmma configuration and
its ratio, TFLOP/s, and what failed. usage: python3 lab/gemm/probe_table.py DB"""
import json
import sqlite3
import sys


def main(path):
    db = sqlite3.connect(path)
    rows = db.execute(
        "select p.key, p.dims_json, c.family, c.instance, t.status, t.median_us, t.message from trials t "
        "join problems p on p.id = t.problem_id join configs c on c.id = t.config_id order by t.id")
    by_problem = {}
    for key, dims, family, instance, status, median, message in rows:
        by_problem.setdefault(key, (json.loads(dims), []))[1].append((family, instance, status, median, message))
    print("| problem | heuristic us | best wgmma us | TFLOP/s | ratio | best wgmma | not ok |")
    print("| --- | ---: | ---: | ---: | ---: | --- | ---: |")
    for key, (dims, trials) in by_problem.items():
        flops = 2.0 * dims["m"] * dims["n"] * dims["k"]
        heur = [t[3] for t in trials if t[0] == "cublaslt" and "heuristic" in t[1] and t[2] == "ok"]
        ours = sorted((t[3], t[1]) for t in trials if t[0] == "wgmma" and t[2] == "ok")
        bad = [t for t in trials if t[2] != "ok"]
        h = heur[0] if heur else float("nan")
        best = ours[0] if ours else (float("nan"), "-")
        print(f"| {key} | {h:.1f} | {best[0]:.1f} | {flops / best[0] / 1e6:.0f} | {h / best[0]:.3f} | "
              f"{best[1].replace('gemm_bf16_bf16_col_wgmma_', '')} | {len(bad)} |")
        for t in bad[:3]:
            print(f"  {t[1]}: {t[2]} {t[4][:160]}")


if __name__ == "__main__":
    main(sys.argv[1])
