#!/usr/bin/env python3
"""scripts/report.py and `cuop-tune baselines`: the report's numbers on small fixtures, and the
report of the committed results in both formats, with every plot it promises. CUOP_TUNE names
the tuner (ctest sets it)."""
import json
import math
import os
import sqlite3
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import report  # noqa: E402

TUNE = os.environ.get("CUOP_TUNE", "")


def trial(problem, instance, family, us, params=None, status="ok"):
    return {"problem": problem, "instance": instance, "family": family, "median_us": us, "status": status,
            "params": params or {}}


class numbers(unittest.TestCase):
    def test_ratio_is_the_baselines_median_over_the_best(self):
        data = {"op": "conv2d", "gpu": "G", "trials": [
            trial("p1", "base", "cudnn", 10.0), trial("p1", "k", "depthwise", 4.0),
            trial("p1", "broken", "depthwise", 1.0, status="wrong_result"),
            trial("p2", "k", "depthwise", 3.0)]}
        baselines = {("conv2d", "G", "p1"): {"baseline": "base", "median_us": 10.0},
                     ("conv2d", "G", "p2"): {"baseline": "base"}}  # not measured there
        rows = {r["problem"]: r for r in report.problem_rows(data, baselines)}
        self.assertEqual(rows["p1"]["best"], "k")  # a failed trial is never the best
        self.assertAlmostEqual(rows["p1"]["ratio"], 2.5)
        self.assertIsNone(rows["p2"]["ratio"])

    def test_a_heatmap_cell_is_the_geomean_of_best_over_the_cells_best(self):
        trials = [trial("p1", "a", "f", 1.0, {"x": 1, "y": 1, "z": 0}), trial("p1", "b", "f", 2.0, {"x": 2, "y": 1, "z": 0}),
                  trial("p1", "c", "f", 4.0, {"x": 2, "y": 1, "z": 1}),  # same cell: its best counts
                  trial("p2", "a", "f", 3.0, {"x": 1, "y": 1, "z": 0}), trial("p2", "b", "f", 1.0, {"x": 2, "y": 1, "z": 0})]
        cells = report.heatmap_cells(trials, "f", "x", "y")
        self.assertAlmostEqual(cells[(1, 1)], math.sqrt(1.0 * (1 / 3)))
        self.assertAlmostEqual(cells[(2, 1)], math.sqrt(0.5 * 1.0))
        # The two parameters with most values (y has one), ties by name.
        self.assertEqual(report.heatmap_axes(trials, "f", None), ["x", "z"])
        with self.assertRaisesRegex(report.ReportError, "no parameter w"):
            report.heatmap_axes(trials, "f", ["w", "x"])

    def test_time_to_best_follows_the_trial_order_within_each_problem(self):
        with tempfile.TemporaryDirectory() as tmp:
            db = os.path.join(tmp, "t.db")
            con = sqlite3.connect(db)
            con.executescript(
                "CREATE TABLE runs (id INTEGER PRIMARY KEY, op TEXT, gpu_name TEXT);"
                "CREATE TABLE problems (id INTEGER PRIMARY KEY, key TEXT);"
                "CREATE TABLE trials (id INTEGER PRIMARY KEY, run_id INTEGER, problem_id INTEGER, status TEXT,"
                " median_us REAL, created_at TEXT);"
                "INSERT INTO runs VALUES (1, 'softmax', 'G'), (2, 'softmax', '');"
                "INSERT INTO problems VALUES (1, 'a'), (2, 'b');"
                "INSERT INTO trials VALUES (1, 1, 1, 'ok', 4.0, '2026-01-01T00:00:00Z'),"
                " (2, 1, 1, 'ok', 2.0, '2026-01-01T00:00:10Z'), (3, 1, 2, 'ok', 5.0, '2026-01-01T00:00:20Z'),"
                " (4, 1, 2, 'wrong_result', 1.0, '2026-01-01T00:00:30Z'), (5, 2, 1, 'ok', 1.0, '2026-01-01T00:00:40Z');")
            con.commit()
            con.close()
            progress = report.time_to_best(db, "softmax")
        self.assertEqual(list(progress), [1])  # compile-validation runs (no GPU) time nothing
        curve, found = progress[1]
        # Problem a: 4 then 2 (its best, the second trial); b: one trial (the failed one is not).
        self.assertEqual([k for k, _ in curve], [1, 2])
        self.assertAlmostEqual(curve[0][1], math.sqrt(2.0))
        self.assertAlmostEqual(curve[1][1], 1.0)
        self.assertEqual(sorted(found), [(1, 1), (2, 2)])


@unittest.skipUnless(TUNE, "CUOP_TUNE is not set (ctest sets it to the build's cuop-tune)")
class committed_results(unittest.TestCase):
    def run_report(self, *args):
        return subprocess.run([sys.executable, str(ROOT / "scripts" / "report.py"), "--tune", TUNE, *args],
                              capture_output=True, text=True)

    def test_baselines_name_each_ops_rule(self):
        out = subprocess.run([TUNE, "baselines", str(ROOT / "results")], capture_output=True, text=True, check=True)
        entries = json.loads(out.stdout)
        by_op = {}
        for e in entries:
            by_op.setdefault(e["op"], []).append(e)
        self.assertEqual(sorted(by_op), ["conv2d", "gemm", "groupnorm", "layernorm", "rmsnorm", "softmax"])
        for e in by_op["conv2d"]:
            self.assertEqual(e["baseline"], f"conv2d_{e['dtype']}_cudnn_heuristic")
        for e in by_op["gemm"]:
            self.assertEqual(e["baseline"], f"gemm_{e['dtype']}_cublaslt_heuristic")
        self.assertTrue(all(e["baseline"].startswith("softmax_") for e in by_op["softmax"]))
        self.assertTrue(all(e["baseline"].startswith("groupnorm_") for e in by_op["groupnorm"]))
        # The region sweeps measure the baseline at every shape: nearly every problem has it.
        measured = [e for e in by_op["conv2d"] if e["measured"]]
        self.assertGreater(len(measured), 0.9 * len(by_op["conv2d"]))
        self.assertTrue(all(e["median_us"] > 0 for e in measured))

    def test_markdown_report_of_the_committed_results(self):
        with tempfile.TemporaryDirectory() as out:
            done = self.run_report(str(ROOT / "results"), "--out", out)
            self.assertEqual(done.returncode, 0, done.stderr)
            text = Path(out, "report.md").read_text()
            for op in ("conv2d", "gemm", "softmax"):
                self.assertIn(f"## {op} on NVIDIA H200", text)
                for plot in ("ratio", "distribution"):
                    name = f"{op}-nvidia-h200-{plot}.png"
                    self.assertIn(f"]({name})", text)
                    self.assertGreater(Path(out, name).stat().st_size, 1000, name)
            self.assertTrue(Path(out, "conv2d-nvidia-h200-heatmap-depthwise.png").is_file())
            self.assertIn("geomean best / baseline", text)

    def test_html_report_embeds_its_plots_and_the_compare_verdicts(self):
        with tempfile.TemporaryDirectory() as out:
            verdicts = Path(out, "verdicts.json")
            softmax = str(ROOT / "results" / "softmax" / "nvidia-h200.json")
            compared = subprocess.run([TUNE, "compare", softmax, softmax, "--format", "json", "--output",
                                       str(verdicts)], capture_output=True, text=True)
            self.assertEqual(compared.returncode, 0, compared.stderr)
            done = self.run_report(softmax, "--format", "html", "--out", out, "--compare", str(verdicts),
                                   "--heatmap", "block_row:block_threads:chunks")
            self.assertEqual(done.returncode, 0, done.stderr)
            page = Path(out, "report.html").read_text()
            self.assertIn("<h2>Compare verdicts</h2>", page)
            self.assertIn('src="data:image/png;base64,', page)
            self.assertIn("block_row: block_threads x chunks", page)

    def test_bad_inputs_are_named(self):
        with tempfile.TemporaryDirectory() as out:
            done = self.run_report(str(Path(out, "missing")), "--out", out)
            self.assertEqual(done.returncode, 1)
            self.assertIn("missing: no such file or folder", done.stderr)
            bad = Path(out, "bad.json")
            bad.write_text("{not json")
            done = self.run_report(str(bad), "--out", out)
            self.assertEqual(done.returncode, 1)
            self.assertIn("bad.json: not a results file", done.stderr)
            done = self.run_report("--compare", str(Path(out, "bad.json")), "--out", out)
            self.assertEqual(done.returncode, 1)
            self.assertIn("not the JSON of `cuop-tune compare --format json`", done.stderr)
            done = self.run_report(str(ROOT / "results"), "--heatmap", "block_row", "--out", out)
            self.assertEqual(done.returncode, 1)
            self.assertIn("expected FAMILY:X:Y", done.stderr)
            self.assertEqual(self.run_report("--out", out).returncode, 2)  # no input: usage


if __name__ == "__main__":
    unittest.main()
