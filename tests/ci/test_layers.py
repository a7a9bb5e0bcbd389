#!/usr/bin/env python3
"""ci/check_layers.py: which includes break the tuner's layers, on made-up files."""
import sys
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "ci"))
import check_layers  # noqa: E402


def problems(path: str, *includes: str) -> list[str]:
    text = "".join(f'#include "{i}"\n' for i in includes)
    return check_layers.check_file(Path(path), text)


class layers(unittest.TestCase):
    def test_a_folder_may_include_itself_and_below(self):
        self.assertEqual(problems("tuner/runner/sweep.cpp", "tuner/runner/shard.hpp", "tuner/core/error.hpp",
                                  "tuner/ops/registry.hpp", "tuner/store/store.hpp"), [])

    def test_an_include_from_above_is_named_with_its_line(self):
        p = problems("tuner/core/files.cpp", "tuner/core/text.hpp", "tuner/store/store.hpp")
        self.assertEqual(p, ["tuner/core/files.cpp:2: core includes tuner/store/store.hpp, from the layer above it "
                             "(store)"])

    def test_spec_may_not_include_the_ops(self):
        self.assertEqual(len(problems("tuner/spec/spec.cpp", "tuner/ops/registry.hpp")), 1)
        self.assertEqual(problems("tuner/spec/spec.cpp", "tuner/catalog/catalog.hpp"), [])

    def test_op_folders_are_independent(self):
        self.assertEqual(problems("tuner/ops/gemm/emit.cpp", "tuner/ops/gemm/gemm_op.hpp", "tuner/ops/op.hpp"), [])
        self.assertEqual(len(problems("tuner/ops/gemm/emit.cpp", "tuner/ops/softmax/emit.hpp")), 1)
        self.assertIn("shared files", problems("tuner/ops/registry.cpp", "tuner/ops/conv2d/conv2d_op.hpp")[0])

    def test_a_folder_in_no_layer_is_named(self):
        self.assertIn("in no layer", problems("tuner/newfolder/x.cpp", "tuner/core/error.hpp")[0])
        self.assertIn("in no layer", problems("tuner/cli/x.cpp", "tuner/newfolder/x.hpp")[0])

    def test_the_kernel_library_never_includes_the_tuner(self):
        self.assertEqual(len(problems("kernels/src/x.cpp", "tuner/core/error.hpp")), 1)

    def test_the_tree_holds(self):
        self.assertEqual(check_layers.main(), 0)


if __name__ == "__main__":
    unittest.main()
