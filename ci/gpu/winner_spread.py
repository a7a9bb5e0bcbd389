#!/usr/bin/env python3
"""Run-to-run spread of each problem's winner (docs/measurement.md, calibration).

Each argument is a folder of databases, one finished sweep of the same suite each (the A/A
gate's rounds and its baseline-mode run). Per problem, the winner's median in every database
(the lowest median among its verified trials); the spread is (max - min) / median of those
winners. Prints one line per problem and a summary per op: median and largest spread.
"""
import glob
import os
import sqlite3
import statistics
import sys


def winners(db):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = con.execute(
        "select p.key, p.op, min(t.median_us) from trials t join problems p on p.id = t.problem_id "
        "join runs r on r.id = t.run_id where t.status = 'ok' and r.state = 'finished' group by p.key")
    out = {key: (op, us) for key, op, us in rows}
    con.close()
    return out


def main(folders):
    per_op = {}
    for folder in folders:
        dbs = sorted(glob.glob(os.path.join(folder, "*.db")))
        seen = {}
        for db in dbs:
            if ".retry" in os.path.basename(db):
                continue  # retry passes measure only some problems
            for key, (op, us) in winners(db).items():
                seen.setdefault(key, (op, []))[1].append(us)
        for key, (op, values) in sorted(seen.items()):
            if len(values) < 2:
                continue
            mid = statistics.median(values)
            spread = (max(values) - min(values)) / mid
            per_op.setdefault(op, []).append(spread)
            print(f"{key:58s} {len(values)} runs  median {mid:10.2f} us  spread {100 * spread:5.2f}%")
    for op, spreads in sorted(per_op.items()):
        print(f"{op}: {len(spreads)} problems, winner spread median {100 * statistics.median(spreads):.2f}%, "
              f"largest {100 * max(spreads):.2f}%")


if __name__ == "__main__":
    main(sys.argv[1:])
