// What a sweep file plans before anything runs: configurations that their family refuses for any
// problem are rejected points with the family's reason, never compiled.
#include <gtest/gtest.h>

#include "test_support.hpp"

#include <string>

#include "tuner/runner/sweep_plan.hpp"
#include "tuner/spec/spec.hpp"

namespace {

using cuop::test::error_of;

// f32 rows: a vector of 8 elements is 32 bytes, which every softmax family refuses.
const char* vec_sweep = R"(op: softmax
problems:
  - {rows: 64, cols: 128, dtype: f32}
candidates:
  - family: block_row
    params: {vec: [4, 8], block_threads: 32, chunks: 1}
)";

TEST(sweep_plan, a_configuration_its_family_refuses_is_rejected_and_not_built) {
  const auto s = cuop::spec::parse(vec_sweep, "vec.yaml");
  const auto plan = cuop::runner::plan_sweep(s);
  ASSERT_EQ(plan.verdicts.size(), 1u);
  ASSERT_EQ(plan.verdicts[0].size(), 2u);
  EXPECT_TRUE(plan.verdicts[0][0].accepted);
  EXPECT_FALSE(plan.verdicts[0][1].accepted);
  EXPECT_EQ(plan.verdicts[0][1].reason, "the family refuses it: vec 8 * 4 bytes > 16 bytes");
  EXPECT_EQ(plan.accepted(), 1u);
  ASSERT_EQ(plan.instances[0].size(), 1u);
  EXPECT_EQ(plan.kernels.size(), 1u);
  EXPECT_EQ(plan.kernels.count(plan.instances[0][0]), 1u);
  EXPECT_EQ(plan.instances[0][0].find("vec8"), std::string::npos) << plan.instances[0][0];
}

TEST(sweep_plan, a_problem_whose_every_configuration_is_refused_is_an_error) {
  std::string yaml = vec_sweep;
  yaml.replace(yaml.find("[4, 8]"), 6, "8");
  const auto s = cuop::spec::parse(yaml, "vec.yaml");
  EXPECT_EQ(error_of([&] { cuop::runner::plan_sweep(s); }),
            "vec.yaml: problem softmax_f32_64x128: every configuration the constraints accept is refused by its family "
            "(the first: "
            "block_row(vec=8, block_threads=32, chunks=1): the family refuses it: vec 8 * 4 bytes > 16 bytes)");
}

}  // namespace
