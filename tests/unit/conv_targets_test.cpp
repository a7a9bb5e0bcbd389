// Static validation of the depthwise convolution family for the three targets, without a GPU:
// configurations (NHWC and NCHW, inputs through L1 or staged as the dtype or as f32, 3x3 to 31x31,
// stride 1 and 2, several outputs per thread along H and W, f16 / bf16 / f32) compile with NVRTC
// (the library's flags) for sm_80, sm_90a and sm_100a, without spills, with their resource usage
// read from ptxas, and a staged 31x31 tile whose shared memory fits Hopper and Blackwell but not
// Ampere is rejected for sm_80 only, naming the limit. NCHW's plane algorithm (along each channel's
// plane) compiles for every target too, unrolled (3x3, 5x5) and looped (31x31). The tensor-core algorithms (mma, mma_tma with its TMA
// copy, and 5 with its segments) compile for every target too.
#include <gtest/gtest.h>

#include "cuop/kernels/conv/family.hpp"
#include "test_support.hpp"
#include "tuner/compile/compile.hpp"
#include "tuner/ops/conv2d/conv2d_op.hpp"

namespace {

namespace kc = cuop::kernels::conv;
using algo = kc::depthwise_algo;
using cuop::compile::build_status;

kc::depthwise_config cfg(cuop::dtype t, kc::layout l, int r, int stride, int vec, int block_c, int tile_h, int tile_w,
                         int ph, int pw, kc::depthwise_algo algo) {
  kc::depthwise_config c;
  c.t = t;
  c.lay = l;
  c.r = c.s = r;
  c.stride = stride;
  c.vec = vec;
  c.cvecs = 1;
  c.block_c = block_c;
  c.tile_h = tile_h;
  c.tile_w = tile_w;
  c.ph = ph;
  c.pw = pw;
  c.algo = algo;
  return c;
}

cuop::compile::result build(const kc::depthwise_config& c, const char* target) {
  cuop::compile::compiler cc("", cuop::compile::default_include_dirs());
  return cc.build(
      {cuop::ops::conv_entry_source(c), kc::instance_name(c), target, kc::threads_per_block(c), kc::smem_bytes(c)});
}

// A well-formed configuration built for each target (test_support.hpp).
void compiles_everywhere(const kc::depthwise_config& c, bool no_spills) {
  ASSERT_EQ(kc::check_config(c), "");
  cuop::test::expect_builds_everywhere(
      kc::instance_name(c), [&](const char* target) { return build(c, target); }, no_spills);
}

}  // namespace

TEST(conv_targets, depthwise_compiles_for_every_target) {
  using cuop::dtype;
  const kc::layout nhwc = kc::layout::nhwc, nchw = kc::layout::nchw;
  for (const auto& c : {cfg(dtype::f16, nhwc, 7, 1, 4, 32, 8, 16, 2, 4, algo::smem_f32),
                        cfg(dtype::bf16, nhwc, 3, 2, 4, 64, 4, 8, 2, 2, algo::direct),
                        cfg(dtype::f16, nchw, 7, 1, 8, 32, 8, 8, 2, 4, algo::smem),
                        cfg(dtype::f32, nchw, 31, 1, 4, 16, 4, 8, 1, 4, algo::smem),
                        cfg(dtype::f16, nchw, 3, 1, 1, 8, 16, 32, 2, 4, algo::plane),
                        cfg(dtype::bf16, nchw, 5, 2, 1, 16, 8, 16, 2, 2, algo::plane),
                        cfg(dtype::f32, nchw, 31, 1, 1, 4, 16, 32, 4, 4, algo::plane)}) {
    compiles_everywhere(c, true);
    if (testing::Test::HasFatalFailure()) return;
  }
}

TEST(conv_targets, tensor_core_algos_compile_for_every_target) {
  // mma, and mma_tma (its TMA path on sm_90a and sm_100a, plain loads on sm_80), at 7x7
  // configurations the H200 sweep measures, and a bf16 31x31 one for mma. Where ptxas caps
  // the registers at 80 (three blocks per SM), mma_tma spills a few bytes (4 on sm_90a for c32
  // t16x32), and its plain-load path alone on sm_80 spills at t16x64; the rest must not spill.
  using cuop::dtype;
  const kc::layout nhwc = kc::layout::nhwc;
  auto mma = [&](dtype t, int r, int cvecs, int block_c, int tile_h, int tile_w, algo a) {
    auto c = cfg(t, nhwc, r, 1, 8, block_c, tile_h, tile_w, 1, 1, a);
    c.cvecs = cvecs;
    return c;
  };
  // mma_seg (segments of ph rows; 7x7, 16 or 32 channels a block): ptxas takes up to 255
  // registers at ph 7 (8 warps an SM) and 168 at ph 4 (12), and may spill a few bytes at ph 4.
  // At ph 7 on sm_90a it must not spill: the spills came with an A-fragment copy before every MMA
  // in NVRTC's builds, 7-23% slower on the H200 (lab/JOURNAL.md,
  // depthwise). sm_100a's builds (not measured on a GPU) may spill.
  auto seg = [&](dtype t, int block_c, int tile_h, int tile_w, int ph) {
    auto c = cfg(t, nhwc, 7, 1, 8, block_c, tile_h, tile_w, ph, 1, algo::mma_seg);
    c.cvecs = 4;
    return c;
  };
  struct expect {
    kc::depthwise_config c;
    bool no_spills;
  };
  for (const auto& [c, no_spills] :
       {expect{mma(dtype::f16, 7, 4, 32, 28, 32, algo::mma_tma), true},
        expect{mma(dtype::f16, 7, 4, 32, 28, 32, algo::mma), true},
        expect{mma(dtype::bf16, 31, 2, 16, 16, 16, algo::mma), true},
        expect{mma(dtype::f16, 7, 4, 32, 16, 32, algo::mma_tma), false},
        expect{mma(dtype::bf16, 7, 4, 32, 16, 64, algo::mma_tma), false}, expect{seg(dtype::f16, 16, 28, 32, 7), false},
        expect{seg(dtype::bf16, 16, 16, 32, 4), false}, expect{seg(dtype::bf16, 32, 16, 32, 4), false}}) {
    compiles_everywhere(c, no_spills);
    if (testing::Test::HasFatalFailure()) return;
  }
  // 32 channels of 28 x 32 at ph 7: 181 KB of shared memory, over Ampere's 163 KiB (refused there,
  // as mma_seg is on sm_80 anyway: TMA), built for Hopper and Blackwell.
  const auto big = seg(dtype::f16, 32, 28, 32, 7);
  ASSERT_EQ(kc::check_config(big), "");
  EXPECT_EQ(build(big, "sm_80").status, build_status::over_limit);
  for (const char* target : {"sm_90a", "sm_100a"}) {
    const auto r = build(big, target);
    EXPECT_EQ(r.status, build_status::ok) << target << ": " << r.message;
    EXPECT_GT(r.usage.registers, 0);
    EXPECT_LE(r.usage.registers, 255);
  }
  for (const auto& c : {seg(dtype::f16, 16, 28, 32, 7), seg(dtype::f16, 32, 56, 16, 7), big}) {
    const auto r = build(c, "sm_90a");
    EXPECT_EQ(r.usage.spill_stores, 0) << kc::instance_name(c) << " on sm_90a";
  }
}

TEST(conv_targets, shared_memory_beyond_ampere_is_rejected_for_sm80_only) {
  // f32, 16 channels: 31 x 31 taps and a (8 - 1 + 31) x (16 - 1 + 31) patch = 173376 bytes.
  const auto c = cfg(cuop::dtype::f32, kc::layout::nhwc, 31, 1, 4, 16, 8, 16, 2, 2, algo::smem);
  ASSERT_EQ(kc::smem_bytes(c), (38 * 46 * 16 + 961 * 16) * 4);
  ASSERT_EQ(kc::check_config(c), "");
  ASSERT_GT(kc::smem_bytes(c), 163 * 1024);  // Ampere's opt-in maximum
  const auto ampere = build(c, "sm_80");
  EXPECT_EQ(ampere.status, build_status::over_limit);
  EXPECT_NE(ampere.message.find(std::to_string(kc::smem_bytes(c))), std::string::npos) << ampere.message;
  EXPECT_EQ(build(c, "sm_90a").status, build_status::ok);
}
