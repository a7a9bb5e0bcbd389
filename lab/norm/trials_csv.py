#!/usr/bin/env python3
"""Every timed trial of one op in a sweep database as CSV, raced-out ones included (lab, not product).

`cuop-tune export` keeps the medians of finished trials only; a default rule is fitted against
every configuration's time, and the race keeps the median of each raced-out configuration's
samples in the database. Columns: dtype, the problem's dims (in key order), instance, median_us,
status.

usage: lab/norm/trials_csv.py DB OP > trials.csv
"""
import csv
import json
import sqlite3
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
    rows = db.execute(
        "SELECT p.dtype, p.dims_json, c.instance, t.median_us, t.status FROM trials t "
        "JOIN problems p ON p.id = t.problem_id JOIN configs c ON c.id = t.config_id "
        "WHERE p.op = ? AND t.status IN ('ok', 'dropped_race') AND t.median_us > 0 "
        "ORDER BY p.key, c.instance, t.id",
        (sys.argv[2],),
    ).fetchall()
    dims = sorted({k for _, d, _, _, _ in rows for k in json.loads(d)})
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["dtype", *dims, "instance", "median_us", "status"])
    for dtype, d, instance, median, status in rows:
        values = json.loads(d)
        out.writerow([dtype, *(values.get(k, "") for k in dims), instance, f"{median:.4f}", status])


if __name__ == "__main__":
    main()
