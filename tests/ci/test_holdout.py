#!/usr/bin/env python3
"""scripts/holdout.py: seeded draws from the workload distributions, disjoint from the sweep
files, and the summary's rule for "slower beyond noise"."""
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import holdout  # noqa: E402

DISTS = sorted((ROOT / "configs" / "distributions").glob("*.yaml"))
TUNE = os.environ.get("CUOP_TUNE")  # expands the sweep files' grids (ctest sets it)


@unittest.skipUnless(TUNE, "no built cuop-tune (CUOP_TUNE) to expand the sweep files' grids")
class drawing(unittest.TestCase):
    def test_every_distribution_draws_the_same_shapes_for_a_seed(self):
        self.assertEqual(len(DISTS), 6)
        for d in DISTS:
            op, a = holdout.draw(str(d), 60, 7, TUNE)
            _, b = holdout.draw(str(d), 60, 7, TUNE)
            _, c = holdout.draw(str(d), 60, 8, TUNE)
            self.assertEqual(a, b, d)
            self.assertNotEqual(a, c, d)
            self.assertEqual(len({holdout.key_of(s) for s in a}), 60, d)  # distinct
            for s in a:
                self.assertTrue(holdout.size_ok(holdout.yaml.safe_load(open(d)), s), s)

    def test_no_drawn_shape_is_in_a_sweep_file(self):
        # configs/regions/ (the training shapes) included: a validation draw never meets them.
        for d in DISTS:
            op, shapes = holdout.draw(str(d), 300, 20261205, TUNE)
            swept = holdout.swept_shapes(op, TUNE)
            self.assertTrue(swept, op)
            self.assertFalse([s for s in shapes if holdout.key_of(s) in swept], d)

    def test_a_bad_distribution_names_its_field(self):
        with tempfile.NamedTemporaryFile("w", suffix=".yaml") as f:
            f.write("op: softmax\ncomponents:\n  - {name: x, dtype: f32, rows: {gauss: [1, 2]}, cols: 4}\n")
            f.flush()
            r = subprocess.run([sys.executable, str(ROOT / "scripts" / "holdout.py"), "draw", f.name, "--seed", "1"],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 2)
            self.assertIn("components[0].rows", r.stderr)


class summarizing(unittest.TestCase):
    def row(self, key, speedup, lo, hi, groups=None):
        r = {"op": "gemm", "key": key, "speedup": speedup, "speedup_lo": lo, "speedup_hi": hi,
             "tuned": {"correct": True, "instance": "a", "source": "model", "median_us": 10.0},
             "baseline": {"correct": True, "instance": "b", "median_us": 10.0 * speedup}}
        return r

    def test_slower_means_below_097_with_the_interval_below_1(self):
        rows = [self.row("a", 0.96, 0.95, 0.99), self.row("b", 0.96, 0.90, 1.02), self.row("c", 0.98, 0.97, 0.99),
                self.row("d", 1.2, 1.1, 1.3)]
        s = holdout.summarize(rows)["gemm"]
        self.assertEqual(s["slower_than_baseline"], 1)
        self.assertEqual(s["slower_shapes"], ["a"])
        self.assertAlmostEqual(s["worst_vs_baseline"], 0.96)

    def test_the_baselines_own_choice_is_never_counted_slower(self):
        same = self.row("a", 0.93, 0.91, 0.95)
        same["tuned"]["instance"] = same["baseline"]["instance"]
        rows = [same, self.row("b", 0.93, 0.91, 0.95)]
        s = holdout.summarize(rows)["gemm"]
        self.assertEqual(s["slower_shapes"], ["b"])
        self.assertEqual(s["same_choice_beyond_noise_shapes"], ["a"])
        self.assertIn("the comparison's bias", holdout.markdown(rows, holdout.summarize(rows), "h"))


if __name__ == "__main__":
    unittest.main()
