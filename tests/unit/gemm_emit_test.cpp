// The GEMM dispatch table emitted from results: determinism, our kernels only where they
// compiled, cuBLASLt configurations only for the architecture they were measured on (elsewhere
// the heuristic), wrong answers never chosen, the heuristic as the default for every type.
#include <gtest/gtest.h>

#include "tuner/ops/gemm/emit.hpp"

using namespace cuop::emit;
using namespace cuop::results;
using cuop::ops::emit_gemm;

namespace {

result_trial trial(int m, int n, int k, const std::string& family, std::map<std::string, long long> params,
                   const std::string& instance, double us) {
  result_trial t;
  t.problem = "gemm_bf16_" + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  t.dtype = "bf16";
  t.dims = {{"m", m}, {"n", n}, {"k", k}};
  t.family = family;
  t.params = std::move(params);
  t.instance = instance;
  t.status = "ok";
  t.median_us = us;
  t.ci_lo_us = 0.99 * us;
  t.ci_hi_us = 1.01 * us;
  t.run = 1;
  return t;
}

const std::map<std::string, long long> skinny = {
    {"block_n", 8}, {"threads", 256}, {"m_tile", 1}, {"k_chunk", 32}, {"split_k", 1}};
const char* skinny_name = "gemm_bf16_bf16_col_skinny_blockn8_threads256_mtile1_kchunk32_splitk1";
const char* lt_name = "gemm_bf16_cublaslt_lt_a66_t23_s35_k1_r0_w0_c4_i0_cl3";

result_file h200_results() {
  result_file f;
  f.path = "results/gemm/nvidia-h200.json";
  f.op = "gemm";
  f.gpu = "NVIDIA H200";
  f.cc = 90;
  f.runs.push_back({1, "2026-11-30T16:00:00Z", "configs/gemm.yaml", "abc", "rev"});
  // Decode: our skinny kernel beats the heuristic.
  f.trials.push_back(
      trial(1, 4096, 4096, "cublaslt", {{"rank", 0}, {"workspace_mb", 32}}, "gemm_bf16_cublaslt_heuristic", 15));
  f.trials.push_back(trial(1, 4096, 4096, "skinny", skinny, skinny_name, 12));
  // Prefill: a listed cuBLASLt configuration wins; a faster wrong answer never does.
  f.trials.push_back(
      trial(4096, 4096, 4096, "cublaslt", {{"rank", 0}, {"workspace_mb", 32}}, "gemm_bf16_cublaslt_heuristic", 180));
  f.trials.push_back(trial(4096, 4096, 4096, "cublaslt",
                           {{"algo", 66},
                            {"tile", 23},
                            {"stages", 35},
                            {"split_k", 1},
                            {"reduction", 0},
                            {"swizzle", 0},
                            {"custom", 4},
                            {"inner", 0},
                            {"cluster", 3}},
                           lt_name, 175));
  auto wrong =
      trial(4096, 4096, 4096, "cublaslt", {{"algo", 24}}, "gemm_bf16_cublaslt_lt_a24_t20_s0_k3_r1_w0_c0_i0_cl0", 100);
  wrong.status = "wrong_answer";
  f.trials.push_back(wrong);
  for (const char* target : {"sm_80", "sm_90a", "sm_100a"})
    f.builds.push_back({skinny_name, target, "ok", "", 56, 0, 0, 0});
  return f;
}

std::string table_line_of(const std::string& header, const std::string& arch, const std::string& shape) {
  // "// tuned 1x4096x4096 <- ..." comment followed by the entry "{90, ..."
  const auto at = header.find("    {" + arch +
                              ", \"NVIDIA H200\", dtype::bf16, dtype::bf16, kernels::gemm::b_layout::col, " + shape);
  if (at == std::string::npos) return {};
  return header.substr(at, header.find("\"},\n", at) + 3 - at);  // the entry's three lines
}

}  // namespace

TEST(gemm_emit, same_results_give_byte_identical_files) {
  const auto a = emit_gemm({h200_results()}, {"80", "90a", "100a"});
  const auto b = emit_gemm({h200_results()}, {"100a", "90a-real", "sm_80"});
  EXPECT_EQ(a.header, b.header);
  EXPECT_EQ(a.instantiation, b.instantiation);
}

TEST(gemm_emit, tuned_architecture_takes_the_fastest_verified_choice) {
  const auto out = emit_gemm({h200_results()}, {"90a"});
  const auto decode = table_line_of(out.header, "90", "1, 4096, 4096");
  EXPECT_NE(decode.find("gemm_kind::kernel"), std::string::npos) << decode;
  EXPECT_NE(decode.find(skinny_name), std::string::npos) << decode;
  const auto prefill = table_line_of(out.header, "90", "4096, 4096, 4096");
  EXPECT_NE(prefill.find("gemm_kind::cublaslt,"), std::string::npos) << prefill;
  EXPECT_NE(prefill.find("\"lt_a66_t23_s35_k1_r0_w0_c4_i0_cl3\""), std::string::npos) << prefill;
  EXPECT_EQ(out.header.find("lt_a24_t20"), std::string::npos) << "a wrong answer was emitted";
}

TEST(gemm_emit, cublaslt_choices_of_another_architecture_are_not_candidates) {
  const auto out = emit_gemm({h200_results()}, {"80"});
  EXPECT_EQ(table_line_of(out.header, "80", "4096, 4096, 4096"), "") << out.header;
  EXPECT_EQ(out.header.find("lt_a66_t23"), std::string::npos) << out.header;
  // Our kernel compiled for sm_80: it is kept.
  EXPECT_NE(table_line_of(out.header, "80", "1, 4096, 4096").find(skinny_name), std::string::npos);
}

TEST(gemm_emit, our_kernels_only_where_they_compiled) {
  auto f = h200_results();
  for (auto& b : f.builds)
    if (b.target == "sm_100a") b.status = "over_limit";
  const auto out = emit_gemm({f}, {"100a"});
  EXPECT_EQ(table_line_of(out.header, "100", "1, 4096, 4096"), "") << out.header;
  EXPECT_EQ(out.instantiation.find(skinny_name), std::string::npos);
}

TEST(gemm_emit, defaults_are_the_heuristic_for_every_type_and_layout) {
  const auto out = emit_gemm({}, {"80", "90a", "100a"});
  EXPECT_NE(out.header.find("gemm_table_size = 24;"), std::string::npos);  // 3 targets x 8 defaults
  EXPECT_NE(out.header.find("gemm_kernel_count = 0;"), std::string::npos);
  EXPECT_NE(out.instantiation.find("gemm_kernels[1]"), std::string::npos) << "an empty table still declares a slot";
  EXPECT_NE(out.header.find("dtype::f16, dtype::f32, kernels::gemm::b_layout::row"), std::string::npos);
}

TEST(gemm_emit, header_and_unit_carry_the_same_emit_id) {
  const auto out = emit_gemm({h200_results()}, {"90a"});
  const auto at = out.header.find("gemm_emit_id = 0x");
  ASSERT_NE(at, std::string::npos);
  const auto id = out.header.substr(at + 15, out.header.find("ull", at) - at - 15);
  EXPECT_NE(out.instantiation.find("gemm_emit_id == " + id + "ull"), std::string::npos) << id;
}

TEST(gemm_emit, a_challenger_must_clearly_beat_the_heuristic) {
  result_file f = h200_results();
  f.trials.clear();
  const std::map<std::string, long long> ref_params = {{"rank", 0}, {"workspace_mb", 32}};
  const std::map<std::string, long long> lt = {{"algo", 66},   {"tile", 23},     {"stages", 35},
                                               {"split_k", 1}, {"reduction", 0}, {"swizzle", 0},
                                               {"custom", 4},  {"inner", 0},     {"cluster", 3}};
  // 1.5% faster with separated intervals: within the 2% tie margin, the heuristic stays.
  f.trials.push_back(trial(2048, 1024, 4096, "cublaslt", ref_params, "gemm_bf16_cublaslt_heuristic", 100));
  auto close = trial(2048, 1024, 4096, "cublaslt", lt, lt_name, 98.5);
  close.ci_lo_us = 98.4;
  close.ci_hi_us = 98.6;
  f.trials.push_back(close);
  // 5% faster but the intervals overlap: a tie.
  f.trials.push_back(trial(512, 1024, 4096, "cublaslt", ref_params, "gemm_bf16_cublaslt_heuristic", 100));
  auto noisy = trial(512, 1024, 4096, "cublaslt", lt, lt_name, 95);
  noisy.ci_hi_us = 99.5;
  f.trials.push_back(noisy);
  // 5% faster, intervals apart: the challenger.
  f.trials.push_back(trial(128, 1024, 4096, "cublaslt", ref_params, "gemm_bf16_cublaslt_heuristic", 100));
  f.trials.push_back(trial(128, 1024, 4096, "cublaslt", lt, lt_name, 95));
  // No verified heuristic (its answer was wrong): the fastest verified choice.
  auto wrong_ref = trial(4097, 4097, 4097, "cublaslt", ref_params, "gemm_bf16_cublaslt_heuristic", 50);
  wrong_ref.status = "wrong_answer";
  f.trials.push_back(wrong_ref);
  f.trials.push_back(trial(4097, 4097, 4097, "cublaslt", lt, lt_name, 1200));
  const auto out = emit_gemm({f}, {"90a"});
  // The configuration is a candidate (it wins clearly at 128 x 1024 x 4096, its entry's shape);
  // at 2048 x 1024 x 4096 its 1.5% is below the margin, at 512 x 1024 x 4096 the intervals
  // overlap: no gain (anchors in the order of their keys: 128, 2048, 512).
  EXPECT_NE(table_line_of(out.header, "90", "128, 1024, 4096").find("gemm_kind::cublaslt,"), std::string::npos)
      << out.header;
  const auto speedups = out.header.substr(out.header.find("gemm_model_speedups[] = {"));
  EXPECT_NE(speedups.find("    0.0512932949f,\n    0.0151136378f,\n    0.0f,\n"), std::string::npos) << speedups;
  // No verified heuristic at 4097^3 (its answer was wrong): not a tuned shape of the model, so
  // the dispatch runs the heuristic there, reducing split-K in the compute type (docs/gemm.md).
  EXPECT_EQ(out.header.find("// gemm_bf16_4097x4097x4097"), std::string::npos);
}

TEST(gemm_emit, wgmma_only_in_the_sm_90a_table_with_its_tensor_maps) {
  auto f = h200_results();
  const char* wgmma_name = "gemm_bf16_bf16_col_wgmma_block128x256_stages4_consumers2_groupm8";
  f.trials.push_back(
      trial(2048, 4096, 4096, "cublaslt", {{"rank", 0}, {"workspace_mb", 32}}, "gemm_bf16_cublaslt_heuristic", 100));
  f.trials.push_back(trial(2048, 4096, 4096, "wgmma",
                           {{"block_m", 128}, {"block_n", 256}, {"stages", 4}, {"consumers", 2}, {"group_m", 8}},
                           wgmma_name, 90));
  f.builds.push_back({wgmma_name, "sm_90a", "ok", "", 168, 0, 0, 0});
  for (const char* target : {"sm_80", "sm_100a"})  // what the sweep records there (only_target)
    f.builds.push_back({wgmma_name, target, "over_limit", "the family exists on sm_90a only", 0, 0, 0, 0});
  const auto out = emit_gemm({f}, {"80", "90a", "100a"});
  const auto hopper = table_line_of(out.header, "90", "2048, 4096, 4096");
  EXPECT_NE(hopper.find(wgmma_name), std::string::npos) << hopper;
  EXPECT_NE(hopper.find("kernels::gemm::family::wgmma"), std::string::npos) << hopper;
  EXPECT_EQ(table_line_of(out.header, "80", "2048, 4096, 4096").find(wgmma_name), std::string::npos);
  EXPECT_EQ(table_line_of(out.header, "100", "2048, 4096, 4096").find(wgmma_name), std::string::npos);
  // Its entry takes the tensor maps, and its body is compiled for compute capability 9.0 alone.
  std::string units;
  for (const auto& u : out.kernel_units) units += u;
  const auto at = units.find(std::string(wgmma_name) + "(");
  ASSERT_NE(at, std::string::npos) << units;
  const std::string entry = units.substr(at, units.find("}\n", at) - at);
  EXPECT_NE(entry.find("const __grid_constant__ cuop::kernels::gemm::gemm_tma in"), std::string::npos) << entry;
  EXPECT_NE(entry.find("#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900\n"), std::string::npos) << entry;
  EXPECT_NE(units.find("#include <cuop/kernels/gemm/wgmma.cuh>"), std::string::npos);
}
