#!/usr/bin/env python3
"""ci/reprove.py: committed results with their builds replaced by a fresh compile-validation."""
import contextlib
import io
import json
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "ci"))
import reprove  # noqa: E402


def build(instance, target, status="ok", registers=32):
    return {"instance": instance, "target": target, "status": status, "registers": registers,
            "smem": 0, "spill_stores": 0, "spill_loads": 0}


class reproving(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        d = Path(self.tmp.name)
        self.results, self.validation, self.out = d / "results", d / "validation", d / "out"
        (self.results / "softmax").mkdir(parents=True)
        (self.validation / "softmax").mkdir(parents=True)
        self.measured = {"format": "cuop-tune results 1", "op": "softmax", "gpu": "NVIDIA H200",
                         "runs": [], "trials": [{"instance": "k1"}],
                         "builds": [build("k1", "sm_80"), build("k1", "sm_90a"), build("k2", "sm_80")]}
        (self.results / "softmax" / "nvidia-h200.json").write_text(json.dumps(self.measured))
        (self.results / "softmax" / "validation.json").write_text("{}")  # not re-proven

    def tearDown(self):
        self.tmp.cleanup()

    def validate(self, builds):
        (self.validation / "softmax" / "validation.json").write_text(json.dumps({"builds": builds}))

    def test_builds_are_replaced_by_the_validations_and_the_rest_is_kept(self):
        self.validate([build("k1", "sm_80", registers=40), build("k1", "sm_90a", "over_limit"),
                       build("k2", "sm_80"), build("k3", "sm_80")])
        notes = reprove.reprove(self.results, self.validation, self.out)
        self.assertEqual(notes, ["softmax/nvidia-h200.json: k1 on sm_90a: was ok, now over_limit"])
        got = json.loads((self.out / "softmax" / "nvidia-h200.json").read_text())
        self.assertEqual(got["builds"], [build("k1", "sm_80", registers=40),
                                         build("k1", "sm_90a", "over_limit"), build("k2", "sm_80")])
        self.assertEqual({k: v for k, v in got.items() if k != "builds"},
                         {k: v for k, v in self.measured.items() if k != "builds"})
        self.assertFalse((self.out / "softmax" / "validation.json").exists())

    def test_a_configuration_no_longer_in_the_spaces_is_not_proven(self):
        self.validate([build("k1", "sm_80"), build("k1", "sm_90a")])
        notes = reprove.reprove(self.results, self.validation, self.out)
        self.assertEqual(notes, ["softmax/nvidia-h200.json: k2 on sm_80: was ok, now not in "
                                 "configs/ (not compiled)"])

    def test_the_plumbing_stand_in_is_the_committed_builds_and_changes_nothing(self):
        self.assertEqual(reprove.main(["--builds-of", str(self.results), str(self.validation)]), 0)
        self.assertEqual(reprove.reprove(self.results, self.validation, self.out), [])
        got = json.loads((self.out / "softmax" / "nvidia-h200.json").read_text())
        self.assertEqual(got["builds"], sorted(self.measured["builds"],
                                               key=lambda b: (b["instance"], b["target"])))

    def test_partial_copies_an_op_that_was_not_swept_and_says_so(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = reprove.main(["--partial", str(self.results), str(self.validation), str(self.out)])
        self.assertEqual(code, 0)
        self.assertIn("softmax/nvidia-h200.json: not re-proven (its op was not swept)", out.getvalue())
        self.assertEqual(json.loads((self.out / "softmax" / "nvidia-h200.json").read_text()),
                         self.measured)

    def test_an_op_without_validation_is_an_error(self):
        out = io.StringIO()
        with contextlib.redirect_stderr(out):
            code = reprove.main([str(self.results), str(self.validation), str(self.out)])
        self.assertEqual(code, 1)
        self.assertIn("no compile-validation of its op", out.getvalue())


if __name__ == "__main__":
    unittest.main(verbosity=2)
