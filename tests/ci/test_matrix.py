#!/usr/bin/env python3
"""ci/matrix.yaml and ci/matrix.py: the matrix is well formed, its promises are what the rules
give, its build targets are the tuner's, and the workflow is generated from it."""
import contextlib
import copy
import io
import os
import re
import sys
import tempfile
import unittest
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "ci"))
import matrix as mx  # noqa: E402


def run_main(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = mx.main(list(args))
    return code, out.getvalue(), err.getvalue()


class the_matrix(unittest.TestCase):
    def setUp(self):
        self.m = mx.load()

    def test_is_valid_and_covers_the_architectures_and_cuda_versions_asked_for(self):
        self.assertEqual(mx.validate(self.m), [])
        self.assertEqual(self.m["targets"], ["sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a",
                                             "sm_100", "sm_100a", "sm_120"])
        self.assertGreaterEqual(len(self.m["cuda"]), 2)
        self.assertTrue(all(v.startswith("13.") for v in self.m["cuda"]))
        self.assertEqual(self.m["build_types"], ["Release", "Debug"])
        self.assertEqual(set(self.m["gpu_jobs"]["gate"]["gpus"]),
                         {"sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120"})

    def test_the_shipping_set_is_cmakes_default(self):
        cmake = (ROOT / "CMakeLists.txt").read_text()
        default = re.search(r'set\(CMAKE_CUDA_ARCHITECTURES "([^"]+)"', cmake).group(1)
        self.assertEqual(self.m["arch_sets"]["all"]["cuda_architectures"], default)

    def test_build_targets_are_the_targets_the_tuner_knows(self):
        source = (ROOT / "tuner" / "compile" / "targets.cpp").read_text()
        tuner = {t.removeprefix("sm_") for t in re.findall(r'\{"(sm_\w+)",', source)}
        self.assertEqual(mx.EMIT_TARGETS, tuner)

    def test_a_promise_the_architectures_do_not_give_is_an_error(self):
        m = copy.deepcopy(self.m)
        m["arch_sets"]["sm_90a"]["promises"]["sm_100a"] = "ptx"
        errors = mx.validate(m)
        self.assertEqual(len(errors), 1, errors)
        self.assertIn('arch_sets.sm_90a.promises: sm_90a=native sm_100a=ptx is not what "90a" '
                      "gives: sm_90a=native", errors[0])

    def test_a_target_emit_does_not_know_is_an_error(self):
        m = copy.deepcopy(self.m)
        m["arch_sets"]["sm_80"]["cuda_architectures"] = "87"
        m["arch_sets"]["sm_80"]["promises"] = {"sm_89": "native", "sm_90": "ptx", "sm_90a": "ptx", "sm_100": "ptx",
                                                "sm_100a": "ptx", "sm_120": "ptx"}
        self.assertEqual(mx.validate(m), [
            'arch_sets.sm_80.cuda_architectures: "87" is not a target with a table of its own '
            "(100a, 120, 75, 80, 86, 89, 90, 90a)"])

    def test_unknown_keys_dimensions_and_scripts_are_errors(self):
        m = copy.deepcopy(self.m)
        m["cpu_jobs"]["build"]["over"].append("compiler")
        m["cpu_jobs"]["build"]["steps"].append("ci/jobs/absent.sh")
        m["gpu_jobs"]["gate"]["gpus"]["sm_70"] = "all"
        m["cuda"]["12.8"] = "nvidia/cuda:12.8.0-devel-ubuntu24.04"
        errors = "\n".join(mx.validate(m))
        for text in ('unknown dimension "compiler"', '"ci/jobs/absent.sh" does not exist',
                     '"sm_70" is not a target', '"12.8" is not a quoted CUDA 13.x version'):
            self.assertIn(text, errors)

    def test_jobs_are_the_product_of_their_dimensions(self):
        build = mx.entries(self.m, self.m["cpu_jobs"]["build"])
        self.assertEqual(len(build), len(self.m["arch_sets"]) * len(self.m["cuda"]) * 2)
        self.assertIn({"arch_set": "sm_80", "cuda": "13.1", "build_type": "Debug",
                       "image": self.m["cuda"]["13.1"]}, build)
        fresh = mx.entries(self.m, self.m["cpu_jobs"]["check-fresh"])
        self.assertEqual(fresh, [{"cuda": "13.0", "image": self.m["cuda"]["13.0"]}])

    def test_job_scripts_exist_and_are_executable(self):
        for kind in ("cpu_jobs", "gpu_jobs"):
            for job in self.m[kind].values():
                for step in job["steps"]:
                    self.assertTrue(os.access(ROOT / step, os.X_OK), step)


class the_workflow(unittest.TestCase):
    def setUp(self):
        self.m = mx.load()
        self.text = mx.workflow(self.m)
        self.w = yaml.safe_load(self.text)

    def test_its_matrices_are_the_matrix_jobs(self):
        for name, job in self.m["cpu_jobs"].items():
            got = self.w["jobs"][name]["strategy"]["matrix"]["include"]
            self.assertEqual(got, mx.entries(self.m, job), name)
        gate = self.w["jobs"]["gate"]["strategy"]["matrix"]["include"]
        self.assertEqual(gate, [{"gpu": g, "arch_set": s}
                                for g, s in self.m["gpu_jobs"]["gate"]["gpus"].items()])

    def test_cpu_jobs_run_in_the_cuda_container_with_the_projects_packages(self):
        for name in self.m["cpu_jobs"]:
            job = self.w["jobs"][name]
            self.assertEqual(job["runs-on"], "ubuntu-24.04")
            self.assertEqual(job["container"], "${{ matrix.image }}")
            runs = [s.get("run", "") for s in job["steps"]]
            self.assertIn("./scripts/install-deps.sh", runs)
            for step in self.m["cpu_jobs"][name]["steps"]:
                self.assertIn(step, runs)

    def test_the_containers_get_what_the_jobs_need(self):
        deps = (ROOT / "scripts" / "install-deps.sh").read_text()
        for package in ("python3", "python3-yaml", "cmake", "ninja-build", "libyaml-cpp-dev"):
            self.assertRegex(deps, rf"[\s(]{re.escape(package)}[\s)]", package)

    def test_gpu_jobs_run_on_runners_labelled_by_architecture_and_call_the_gate(self):
        job = self.w["jobs"]["gate"]
        self.assertEqual(job["runs-on"], ["self-hosted", "gpu", "${{ matrix.gpu }}"])
        self.assertEqual(job["needs"], self.m["gpu_jobs"]["gate"]["needs"])
        self.assertIn("cuop-tune gate configs/gate/*.yaml --baseline results/", self.text)
        self.assertIn("cuop-tune gate configs/gate/*.yaml --baseline results/",
                      (ROOT / "ci" / "jobs" / "gpu-gate.sh").read_text())

    def test_a_stale_workflow_is_reported_with_a_diff(self):
        with tempfile.TemporaryDirectory() as d:
            stale = Path(d) / "ci.yml"
            stale.write_text(self.text.replace('cuda: "13.1"', 'cuda: "13.2"', 1))
            code, out, err = run_main("workflow", "--check", str(stale))
            self.assertEqual(code, 1)
            self.assertIn('-          - {arch_set: all, cuda: "13.2"', out)
            self.assertIn('+          - {arch_set: all, cuda: "13.1"', out)
            self.assertIn("is stale", err)
            stale.write_text(self.text)
            self.assertEqual(run_main("workflow", "--check", str(stale))[0], 0)

    def test_the_commands_the_job_scripts_use(self):
        self.assertEqual(run_main("archs", "all")[1], "80;90a;100a\n")
        self.assertEqual(run_main("gpu-set", "sm_120")[1], "all\n")
        self.assertEqual(run_main("promises", "sm_100a")[1], "sm_100a=native\n")
        code, _, err = run_main("archs", "sm_86")
        self.assertEqual(code, 1)
        self.assertIn('unknown arch set "sm_86"', err)


if __name__ == "__main__":
    unittest.main(verbosity=2)
