#!/usr/bin/env python3
"""cuop-tune's report: results files or a sweep database as markdown or HTML with plots.

    scripts/report.py results/                      # the committed results, every op
    scripts/report.py --db cuop-tune.db --op softmax --format html --out report/
    scripts/report.py results/ --compare verdicts.json   # `cuop-tune compare --format json` output

Per results file (one op on one GPU model): the ratio of the baseline's median to the best
configuration's per problem, their distribution, a heatmap per kernel family over two of its
parameters, and for a database the time to best during each sweep run. The baseline of a problem
is the op's own (`cuop-tune baselines`: a library's heuristic, the softmax default rule), and a
database is read through `cuop-tune export`, so the report selects trials as export and emit do.
Plots are drawn with matplotlib. Exit status: 0 written, 1 an input or tool failed (the message
names it), 2 usage. docs/cli.md, "Reports", says what each plot shows.
"""
import argparse
import base64
import collections
import datetime
import html
import json
import math
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class ReportError(Exception):
    pass


def find_tune(given):
    for candidate in (given, os.environ.get("CUOP_TUNE"), os.path.join(ROOT, "build", "tuner", "cuop-tune"),
                      shutil.which("cuop-tune")):
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise ReportError("cuop-tune not found: build it (scripts/build.sh), or name it with --tune or $CUOP_TUNE")


def run_tune(tune, args):
    done = subprocess.run([tune] + args, capture_output=True, text=True)
    if done.returncode != 0:
        raise ReportError(f"cuop-tune {' '.join(args)}: exit {done.returncode}: {done.stderr.strip()}")
    return done.stdout


def results_paths(paths):
    """The results files under each path (a file or a folder, as export writes them)."""
    out = []
    for path in paths:
        if os.path.isdir(path):
            for folder, _, names in sorted(os.walk(path)):
                out += [os.path.join(folder, n) for n in sorted(names) if n.endswith(".json")]
        elif os.path.isfile(path):
            out.append(path)
        else:
            raise ReportError(f"{path}: no such file or folder")
    return out


def load_results(files):
    loaded = []
    for path in files:
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError) as e:
            raise ReportError(f"{path}: not a results file ({e})") from e
        if not isinstance(data, dict) or "trials" not in data or "op" not in data:
            continue  # a JSON file of another kind beside the results (README-like data)
        loaded.append((path, data))
    return loaded


def geomean(values):
    values = [v for v in values if v > 0]
    return statistics.geometric_mean(values) if values else float("nan")


def problem_rows(data, baselines):
    """Per problem: the best verified trial and the baseline's median (None: not measured)."""
    best = {}
    for t in data["trials"]:
        if t.get("status") == "ok" and (t["problem"] not in best or t["median_us"] < best[t["problem"]]["median_us"]):
            best[t["problem"]] = t
    rows = []
    for problem, t in sorted(best.items()):
        b = baselines.get((data["op"], data.get("gpu", ""), problem))
        base_us = b.get("median_us") if b else None
        rows.append({"problem": problem, "best": t["instance"], "family": t["family"], "best_us": t["median_us"],
                     "baseline": b["baseline"] if b else "", "baseline_us": base_us,
                     "ratio": base_us / t["median_us"] if base_us else None})
    return rows


def heatmap_axes(trials, family, wanted):
    """The two parameters of `family` a heatmap spans: as asked, else the two with most values."""
    values, seen, count = collections.defaultdict(set), collections.Counter(), 0
    for t in trials:
        if t["family"] == family:
            count += 1
            for name, v in t.get("params", {}).items():
                values[name].add(v)
                seen[name] += 1
    if wanted:
        missing = [p for p in wanted if p not in values]
        if missing:
            raise ReportError(f"--heatmap {family}: no parameter {', '.join(missing)} (it has {', '.join(sorted(values))})")
        return wanted
    # Of the parameters every configuration has (a library's optional knobs are not), the two
    # with most values.
    spread = sorted((n for n in values if len(values[n]) > 1 and seen[n] == count), key=lambda n: (-len(values[n]), n))
    return spread[:2] if len(spread) >= 2 else None


def heatmap_cells(trials, family, x, y):
    """Per (x, y): the geometric mean over problems of the problem's best median over the cell's
    best median there (1: the cell holds the best configuration of every problem it ran)."""
    best = {}
    for t in trials:
        if t.get("status") == "ok":
            best[t["problem"]] = min(best.get(t["problem"], math.inf), t["median_us"])
    cell = collections.defaultdict(dict)
    for t in trials:
        if t.get("status") != "ok" or t["family"] != family or x not in t["params"] or y not in t["params"]:
            continue
        key = (t["params"][x], t["params"][y])
        cell[key][t["problem"]] = min(cell[key].get(t["problem"], math.inf), t["median_us"])
    return {k: geomean([best[p] / us for p, us in per.items()]) for k, per in cell.items()}


def time_to_best(db, op):
    """Per sweep run of `op` on a GPU, the search's progress within a problem: for k = 1, 2, ...
    the geometric mean over the run's problems of the best median among the problem's first k
    verified trials (in the order measured) over its final best (a problem with fewer than k
    trials counts 1). Also each problem's (index of its best trial, trials)."""
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        rows = con.execute(
            "SELECT t.run_id, p.key, t.median_us FROM trials t JOIN problems p ON p.id = t.problem_id "
            "JOIN runs r ON r.id = t.run_id WHERE t.status = 'ok' AND r.op = ? AND r.gpu_name != '' ORDER BY t.id",
            (op,)).fetchall()
        con.close()
    except sqlite3.Error as e:
        raise ReportError(f"{db}: {e}") from e
    runs = collections.defaultdict(lambda: collections.defaultdict(list))
    for run, problem, us in rows:
        runs[run][problem].append(us)
    progress = {}
    for run, problems in runs.items():
        longest = max(len(v) for v in problems.values())
        curve = []
        for k in range(1, longest + 1):
            curve.append((k, geomean([min(v[:k]) / min(v) for v in problems.values()])))
        found = [(v.index(min(v)) + 1, len(v)) for v in problems.values()]
        progress[run] = (curve, found)
    return progress


class Document:
    """The report as markdown or HTML; figures are PNG files beside it (embedded in HTML)."""

    def __init__(self, out, fmt):
        self.out, self.fmt, self.parts = out, fmt, []

    def heading(self, text, level=2):
        self.parts.append(("#" * level + " " + text) if self.fmt == "markdown"
                          else f"<h{level}>{html.escape(text)}</h{level}>")

    def text(self, text):
        self.parts.append(text if self.fmt == "markdown" else f"<p>{html.escape(text)}</p>")

    def table(self, header, rows):
        if self.fmt == "markdown":
            lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
            lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
            self.parts.append("\n".join(lines))
        else:
            cells = lambda r, tag: "".join(f"<{tag}>{html.escape(str(c))}</{tag}>" for c in r)
            self.parts.append("<table><tr>" + cells(header, "th") + "</tr>" +
                              "".join("<tr>" + cells(r, "td") + "</tr>" for r in rows) + "</table>")

    def figure(self, fig, name, caption):
        path = os.path.join(self.out, name)
        fig.savefig(path, dpi=110, bbox_inches="tight")
        if self.fmt == "markdown":
            self.parts.append(f"![{caption}]({name})")
        else:
            with open(path, "rb") as f:
                data = base64.b64encode(f.read()).decode()
            self.parts.append(f'<figure><img src="data:image/png;base64,{data}" alt="{html.escape(caption)}">'
                              f"<figcaption>{html.escape(caption)}</figcaption></figure>")

    def write(self):
        name = "report.md" if self.fmt == "markdown" else "report.html"
        body = "\n\n".join(self.parts) + "\n"
        if self.fmt == "html":
            body = ("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>cuop-tune report</title></head><body>\n"
                    + body + "</body></html>\n")
        with open(os.path.join(self.out, name), "w", encoding="utf-8") as f:
            f.write(body)
        return os.path.join(self.out, name)


def slug(text):
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-")


def report_ratios(doc, plt, stem, rows):
    timed = [r for r in rows if r["ratio"]]
    unmeasured = len(rows) - len(timed)
    doc.text(f"{len(rows)} problems; the baseline was measured at {len(timed)}"
             + (f" ({unmeasured} without it are left out of the ratios)" if unmeasured else "") + ".")
    if not timed:
        return
    ratios = sorted(r["ratio"] for r in timed)
    doc.table(["geomean best / baseline", "worst", "best", "problems > 1.03x", "problems < 0.97x"],
              [[f"{geomean(ratios):.3f}x", f"{ratios[0]:.3f}x", f"{ratios[-1]:.2f}x",
                sum(r > 1.03 for r in ratios), sum(r < 0.97 for r in ratios)]])
    fig, ax = plt.subplots(figsize=(9, 3.2))
    ax.bar(range(len(ratios)), ratios, width=1.0, color="#3b75af")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_xlabel("problem (sorted by ratio)")
    ax.set_ylabel("baseline median / best median")
    doc.figure(fig, f"{stem}-ratio.png", "Ratio against the baseline per problem")
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(6, 3.2))
    ax.hist([math.log2(r) for r in ratios], bins=min(40, max(5, len(ratios) // 3)), color="#3b75af")
    ax.set_xlabel("log2(baseline median / best median)")
    ax.set_ylabel("problems")
    doc.figure(fig, f"{stem}-distribution.png", "Distribution of the ratios")
    plt.close(fig)
    top = sorted(timed, key=lambda r: -r["ratio"])
    pick = top[:5] + [r for r in top[-5:] if r not in top[:5]]
    doc.table(["problem", "best configuration", "best us", "baseline us", "ratio"],
              [[f"`{r['problem']}`", f"`{r['best']}`", f"{r['best_us']:.2f}", f"{r['baseline_us']:.2f}",
                f"{r['ratio']:.2f}x"] for r in pick])


def report_heatmaps(doc, plt, stem, trials, wanted):
    families = sorted({t["family"] for t in trials if t.get("params")})
    for family in families:
        axes = heatmap_axes(trials, family, wanted.get(family))
        if not axes:
            continue
        x, y = axes
        cells = heatmap_cells(trials, family, x, y)
        if not cells:
            continue
        xs, ys = sorted({k[0] for k in cells}), sorted({k[1] for k in cells})
        grid = [[cells.get((a, b), float("nan")) for a in xs] for b in ys]
        fig, ax = plt.subplots(figsize=(1.2 + 0.7 * len(xs), 1.0 + 0.45 * len(ys)))
        image = ax.imshow(grid, cmap="viridis", vmin=0, vmax=1, aspect="auto", origin="lower")
        ax.set_xticks(range(len(xs)), [str(v) for v in xs])
        ax.set_yticks(range(len(ys)), [str(v) for v in ys])
        ax.set_xlabel(x)
        ax.set_ylabel(y)
        for i, row in enumerate(grid):
            for j, v in enumerate(row):
                if not math.isnan(v):
                    ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=7,
                            color="white" if v < 0.6 else "black")
        fig.colorbar(image, ax=ax, label="best / cell best")
        doc.figure(fig, f"{stem}-heatmap-{slug(family)}.png",
                   f"{family}: {x} x {y}, the geometric mean over problems of best median / the cell's best median")
        plt.close(fig)


def report_time_to_best(doc, plt, stem, db, op):
    progress = time_to_best(db, op)
    if not progress:
        doc.text("No timed run of this op in the database.")
        return
    fig, ax = plt.subplots(figsize=(7, 3.2))
    rows = []
    for run, (curve, found) in sorted(progress.items()):
        ax.step([c[0] for c in curve], [c[1] for c in curve], where="post", label=f"run {run}")
        at = sorted(f[0] for f in found)
        share = sorted(f[0] / f[1] for f in found)
        rows.append([run, len(found), sum(f[1] for f in found), at[len(at) // 2], f"{share[len(share) // 2]:.0%}"])
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("verified trials into the problem (order measured)")
    ax.set_ylabel("best so far / final best (geomean)")
    ax.legend(fontsize=7)
    doc.figure(fig, f"{stem}-time-to-best.png", "Time to best: the search's progress within each problem, per sweep run")
    plt.close(fig)
    doc.table(["run", "problems", "verified trials", "median trial that found the best",
               "median share of the problem's trials"], rows)


def report_compare(doc, plt, path):
    try:
        with open(path, encoding="utf-8") as f:
            verdicts = json.load(f)
        rows = verdicts["rows"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ReportError(f"{path}: not the JSON of `cuop-tune compare --format json` ({e})") from e
    doc.heading("Compare verdicts")
    summary = verdicts.get("summary", {})
    doc.table(["compared", "SLOWER", "FASTER", "SAME", "AMBIGUOUS"],
              [[summary.get(k, "") for k in ("compared", "slower", "faster", "same", "ambiguous")]])
    if not rows:
        return
    rows = sorted(rows, key=lambda r: r["ratio"])
    colors = {"SLOWER": "#c0392b", "FASTER": "#27ae60", "SAME": "#7f8c8d", "AMBIGUOUS": "#f39c12"}
    fig, ax = plt.subplots(figsize=(9, 3.2))
    for i, r in enumerate(rows):
        lo, hi = r["ci"]
        ax.errorbar(i, r["ratio"], yerr=[[r["ratio"] - lo], [hi - r["ratio"]]], fmt="o", markersize=3,
                    color=colors.get(r["verdict"], "black"))
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xlabel("problem (sorted by ratio)")
    ax.set_ylabel("candidate / baseline median, 95% CI")
    for verdict, color in colors.items():
        ax.plot([], [], "o", color=color, label=verdict)
    ax.legend(fontsize=7)
    doc.figure(fig, "compare-verdicts.png", "Compare: ratio and interval per problem, colored by verdict")
    plt.close(fig)


def parse_heatmaps(specs):
    wanted = {}
    for spec in specs:
        parts = spec.split(":")
        if len(parts) != 3 or not all(parts):
            raise ReportError(f"--heatmap {spec}: expected FAMILY:X:Y")
        wanted[parts[0]] = parts[1:]
    return wanted


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="*", help="results files or folders")
    ap.add_argument("--db", help="a sweep database (read through `cuop-tune export`)")
    ap.add_argument("--op", choices=["softmax", "gemm", "conv2d", "layernorm", "rmsnorm"], help="only this op")
    ap.add_argument("--out", default="report", help="output folder (default: report)")
    ap.add_argument("--format", choices=["markdown", "html"], default="markdown")
    ap.add_argument("--compare", help="the JSON of `cuop-tune compare --format json`")
    ap.add_argument("--heatmap", action="append", default=[], metavar="FAMILY:X:Y",
                    help="the parameters a family's heatmap spans (default: the two with most values)")
    ap.add_argument("--tune", help="cuop-tune (default: $CUOP_TUNE, build/tuner/cuop-tune, PATH)")
    args = ap.parse_args(argv)
    if not args.paths and not args.db and not args.compare:
        ap.error("name results files or folders, --db or --compare")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report: matplotlib is missing (Debian: python3-matplotlib; scripts/install-deps.sh installs it)",
              file=sys.stderr)
        return 1
    try:
        wanted = parse_heatmaps(args.heatmap)
        os.makedirs(args.out, exist_ok=True)
        doc = Document(args.out, args.format)
        doc.heading("cuop-tune report", 1)
        with tempfile.TemporaryDirectory() as tmp:
            paths = list(args.paths)
            if args.db:
                if not os.path.isfile(args.db):
                    raise ReportError(f"{args.db}: no such database")
                tune = find_tune(args.tune)
                run_tune(tune, ["export", "--db", args.db, "--out", tmp, "--samples", "none"]
                         + (["--op", args.op] if args.op else []))
                paths.append(tmp)
            files = load_results(results_paths(paths))
            files = [(p, d) for p, d in files if not args.op or d["op"] == args.op]
            baselines = {}
            if files:
                tune = find_tune(args.tune)
                for b in json.loads(run_tune(tune, ["baselines"] + [p for p, _ in files])):
                    baselines[(b["op"], b["gpu"], b["problem"])] = b
            for path, data in files:
                gpu = data.get("gpu") or "compile validation"
                doc.heading(f"{data['op']} on {gpu}")
                doc.text(f"From {os.path.relpath(path, tmp) if path.startswith(tmp) else path}.")
                stem = slug(f"{data['op']}-{gpu}")
                report_ratios(doc, plt, stem, problem_rows(data, baselines))
                report_heatmaps(doc, plt, stem, data["trials"], wanted)
                if args.db and path.startswith(tmp) and data.get("gpu"):
                    report_time_to_best(doc, plt, stem, args.db, data["op"])
            if args.compare:
                report_compare(doc, plt, args.compare)
        written = doc.write()
    except ReportError as e:
        print(f"report: {e}", file=sys.stderr)
        return 1
    print(written)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
