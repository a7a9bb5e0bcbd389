"""Per problem of a GEMM sweep database: cuBLASLt's heuristic, the best configuration of FAMILY
(default wgmma) and its ratio, TFLOP/s and GB/s (A, B and D once), and what failed.
usage: python3 lab/gemm/probe_table.py DB [FAMILY]"""
import json
import sqlite3
import sys


def main(path, family):
    db = sqlite3.connect(path)
    rows = db.execute(
        "select p.key, p.dims_json, c.family, c.instance, t.status, t.median_us, t.message from trials t "
        "join problems p on p.id = t.problem_id join configs c on c.id = t.config_id order by t.id")
    by_problem = {}
    for key, dims, fam, instance, status, median, message in rows:
        by_problem.setdefault(key, (json.loads(dims), []))[1].append((fam, instance, status, median, message))
    print(f"| problem | heuristic us | best {family} us | TFLOP/s | GB/s | ratio | best {family} | not ok |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: |")
    prefix = f"_col_{family}_"
    for key, (dims, trials) in by_problem.items():
        m, n, k = dims["m"], dims["n"], dims["k"]
        flops = 2.0 * m * n * k
        nbytes = 2.0 * (m * k + n * k + m * n)
        heur = [t[3] for t in trials if t[0] == "cublaslt" and "heuristic" in t[1] and t[2] == "ok"]
        ours = sorted((t[3], t[1]) for t in trials if t[0] == family and t[2] == "ok")
        bad = [t for t in trials if t[2] != "ok"]
        h = heur[0] if heur else float("nan")
        best = ours[0] if ours else (float("nan"), "-")
        name = best[1][best[1].find(prefix) + len(prefix):] if prefix in best[1] else best[1]
        print(f"| {key} | {h:.1f} | {best[0]:.1f} | {flops / best[0] / 1e6:.0f} | {nbytes / best[0] / 1e3:.0f} | "
              f"{h / best[0]:.3f} | {name} | {len(bad)} |")
        for t in bad[:3]:
            print(f"  {t[1]}: {t[2]} {(t[4] or '')[:160]}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "wgmma")
