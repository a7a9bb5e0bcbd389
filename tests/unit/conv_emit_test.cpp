// The conv2d dispatch table emitted from results: determinism, depthwise kernels only where they
// compiled and can run (mma_tma's TMA: not borrowed for Ampere; their configuration spelled as the
// library's struct), cuDNN configurations only
// for the architecture they were measured on, the tie rule against cuDNN's heuristic, FFT
// configurations kept everywhere, wrong answers never chosen, and the heuristic as the default.
#include <gtest/gtest.h>

#include "cuop/kernels/conv/family.hpp"
#include "tuner/ops/conv2d/emit.hpp"

using namespace cuop::emit;
using namespace cuop::results;
using cuop::ops::emit_conv;
namespace kc = cuop::kernels::conv;

namespace {

const std::map<std::string, long long> depthwise_dims = {{"n", 32},  {"h", 28},       {"w", 28},       {"c", 512},
                                                         {"k", 512}, {"r", 7},        {"s", 7},        {"stride", 1},
                                                         {"pad", 3}, {"dilation", 1}, {"groups", 512}, {"layout", 0}};
const std::map<std::string, long long> dense_dims = {{"n", 4},   {"h", 256},      {"w", 256},    {"c", 32},
                                                     {"k", 32},  {"r", 15},       {"s", 15},     {"stride", 1},
                                                     {"pad", 7}, {"dilation", 1}, {"groups", 1}, {"layout", 1}};

result_trial trial(const std::string& dt, const std::map<std::string, long long>& dims, const std::string& family,
                   std::map<std::string, long long> params, const std::string& instance, double us) {
  result_trial t;
  t.problem = "conv2d_" + dt + (dims.at("groups") > 1 ? "_depthwise" : "_dense");
  t.dtype = dt;
  t.dims = dims;
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

kc::depthwise_config depthwise_config() {
  kc::conv_shape sh;
  sh.n = 32;
  sh.c = sh.k = sh.groups = 512;
  sh.h = sh.w = 28;
  sh.r = sh.s = 7;
  sh.pad_h = sh.pad_w = 3;
  return kc::for_shape({}, cuop::dtype::f16, sh);
}

std::map<std::string, long long> params_of(const kc::depthwise_config& c) {
  std::map<std::string, long long> out;
  for (const auto name : kc::depthwise_param_names()) out[std::string(name)] = kc::get_param(c, name);
  return out;
}

result_file h200_results(double depthwise_us, kc::depthwise_algo algo = kc::depthwise_algo::smem) {
  result_file f;
  f.path = "results/conv2d/nvidia-h200.json";
  f.op = "conv2d";
  f.gpu = "NVIDIA H200";
  f.cc = 90;
  f.runs.push_back({1, "2026-11-30T21:00:00Z", "configs/conv.yaml", "abc", "rev"});
  auto dw = depthwise_config();
  if (algo == kc::depthwise_algo::mma_tma)
    dw.vec = 8, dw.cvecs = 4, dw.block_c = 32, dw.tile_h = 16, dw.tile_w = 32, dw.ph = dw.pw = 1;
  dw.algo = algo;
  f.trials.push_back(
      trial("f16", depthwise_dims, "cudnn", {{"rank", 0}, {"workspace_mb", 256}}, "conv2d_f16_cudnn_heuristic", 100));
  f.trials.push_back(
      trial("f16", depthwise_dims, "cudnn", {{"engine", 57}, {"k2", 4}}, "conv2d_f16_cudnn_dnn_e57_k2v4", 99));
  f.trials.push_back(trial("f16", depthwise_dims, "depthwise", params_of(dw), kc::instance_name(dw), depthwise_us));
  f.trials.push_back(
      trial("f32", dense_dims, "cudnn", {{"rank", 0}, {"workspace_mb", 256}}, "conv2d_f32_cudnn_heuristic", 5000));
  f.trials.push_back(
      trial("f32", dense_dims, "fft", {{"tile", 64}, {"pad", 0}, {"kb", 4}}, "conv2d_f32_fft_t64_p0_kb4", 900));
  auto wrong = trial("f32", dense_dims, "cudnn", {{"engine", 6}}, "conv2d_f32_cudnn_dnn_e6", 100);
  wrong.status = "wrong_answer";
  f.trials.push_back(wrong);
  for (const char* target : {"sm_80", "sm_90a"})
    f.builds.push_back({kc::instance_name(dw), target, "ok", "", 96, 0, 0, 0});
  f.builds.push_back({kc::instance_name(dw), "sm_100a", "rejected", "too much shared memory", 0, 0, 0, 0});
  return f;
}

// The entry of `problem_comment` ("tuned f16 ... " comment line and the entry after it) for `arch`.
std::string entry_of(const std::string& header, int arch, const std::string& type, const std::string& dims) {
  const auto at = header.find("    {" + std::to_string(arch) + ", \"NVIDIA H200\", dtype::" + type + ", " + dims);
  if (at == std::string::npos) return {};
  return header.substr(at, header.find("\"},\n", at) + 3 - at);
}

const std::string dw_dims = "kernels::conv::layout::nhwc, 32, 28, 28, 512, 512, 7, 7, 1, 3, 1, 512, 0";
const std::string dense_dims_text = "kernels::conv::layout::nchw, 4, 256, 256, 32, 32, 15, 15, 1, 7, 1, 1, 0";

}  // namespace

TEST(conv_emit, same_results_give_byte_identical_files) {
  const auto a = emit_conv({h200_results(50)}, {"80", "90a", "100a"});
  const auto b = emit_conv({h200_results(50)}, {"100a", "90a-real", "sm_80"});
  EXPECT_EQ(a.header, b.header);
  EXPECT_EQ(a.instantiation, b.instantiation);
}

TEST(conv_emit, a_clearly_faster_depthwise_kernel_is_emitted_with_its_configuration) {
  const auto out = emit_conv({h200_results(50)}, {"90a"});
  const auto e = entry_of(out.header, 90, "f16", dw_dims);
  EXPECT_NE(e.find("conv_kind::kernel"), std::string::npos) << e;
  EXPECT_NE(e.find(".lay = kernels::conv::layout::nhwc, .r = 7, .s = 7, .stride = 1"), std::string::npos) << e;
  EXPECT_NE(out.instantiation.find(kc::instance_name(depthwise_config())), std::string::npos);
  EXPECT_NE(out.instantiation.find(std::string(kc::depthwise_header())), std::string::npos);
}

TEST(conv_emit, a_win_within_the_tie_margin_goes_to_the_heuristic) {
  // 1% faster than cuDNN's heuristic: a tie; cuDNN's e57 (1% faster too) is a tie as well. No
  // candidate: the shape's model leaves it to the heuristic.
  const auto out = emit_conv({h200_results(99)}, {"90a"});
  EXPECT_EQ(entry_of(out.header, 90, "f16", dw_dims), "") << out.header;
  EXPECT_NE(out.header.find("1 tuned shape of f16_nhwc_filter7x7_stride1_pad3_dil1_depthwise, 0 candidates"),
            std::string::npos)
      << out.header;
}

TEST(conv_emit, kernels_that_did_not_fit_a_target_are_not_emitted_for_it) {
  const auto out = emit_conv({h200_results(50)}, {"100a"});
  EXPECT_EQ(out.instantiation.find(kc::instance_name(depthwise_config())), std::string::npos);
  // Blackwell takes the nearest measured architecture's model: no kernel, and cuDNN's
  // configurations are the H200's: no candidate, so cuDNN's heuristic.
  EXPECT_EQ(entry_of(out.header, 100, "f16", dw_dims), "") << out.header;
}

TEST(conv_emit, tma_kernels_are_not_borrowed_for_an_architecture_without_tma) {
  // mma_tma (TMA) measured on the H200 and compiled for sm_80: sm_90a takes it; Ampere borrows the
  // H200's choices but not this one, which it could not run (the heuristic instead).
  const auto out = emit_conv({h200_results(50, kc::depthwise_algo::mma_tma)}, {"80", "90a"});
  EXPECT_NE(entry_of(out.header, 90, "f16", dw_dims).find("conv_kind::kernel"), std::string::npos);
  EXPECT_EQ(entry_of(out.header, 80, "f16", dw_dims), "") << out.header;
  EXPECT_EQ(out.header.find("{80, \"NVIDIA H200\", dtype::f16"), std::string::npos) << out.header;
}

TEST(conv_emit, fft_configurations_are_kept_and_wrong_answers_never_chosen) {
  const auto out = emit_conv({h200_results(50)}, {"80", "90a"});
  for (int arch : {80, 90}) {
    const auto e = entry_of(out.header, arch, "f32", dense_dims_text);
    EXPECT_NE(e.find("conv_kind::fft"), std::string::npos) << e;
    EXPECT_NE(e.find("\"fft_t64_p0_kb4\""), std::string::npos) << e;
    EXPECT_EQ(e.find("dnn_e6"), std::string::npos) << e;
  }
}

TEST(conv_emit, every_type_and_layout_has_the_heuristic_as_default) {
  const auto out = emit_conv({}, {"90a"});
  for (const char* t : {"f16", "bf16", "f32"})
    for (const char* l : {"nhwc", "nchw"})
      EXPECT_NE(out.header.find(std::string("{90, \"\", dtype::") + t + ", kernels::conv::layout::" + l +
                                ", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, detail::conv_kind::cudnn_heuristic"),
                std::string::npos)
          << t << " " << l;
  EXPECT_NE(out.instantiation.find("nullptr"), std::string::npos);  // no kernels: one null slot
}

TEST(conv_emit, a_kernel_that_loses_only_the_smallest_call_is_the_default_above_a_floor) {
  // Five shapes of one depthwise group: the kernel runs 2x cuDNN's heuristic on three, and loses at
  // one image of 7x7 and of 14x14 pixels, where launches dominate. No group default wins at every
  // shape; one above a floor on the batch and the output pixels does. (With one losing shape,
  // leave-one-out would refuse it: the others could not have placed the floor.)
  result_file f = h200_results(50);
  f.trials.clear();
  const auto dw = depthwise_config();
  for (const auto& [n, hw, us] : {std::tuple{1, 7, 6.0}, {1, 14, 8.0}, {4, 14, 40.0}, {32, 28, 60.0}, {8, 56, 80.0}}) {
    auto dims = depthwise_dims;
    dims["n"] = n, dims["h"] = dims["w"] = hw;
    const double base = n == 1 ? us / 2 : 2 * us;
    auto heuristic =
        trial("f16", dims, "cudnn", {{"rank", 0}, {"workspace_mb", 256}}, "conv2d_f16_cudnn_heuristic", base);
    auto kernel = trial("f16", dims, "depthwise", params_of(dw), kc::instance_name(dw), us);
    heuristic.problem = kernel.problem = "conv2d_f16_dw_n" + std::to_string(n) + "_hw" + std::to_string(hw);
    f.trials.push_back(heuristic);
    f.trials.push_back(kernel);
  }
  const auto out = emit_conv({f}, {"90a"});
  const auto at = out.header.find("5 tuned shapes of f16_nhwc_filter7x7_stride1_pad3_dil1_depthwise");
  ASSERT_NE(at, std::string::npos) << out.header;
  const std::string model = out.header.substr(at, out.header.find('\n', out.header.find('\n', at) + 1) - at);
  // group default: column 0, floor_features 2, a floor above the one-image 7x7 shape's size
  EXPECT_NE(model.find("}, 0, 2, "), std::string::npos) << model;
}
