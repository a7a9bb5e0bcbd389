// ops::is_baseline: the trial of a problem that the dispatch model must beat.
#include <gtest/gtest.h>

#include "cuop/kernels/softmax/family.hpp"
#include "tuner/ops/baseline.hpp"

namespace {

using cuop::store::config_record;
using cuop::store::problem_record;

TEST(baseline, softmax_default_rule_and_library_heuristics) {
  const problem_record softmax{"softmax_f16_27243x2", "softmax", "f16", R"({"cols":2,"rows":27243})", 0};
  const auto config = [](const char* instance, const char* op) { return config_record{instance, op, "", "", "{}"}; };
  const auto rule = cuop::kernels::softmax::instance_name(cuop::kernels::softmax::default_config(cuop::dtype::f16, 2));
  EXPECT_TRUE(cuop::ops::is_baseline(softmax, config(rule.c_str(), "softmax")));
  EXPECT_FALSE(cuop::ops::is_baseline(softmax, config("softmax_f16_warp_row_v1_t32_r8_c1_p0", "softmax")));
  const problem_record bad{"softmax_f16_x", "softmax", "f16", "{}", 0};
  EXPECT_FALSE(cuop::ops::is_baseline(bad, config(rule.c_str(), "softmax")));
  const problem_record gemm{"gemm_bf16_1x4096x4096", "gemm", "bf16", R"({"m":1,"n":4096,"k":4096})", 0};
  EXPECT_TRUE(cuop::ops::is_baseline(gemm, config("gemm_bf16_cublaslt_heuristic", "gemm")));
  EXPECT_FALSE(cuop::ops::is_baseline(gemm, config("gemm_bf16_cublaslt_heuristic_pk1", "gemm")));
  EXPECT_FALSE(cuop::ops::is_baseline(gemm, config("gemm_bf16_cublaslt_a31_t2", "gemm")));
  const problem_record conv{"conv2d_f16_x", "conv2d", "f16", "{}", 0};
  EXPECT_TRUE(cuop::ops::is_baseline(conv, config("conv2d_f16_cudnn_heuristic", "conv2d")));
  EXPECT_FALSE(cuop::ops::is_baseline(conv, config("conv2d_f16_cudnn_dnn_e62_k2v4", "conv2d")));
}

}  // namespace
