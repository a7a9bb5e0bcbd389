// Static validation of the GEMM kernel families for the three targets, without a GPU: a
// configuration of each family compiles with NVRTC (the flags the library uses) for sm_80,
// sm_90a and sm_100a with its resource usage read from ptxas, and a configuration whose shared
// memory fits Hopper and Blackwell but not Ampere is rejected for sm_80 only, naming the limit.
#include <gtest/gtest.h>

#include "cuop/kernels/gemm/family.hpp"
#include "test_support.hpp"
#include "tuner/compile/compile.hpp"
#include "tuner/ops/gemm/gemm_op.hpp"

namespace {

namespace kg = cuop::kernels::gemm;
using cuop::compile::build_status;

kg::gemm_config mma(int bm, int bn, int bk, int stages) {
  kg::gemm_config c;
  c.fam = kg::family::mma;
  c.in = c.out = cuop::dtype::bf16;
  c.block_m = bm;
  c.block_n = bn;
  c.block_k = bk;
  c.warp_m = 64;
  c.warp_n = 64;
  c.stages = stages;
  c.group_m = 8;
  c.split_k = 1;
  return c;
}

cuop::compile::result build(const kg::gemm_config& c, const char* target) {
  cuop::compile::compiler cc("", cuop::compile::default_include_dirs());
  kg::launch_plan plan;
  kg::device_limits any;
  any.max_smem_per_block = 0;
  EXPECT_EQ(kg::plan_launch(c, 1, 1, 1, any, plan), "");
  return cc.build({cuop::ops::gemm_entry_source(c), kg::instance_name(c), target, kg::threads_per_block(c),
                   static_cast<long long>(plan.smem_bytes)});
}

}  // namespace

TEST(gemm_targets, every_family_compiles_for_every_target) {
  kg::gemm_config skinny;
  skinny.fam = kg::family::skinny;
  skinny.in = skinny.out = cuop::dtype::bf16;
  skinny.block_n = 8;
  skinny.threads = 256;
  skinny.m_tile = 1;
  skinny.k_chunk = 32;
  skinny.split_k = 2;
  for (const auto& c : {mma(128, 128, 32, 4), skinny}) {
    ASSERT_EQ(kg::check_config(c), "");
    cuop::test::expect_builds_everywhere(
        kg::instance_name(c), [&](const char* target) { return build(c, target); }, true);
  }
}

TEST(gemm_targets, shared_memory_beyond_ampere_is_rejected_for_sm80_only) {
  const auto c = mma(128, 256, 64, 4);  // 4 * (128 + 256) * 64 * 2 = 196608 bytes
  ASSERT_EQ(kg::check_config(c), "");
  const auto ampere = build(c, "sm_80");
  EXPECT_EQ(ampere.status, build_status::over_limit);
  EXPECT_NE(ampere.message.find("196608"), std::string::npos) << ampere.message;
  EXPECT_NE(ampere.message.find("sm_80"), std::string::npos) << ampere.message;
  EXPECT_EQ(build(c, "sm_90a").status, build_status::ok);
}
