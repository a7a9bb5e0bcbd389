"""Per problem of a softmax sweep database: the default rule's configuration (the baseline), the
best warp_row and the best row_tile, their times and GB/s, and torch.softmax timed here as the
holdout times it (scripts/torch_timing.py: L2 flushed before each call, CUDA events, median of
30), side by side.
usage: python3 lab/softmax/row_tile_table.py DB BASELINES_JSON
(BASELINES_JSON: `cuop-tune baselines` of the database's export, for the rule's instance names)"""
import json
import math
import os
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import torch_timing  # noqa: E402  (the timer the holdout and the *_vs_torch scripts use)


def torch_us(rows, cols, dtype, flush):
    import torch
    t = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[dtype]
    x = torch.rand(rows, cols, device="cuda", dtype=t) * 16 - 8
    return torch_timing.time_cold(lambda: torch.softmax(x, dim=-1), flush, 30, 5)


def main(db_path, baselines_path):
    rule = {b["problem"]: b["baseline"] for b in json.load(open(baselines_path))}
    db = sqlite3.connect(db_path)
    rows = db.execute(
        "select p.key, p.dims_json, p.dtype, c.family, c.instance, t.status, t.median_us from trials t "
        "join problems p on p.id = t.problem_id join configs c on c.id = t.config_id order by t.id")
    by_problem = {}
    for key, dims, dtype, fam, instance, status, median in rows:
        entry = by_problem.setdefault(key, (json.loads(dims), dtype, {}))
        if median and median > 0 and status in ("ok", "dropped_race"):
            entry[2][instance] = (fam, median, status)
    print("| problem | MB | rule us | best warp_row us | best row_tile us | row_tile / rule | torch us | "
          "rule vs torch | best vs torch | best GB/s | best row_tile |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    logs = {"tile": [], "rule_torch": [], "best_torch": []}
    flush = torch_timing.l2_flush_buffer()
    for key, (dims, dtype, trials) in by_problem.items():
        r, c = dims["rows"], dims["cols"]
        nbytes = 2.0 * r * c * (4 if dtype == "f32" else 2)
        base = trials.get(rule.get(key, ""), (None, math.nan, ""))[1]
        warp = min((m for f, m, s in trials.values() if f == "warp_row"), default=math.nan)
        tiles = sorted((m, i) for i, (f, m, s) in trials.items() if f == "row_tile")
        tile = tiles[0] if tiles else (math.nan, "-")
        best = min(x for x in (base, warp, tile[0]) if not math.isnan(x))
        th = torch_us(r, c, dtype, flush)
        for name, v in (("tile", base / tile[0]), ("rule_torch", th / base), ("best_torch", th / best)):
            if not math.isnan(v):
                logs[name].append(math.log(v))
        short = tile[1][tile[1].find("row_tile_") + 9:] if "row_tile_" in tile[1] else tile[1]
        print(f"| {key} | {nbytes / 1e6:.1f} | {base:.1f} | {warp:.1f} | {tile[0]:.1f} | {base / tile[0]:.2f} | "
              f"{th:.1f} | {th / base:.2f} | {th / best:.2f} | {nbytes / best / 1e3:.0f} | {short} |")
    for name, v in logs.items():
        if v:
            print(f"geomean {name}: {math.exp(sum(v) / len(v)):.3f} over {len(v)}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
