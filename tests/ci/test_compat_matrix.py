#!/usr/bin/env python3
"""ci/compat_matrix.py's rules on canned cuobjdump output (tests/data/cuobjdump/): no GPU, no
cuobjdump needed."""
import contextlib
import io
import os
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "ci"))
import compat_matrix as cm  # noqa: E402

DATA = ROOT / "tests" / "data" / "cuobjdump"


def levels(cells):
    return {t: c.level for t, c in cells.items()}


def served(cells):
    """The targets a build serves at all (what an arch set promises)."""
    return {t: level for t, level in levels(cells).items() if level != "none"}


def run_main(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cm.main(list(args))
    return code, out.getvalue(), err.getvalue()


class rules(unittest.TestCase):
    def test_sass_runs_on_newer_minor_of_the_same_major(self):
        a = cm.parse_arch
        self.assertTrue(cm.sass_runs_on(a("sm_80"), a("sm_86")))
        self.assertTrue(cm.sass_runs_on(a("sm_80"), a("sm_89")))
        self.assertFalse(cm.sass_runs_on(a("sm_86"), a("sm_80")))
        self.assertFalse(cm.sass_runs_on(a("sm_80"), a("sm_90")))
        self.assertFalse(cm.sass_runs_on(a("sm_90"), a("sm_100")))
        self.assertFalse(cm.sass_runs_on(a("sm_100"), a("sm_120")))

    def test_arch_specific_sass_runs_only_on_its_own_arch_asked_for_as_such(self):
        a = cm.parse_arch
        self.assertTrue(cm.sass_runs_on(a("sm_90a"), a("sm_90a")))
        self.assertFalse(cm.sass_runs_on(a("sm_90a"), a("sm_90")))
        self.assertFalse(cm.sass_runs_on(a("sm_90a"), a("sm_100a")))
        self.assertFalse(cm.sass_runs_on(a("sm_100a"), a("sm_120")))
        self.assertTrue(cm.sass_runs_on(a("sm_90"), a("sm_90a")))  # plain SASS serves the 'a' row

    def test_family_specific_code_stays_in_its_major(self):
        a = cm.parse_arch
        self.assertTrue(cm.sass_runs_on(a("sm_100f"), a("sm_100")))
        self.assertTrue(cm.ptx_jits_on(a("compute_100f"), a("sm_100a")))
        self.assertFalse(cm.ptx_jits_on(a("compute_100f"), a("sm_120")))

    def test_ptx_jits_on_the_same_or_a_newer_arch_but_arch_specific_ptx_only_on_its_own(self):
        a = cm.parse_arch
        self.assertTrue(cm.ptx_jits_on(a("compute_80"), a("sm_120")))
        self.assertTrue(cm.ptx_jits_on(a("compute_80"), a("sm_80")))
        self.assertFalse(cm.ptx_jits_on(a("compute_86"), a("sm_80")))
        self.assertTrue(cm.ptx_jits_on(a("compute_90a"), a("sm_90a")))
        self.assertFalse(cm.ptx_jits_on(a("compute_90a"), a("sm_90")))
        self.assertFalse(cm.ptx_jits_on(a("compute_90a"), a("sm_100a")))

    def test_parse_arch(self):
        self.assertEqual(cm.parse_arch("compute_100a"), cm.Arch(100, "a"))
        self.assertEqual(cm.parse_arch("90a"), cm.Arch(90, "a"))
        self.assertEqual(cm.parse_arch("sm_120"), cm.Arch(120, ""))
        with self.assertRaises(ValueError):
            cm.parse_arch("sm_9x")


class listing(unittest.TestCase):
    def test_one_object(self):
        images = cm.parse_listing((DATA / "default-archs-object.txt").read_text(), "a.o")
        self.assertEqual(sorted((i.kind, i.arch.sm()) for i in images),
                         [("ptx", "sm_100a"), ("ptx", "sm_80"), ("ptx", "sm_90a"),
                          ("sass", "sm_100a"), ("sass", "sm_80"), ("sass", "sm_90a")])
        self.assertEqual({i.unit for i in images}, {"a.o"})

    def test_archive_members_are_units_and_host_objects_carry_nothing(self):
        images = cm.parse_listing((DATA / "mixed-archive.txt").read_text(), "libmixed.a")
        self.assertEqual({i.unit for i in images}, {"libmixed.a:a.o", "libmixed.a:b.o"})

    def test_an_unknown_line_is_an_error_not_ignored(self):
        with self.assertRaisesRegex(ValueError, "unexpected line"):
            cm.parse_listing("ELF file 1: x.compute_80.cubin\n", "x.o")

    def test_members_of_the_same_name_stay_apart(self):
        text = ("member lib.a:x.cu.o:\nELF file 1: lib.1.sm_80.cubin\n"
                "member lib.a:x.cu.o:\nELF file 2: lib.2.sm_90a.cubin\n")
        images = cm.parse_listing(text, "lib.a")
        self.assertEqual([i.unit for i in images], ["lib.a:x.cu.o", "lib.a:x.cu.o#2"])
        self.assertEqual(cm.matrix(images)["sm_80"].level, "none")

    def test_cuobjdump_notes_are_ignored(self):
        text = "cuobjdump info    : File 'h.o' does not contain device code\n"
        self.assertEqual(cm.parse_listing(text, "h.o"), [])


class matrix(unittest.TestCase):
    def test_the_default_architectures(self):
        images = cm.parse_listing((DATA / "default-archs-object.txt").read_text(), "a.o")
        cells = cm.matrix(images)
        self.assertEqual(levels(cells), {
            "sm_75": "none", "sm_80": "native", "sm_86": "native", "sm_89": "native", "sm_90": "ptx",
            "sm_90a": "native", "sm_100": "ptx", "sm_100a": "native", "sm_120": "ptx"})
        self.assertEqual(cells["sm_86"].how, "sm_80 SASS")
        self.assertEqual(cells["sm_120"].how, "JIT of compute_80 PTX")
        self.assertEqual(cells["sm_100a"].how, "sm_100a SASS")

    def test_the_worst_object_decides_and_is_named(self):
        images = cm.parse_listing((DATA / "mixed-archive.txt").read_text(), "libmixed.a")
        cells = cm.matrix(images)
        self.assertEqual(levels(cells), {
            "sm_75": "none", "sm_80": "none", "sm_86": "ptx", "sm_89": "ptx", "sm_90": "ptx", "sm_90a": "ptx",
            "sm_100": "ptx", "sm_100a": "native", "sm_120": "ptx"})
        self.assertEqual(cells["sm_80"].limited_by, ["libmixed.a:b.o"])
        self.assertEqual(cells["sm_86"].how, "JIT of compute_86 PTX")
        self.assertEqual(cells["sm_100"].limited_by, ["libmixed.a:a.o"])
        self.assertEqual(cells["sm_90"].limited_by, [])  # both objects JIT there
        self.assertEqual(cells["sm_90"].how, "JIT of compute_80 PTX; JIT of compute_86 PTX")
        self.assertEqual(cells["sm_100a"].how, "sm_100 SASS; sm_100a SASS")

    def test_an_object_without_ptx_is_nothing_on_a_newer_major(self):
        images = cm.parse_listing((DATA / "uneven-archive.txt").read_text(), "libuneven.a")
        cells = cm.matrix(images)
        self.assertEqual(levels(cells), {
            "sm_75": "none", "sm_80": "native", "sm_86": "native", "sm_89": "native", "sm_90": "none",
            "sm_90a": "none", "sm_100": "none", "sm_100a": "none", "sm_120": "none"})
        for target in ("sm_90", "sm_90a", "sm_100", "sm_100a", "sm_120"):
            self.assertEqual(cells[target].limited_by, ["libuneven.a:sm80_sass_only.o"])
        self.assertEqual(cells["sm_80"].how, "sm_80 SASS")

    def test_this_projects_library_built_for_the_default_architectures(self):
        text = (DATA / "libcuop_kernels-80-90a-100a.txt").read_text()
        images = cm.parse_listing(text, "libcuop_kernels.a")
        units = {i.unit for i in images}
        self.assertIn("libcuop_kernels.a:gemm_instances.cu.o", units)
        self.assertIn("libcuop_kernels_core.a:kernels.cu.o", units)
        self.assertEqual(len(units), 8)  # 3 instantiation units, 5 kernels of the core
        self.assertEqual(cm.check(cm.matrix(images), cm.derived_promises("80;90a;100a")), [])
        self.assertEqual(served(cm.matrix(images)), cm.derived_promises("80;90a;100a"))

    def test_this_projects_library_built_for_the_sm_80_arch_set(self):
        import matrix as mx  # needs PyYAML, unlike compat_matrix.py
        images = cm.parse_listing((DATA / "libcuop_kernels-80.txt").read_text(), "libcuop_kernels.a")
        self.assertEqual(len({i.unit for i in images}), 8)
        promised = mx.load()["arch_sets"]["sm_80"]["promises"]
        self.assertEqual(served(cm.matrix(images)), promised)
        self.assertEqual(cm.check(cm.matrix(images), cm.parse_promises(["sm_90a=native"])),
                         ["sm_90a: promised native, the fatbin has ptx"])

    def test_no_device_code_serves_nothing(self):
        self.assertEqual(set(levels(cm.matrix([])).values()), {"none"})


class promises(unittest.TestCase):
    def test_derived_from_cmake_architectures(self):
        self.assertEqual(cm.derived_promises("80;90a;100a"), {
            "sm_80": "native", "sm_86": "native", "sm_89": "native", "sm_90": "ptx",
            "sm_90a": "native", "sm_100": "ptx", "sm_100a": "native", "sm_120": "ptx"})
        self.assertEqual(cm.derived_promises("90a"), {"sm_90a": "native"})
        self.assertEqual(cm.derived_promises("80-real"),
                         {"sm_80": "native", "sm_86": "native", "sm_89": "native"})
        self.assertEqual(cm.derived_promises("80-virtual")["sm_80"], "ptx")
        with self.assertRaises(ValueError):
            cm.derived_promises("all-major")

    def test_what_cmake_asks_for_is_what_the_canned_object_has(self):
        images = cm.parse_listing((DATA / "default-archs-object.txt").read_text(), "a.o")
        self.assertEqual(cm.check(cm.matrix(images), cm.derived_promises("80;90a;100a")), [])

    def test_a_broken_promise_names_target_level_and_object(self):
        images = cm.parse_listing((DATA / "uneven-archive.txt").read_text(), "libuneven.a")
        errors = cm.check(cm.matrix(images), {"sm_80": "native", "sm_90a": "native", "sm_120": "none"})
        self.assertEqual(errors, [
            "sm_90a: promised native, the fatbin has none (objects: libuneven.a:sm80_sass_only.o)"])

    def test_ptx_promised_native_given_is_kept(self):
        images = cm.parse_listing((DATA / "default-archs-object.txt").read_text(), "a.o")
        self.assertEqual(cm.check(cm.matrix(images), {"sm_86": "ptx"}), [])

    def test_parse_promises(self):
        self.assertEqual(cm.parse_promises(["sm_80=native sm_120=ptx", "90a=native"]),
                         {"sm_80": "native", "sm_120": "ptx", "sm_90a": "native"})
        with self.assertRaises(ValueError):
            cm.parse_promises(["sm_80=fast"])


class command(unittest.TestCase):
    def test_kept_promises_exit_0_and_print_the_matrix(self):
        code, out, err = run_main("--listing", str(DATA / "default-archs-object.txt"),
                                  "--expect-archs", "80;90a;100a")
        self.assertEqual(code, 0, err)
        self.assertRegex(out, r"\nsm_120 +CC 12.0: RTX 50, RTX PRO 6000 +ptx +JIT of compute_80 PTX +ptx +ok\n")
        self.assertIn("(1 object with device code)", out)
        self.assertIn("8 promised targets served", out)

    def test_a_missing_target_exits_1_and_says_which(self):
        code, out, err = run_main("--listing", str(DATA / "uneven-archive.txt"),
                                  "--promise", "sm_90a=native")
        self.assertEqual(code, 1)
        self.assertIn("MISSING", out)
        self.assertIn("compat-matrix: error: sm_90a: promised native, the fatbin has none", err)

    def test_bad_promise_is_an_error(self):
        code, _, err = run_main("--listing", str(DATA / "uneven-archive.txt"), "--promise", "sm_80")
        self.assertEqual(code, 1)
        self.assertIn('bad promise "sm_80"', err)

    def test_files_are_read_with_cuobjdump(self):
        with tempfile.TemporaryDirectory() as d:
            tool = Path(d) / "cuobjdump"
            tool.write_text("#!/bin/sh\ncase \"$3\" in\n"
                            f"  *host.o) echo \"cuobjdump info : File '$3' does not contain device code\" >&2; exit 255;;\n"
                            f"  *) cat '{DATA / 'uneven-archive.txt'}';;\nesac\n")
            tool.chmod(0o755)
            (Path(d) / "libuneven.a").write_bytes(b"!<arch>\n")
            (Path(d) / "host.o").write_bytes(b"")
            code, out, err = run_main(str(Path(d) / "libuneven.a"), str(Path(d) / "host.o"),
                                      "--cuobjdump", str(tool), "--promise", "sm_86=native")
            self.assertEqual(code, 0, err)
            self.assertIn("(2 objects with device code)", out)
            self.assertIn("sm_90a: none because of libuneven.a:sm80_sass_only.o", out)

    def test_without_cuobjdump_skip_when_asked(self):
        saved = cm.find_cuobjdump
        cm.find_cuobjdump = lambda explicit=None: None
        try:
            code, _, err = run_main(os.devnull, "--skip-without-cuobjdump")
            self.assertEqual(code, cm.SKIP_CODE)
            self.assertIn("compat-matrix: skipped: cuobjdump not found", err)
            code, _, err = run_main(os.devnull)
            self.assertEqual(code, 1)
        finally:
            cm.find_cuobjdump = saved


if __name__ == "__main__":
    unittest.main(verbosity=2)
