#!/usr/bin/env python3
"""ci/check_sizes.py: the size limits of the product code, their markers and the pending list.
Skipped (77) without lizard (scripts/install-deps.sh --lint installs it)."""
import contextlib
import io
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "ci"))
import check_sizes  # noqa: E402

LIZARD = check_sizes.import_lizard()


def function(name, lines, first_line_comment="", body_comment=None, prefix="int"):
    """A function of exactly `lines` lines (lizard's length: its name's line to its brace)."""
    text = f"{prefix} {name}() {{{first_line_comment}\n"
    body = ["  call();"] * (lines - 2)
    if body_comment is not None:
        body[0] = f"  {body_comment}"
    return text + "\n".join(body) + "\n}\n"


def padded(text, total):
    """`text` followed by comment lines up to `total` lines."""
    have = text.count("\n")
    return text + "// filler\n" * (total - have)


class limits(unittest.TestCase):
    def check(self, text, path="tuner/x.cpp"):
        listing = []
        offences = check_sizes.check_file(LIZARD, path, text, listing)
        return [m for _, m in offences], listing

    def test_a_file_of_499_lines_passes_and_one_of_500_fails(self):
        self.assertEqual(self.check(padded("", 499))[0], [])
        errors, _ = self.check(padded("", 500))
        self.assertEqual(errors, ["tuner/x.cpp: 500 lines, the limit is 499: split it, or say why not in a "
                                  "'// size-limit: REASON' line"])

    def test_a_long_file_with_a_reason_passes_and_is_listed(self):
        errors, listing = self.check(padded("// size-limit: one generated table\n", 600))
        self.assertEqual(errors, [])
        self.assertEqual(listing, ["marked: tuner/x.cpp: 600 lines (file): one generated table"])

    def test_a_file_marker_without_a_reason_fails(self):
        errors, _ = self.check(padded("#pragma once\n//   size-limit:   \n", 600))
        self.assertEqual(errors, ["tuner/x.cpp:2: size-limit marker without a reason (// size-limit: REASON)"])

    def test_a_file_marker_on_a_short_file_fails(self):
        errors, _ = self.check("// size-limit: was long once\nint x;\n")
        self.assertEqual(errors, ["tuner/x.cpp:1: size-limit marker on a file of 2 lines, under the limit of 500: "
                                  "remove it"])

    def test_two_file_markers_fail(self):
        errors, _ = self.check(padded("// size-limit: a\n// size-limit: b\n", 600))
        self.assertEqual(errors, ["tuner/x.cpp:2: a second size-limit marker (one per file)"])

    def test_a_function_of_79_lines_passes_and_one_of_80_fails(self):
        self.assertEqual(self.check(function("short_enough", 79))[0], [])
        errors, _ = self.check("\n" + function("too_long", 80))
        self.assertEqual(errors, ["tuner/x.cpp:2: too_long has 80 lines, the limit is 79: split it, or say why not "
                                  "in a '// #lizard forgives(length): REASON' comment on its first line"])

    def test_a_long_function_with_a_reason_in_its_body_or_on_its_line_passes(self):
        inside = function("f", 90, body_comment="// #lizard forgives(length): the main loop")
        on_line = function("g", 90, first_line_comment="  // #lizard forgives(length): a state machine")
        errors, listing = self.check(inside + on_line)
        self.assertEqual(errors, [])
        self.assertEqual(listing, ["marked: tuner/x.cpp:1: 90 lines (f): the main loop",
                                   "marked: tuner/x.cpp:91: 90 lines (g): a state machine"])

    def test_a_function_marker_without_a_reason_fails(self):
        errors, _ = self.check(function("f", 90, body_comment="// #lizard forgives(length):"))
        self.assertEqual(errors, ["tuner/x.cpp:2: function-length marker without a reason "
                                  "(// #lizard forgives(length): REASON)"])

    def test_a_function_marker_above_the_function_is_outside_it(self):
        errors, _ = self.check("// #lizard forgives(length): too early\n" + function("f", 90))
        self.assertEqual(errors[0], "tuner/x.cpp:1: function-length marker outside a function: put it on the "
                                    "function's first line or inside its body")
        self.assertIn("tuner/x.cpp:2: f has 90 lines", errors[1])

    def test_a_function_marker_on_a_short_function_fails(self):
        errors, _ = self.check(function("f", 10, body_comment="// #lizard forgives(length): no longer"))
        self.assertEqual(errors, ["tuner/x.cpp:2: function-length marker on f, 10 lines, under the limit of 80: "
                                  "remove it"])

    def test_lizards_other_markers_fail(self):
        errors, _ = self.check("// #lizard forgive\n" + function("f", 90) + "/* #lizard forgive global */\n")
        self.assertEqual(errors, ["tuner/x.cpp:1: '#lizard forgive': the only lizard marker allowed is "
                                  "'// #lizard forgives(length): REASON'",
                                  "tuner/x.cpp:92: '#lizard forgive global': the only lizard marker allowed is "
                                  "'// #lizard forgives(length): REASON'"])

    def test_cuda_device_code_is_measured(self):
        kernel = ("namespace k {\ntemplate <int N>\nstruct family {\n" +
                  function("run", 85, prefix="  static __device__ void").replace("\n", "\n  ") +
                  "\n};\ntemplate <int N>\n__global__ void __launch_bounds__(256) entry(int n) {\n" +
                  "  family<N>::run();\n" * 90 + "}\n}  // namespace k\n")
        errors, _ = self.check(kernel, "kernels/include/cuop/kernels/x/k.cuh")
        self.assertEqual(len(errors), 2, errors)
        self.assertIn("k::family::run has 85 lines", errors[0])
        self.assertIn("k::entry has 92 lines", errors[1])


class pending_list(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)
        (self.root / "ci").mkdir()
        (self.root / "tuner").mkdir()
        (self.root / "tuner/long.cpp").write_text(padded(function("f", 90), 520))
        (self.root / "tuner/fine.cpp").write_text(function("g", 10))
        self.saved = check_sizes.ROOT, check_sizes.PENDING
        check_sizes.ROOT, check_sizes.PENDING = self.root, self.root / "ci/size_pending.txt"

    def tearDown(self):
        check_sizes.ROOT, check_sizes.PENDING = self.saved
        self.tmp.cleanup()

    def run_check(self, pending, *files):
        check_sizes.PENDING.write_text(pending)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = check_sizes.main(["--list", *(files or ("tuner/long.cpp", "tuner/fine.cpp"))])
        return rc, out.getvalue().splitlines()

    def test_pending_offences_pass_and_are_listed(self):
        rc, out = self.run_check("# why\ntuner/long.cpp\ntuner/long.cpp f  # the function\n")
        self.assertEqual(rc, 0, out)
        self.assertEqual(out, ["check_sizes: pending (ci/size_pending.txt): tuner/long.cpp: 520 lines",
                               "check_sizes: pending (ci/size_pending.txt): tuner/long.cpp:1: f has 90 lines",
                               "check_sizes: 2 files keep the limits (2 exceptions, 2 of them pending)"])

    def test_an_offence_not_listed_fails(self):
        rc, out = self.run_check("tuner/long.cpp\n")
        self.assertEqual(rc, 1)
        self.assertIn("check_sizes: tuner/long.cpp:1: f has 90 lines, the limit is 79: split it, or say why not in "
                      "a '// #lizard forgives(length): REASON' comment on its first line", out)

    def test_an_entry_that_no_longer_offends_fails(self):
        rc, out = self.run_check("tuner/long.cpp\ntuner/long.cpp f\ntuner/fine.cpp g\n")
        self.assertEqual(rc, 1)
        self.assertIn("check_sizes: ci/size_pending.txt: 'tuner/fine.cpp g' keeps the limits (or is gone): "
                      "remove the entry", out)

    def test_entries_of_files_not_checked_are_not_judged(self):
        rc, out = self.run_check("tuner/long.cpp\ntuner/long.cpp f\ntuner/fine.cpp g\n", "tuner/long.cpp")
        self.assertEqual(rc, 0, out)


if __name__ == "__main__":
    if LIZARD is None:
        print("lizard is not installed (scripts/install-deps.sh --lint installs it): skipped")
        sys.exit(77)
    unittest.main()
