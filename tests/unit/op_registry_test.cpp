// The op registry (tuner/ops/registry.hpp): every op it lists is whole, and the lookups by name
// that the layers below the ops use (catalog::find_op) see the same ops.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "tuner/catalog/catalog.hpp"
#include "tuner/core/error.hpp"
#include "tuner/ops/registry.hpp"

namespace {

using cuop::ops::all_ops;

TEST(op_registry, lists_each_op_once_with_every_part) {
  ASSERT_FALSE(all_ops().empty());
  std::set<std::string> names, stems;
  for (const cuop::ops::op* op : all_ops()) {
    SCOPED_TRACE(op->name());
    EXPECT_TRUE(names.insert(op->name()).second) << "listed twice";
    EXPECT_TRUE(stems.insert(std::string(op->emit_stem())).second) << "two ops emit the same files";
    const auto& d = op->desc();
    EXPECT_FALSE(d.problem_dims.empty());
    EXPECT_FALSE(d.families.empty());
    EXPECT_NE(d.instance_of, nullptr);
    EXPECT_NE(d.bytes_of, nullptr);
    EXPECT_NE(d.features_of, nullptr);
    EXPECT_NE(d.group_of, nullptr);
    EXPECT_NE(d.baseline_of, nullptr);
    for (const auto& f : d.families) EXPECT_TRUE(f.kind == "kernel" || f.kind == "library") << f.name;
  }
}

TEST(op_registry, the_catalog_looks_up_the_registry_s_descriptions) {
  std::vector<std::string> names;
  for (const cuop::ops::op* op : all_ops()) {
    names.push_back(op->name());
    EXPECT_EQ(cuop::catalog::find_op(op->name()), &op->desc());
    EXPECT_EQ(cuop::ops::find(op->name()), op);
  }
  EXPECT_EQ(cuop::catalog::op_names(), names);
  EXPECT_EQ(cuop::catalog::find_op("softmx"), nullptr);
  EXPECT_EQ(cuop::ops::find("softmx"), nullptr);
}

TEST(op_registry, an_unknown_op_is_an_error_naming_the_ops) {
  try {
    (void)cuop::ops::named("softmx");
    FAIL() << "no error";
  } catch (const cuop::error& e) {
    EXPECT_EQ(std::string(e.what()),
              "unknown op \"softmx\" (ops: softmax, gemm, conv2d, layernorm, rmsnorm, groupnorm)");
  }
}

TEST(op_registry, library_families_are_the_described_ones) {
  for (const cuop::ops::op* op : all_ops())
    for (const auto& f : op->desc().families) EXPECT_EQ(op->is_library(f.name), f.kind == "library") << f.name;
  EXPECT_FALSE(cuop::ops::named("gemm").is_library("no_such_family"));
}

TEST(op_registry, the_work_of_a_problem_comes_from_the_description) {
  cuop::spec::problem p;
  p.dtype = "f16";
  p.dims = {{"m", 256}, {"n", 128}, {"k", 64}};
  const auto& gemm = cuop::ops::named("gemm");
  EXPECT_DOUBLE_EQ(gemm.flops(p), 2.0 * 256 * 128 * 64);
  EXPECT_GT(gemm.bytes(p), 0);
  p.dims = {{"rows", 4}, {"cols", 8}};
  EXPECT_DOUBLE_EQ(cuop::ops::named("softmax").bytes(p), 2.0 * 4 * 8 * 2);
  EXPECT_EQ(cuop::ops::named("softmax").flops(p), 0);
}

}  // namespace
