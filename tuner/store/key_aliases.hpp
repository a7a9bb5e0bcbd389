// Keys of the spelling before issue 38 (instance names and conv2d problem keys with one- or
// two-letter fields, the depthwise family's "stage" parameter) and their current spelling, so that databases, results
// files and baselines written before the rename stay readable. The old keys are rewritten field
// by field, so every old key of a kernel family has its alias; library back ends kept their names.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace cuop::store {

// The current instance name for `key` in the old spelling of one of our kernel families, e.g.
// "gemm_f16_f16_col_mma_m128_n128_k32_wm64_wn64_s3_g8_sk1" ->
// "gemm_f16_f16_col_mma_block128x128x32_warp64x64_stages3_groupm8_splitk1"; nullopt when `key`
// is not in an old spelling (a current key, a library back end's, a custom kernel's). Throws
// cuop::error for an old key whose fields name no configuration (a depthwise "stage9").
std::optional<std::string> renamed_instance(std::string_view key);

// The current problem key for `key` in the old spelling of conv2d's keys, e.g.
// "conv2d_f16_nhwc_32x28x28x512_k512_r7x7_s1_p3_d1_g512" ->
// "conv2d_f16_nhwc_32x28x28x512_k512_filter7x7_stride1_pad3_dil1_groups512"; nullopt for any other
// key (softmax's and gemm's had no letters).
std::optional<std::string> renamed_problem(std::string_view key);

// The current name of parameter `name` of `family` of `op` when it was renamed ("stage" of
// conv2d's depthwise: "algo"), else nullopt. The values are unchanged.
std::optional<std::string> renamed_param(std::string_view op, std::string_view family, std::string_view name);

}  // namespace cuop::store
