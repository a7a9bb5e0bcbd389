// What the dispatch model knows of a call's shape (docs/dispatch.md, "Features"): log2 of its
// sizes, so that twice as many rows is as far from 1k as from 4k rows. Shapes are compared only
// within a group (the same dtype, and for conv2d the same layout, filter, stride, padding,
// dilation and kind of grouping): a configuration of one group does not run the others. Shared
// by the tuner (fitting, validation) and the library (dispatch), so both see the same numbers.
#pragma once

#include <cmath>

#include "cuop/kernels/conv/family.hpp"

namespace cuop::detail {

inline constexpr int softmax_feature_count = 2;
inline constexpr int gemm_feature_count = 5;
inline constexpr int conv_feature_count = 4;
inline constexpr int norm_feature_count = 2;
inline constexpr int groupnorm_feature_count = 3;

inline double log2_of(long long v) noexcept { return std::log2(static_cast<double>(v < 1 ? 1 : v)); }

// rows, cols
inline void softmax_features(long long rows, long long cols, double* out) noexcept {
  out[0] = log2_of(rows);
  out[1] = log2_of(cols);
}

// rows, cols: the row normalizations see a shape as softmax does
inline void norm_features(long long rows, long long cols, double* out) noexcept { softmax_features(rows, cols, out); }

// The groups of a call (n x groups: how many blocks of work), a group's elements (c / groups x
// h x w: how long each is) and its channels (c / groups: in NHWC, how many contiguous elements
// each position holds; shapes alike in the first two differ here)
inline void groupnorm_features(long long groups, long long group_channels, long long hw, double* out) noexcept {
  out[0] = log2_of(groups);
  out[1] = log2_of(group_channels * hw);
  out[2] = log2_of(group_channels);
}

// How far a GEMM whose rows miss 16-byte alignment lies from one whose rows keep it, in each of
// the two alignment features: farther than the model's radius and than its reach past the voters'
// span, so that the two kinds never vote for each other. The libraries' kernels differ most there
// (cuBLASLt's aligned kernels need 16-byte rows), so what wins on one side says nothing of the other.
inline constexpr double gemm_misaligned_distance = 8.0;

// Whether rows of `ld` elements of `element_bytes` each miss 16-byte alignment.
inline bool rows_misaligned(long long ld, int element_bytes) noexcept { return ld * element_bytes % 16 != 0; }

// m, n, k; whether A's or B's rows miss 16-byte alignment; whether D's do
inline void gemm_features(long long m, long long n, long long k, bool operands_misaligned, bool output_misaligned,
                          double* out) noexcept {
  out[0] = log2_of(m);
  out[1] = log2_of(n);
  out[2] = log2_of(k);
  out[3] = operands_misaligned ? gemm_misaligned_distance : 0.0;
  out[4] = output_misaligned ? gemm_misaligned_distance : 0.0;
}

// batch, output pixels, input channels, output channels
inline void conv_features(const kernels::conv::conv_shape& sh, double* out) noexcept {
  out[0] = log2_of(sh.n);
  out[1] = log2_of(static_cast<long long>(sh.h) * sh.w);
  out[2] = log2_of(sh.c);
  out[3] = log2_of(sh.k);
}

// How a convolution groups its channels: dense (groups 1), depthwise (groups == c == k), other.
enum class conv_grouping : int { dense = 0, depthwise = 1, grouped = 2 };
inline conv_grouping grouping_of(const kernels::conv::conv_shape& sh) noexcept {
  if (sh.groups == 1) return conv_grouping::dense;
  return sh.groups == sh.c && sh.groups == sh.k ? conv_grouping::depthwise : conv_grouping::grouped;
}

// The fields a conv2d model's shapes share (besides the dtype).
struct conv_group {
  kernels::conv::layout lay;
  int r, s, stride, pad, dilation;
  conv_grouping grouping;
  int tf32;
};

inline conv_group group_of(const kernels::conv::conv_shape& sh) noexcept {
  return {sh.lay, sh.r, sh.s, sh.stride_h, sh.pad_h, sh.dil_h, grouping_of(sh), sh.allow_tf32 ? 1 : 0};
}

inline bool operator==(const conv_group& a, const conv_group& b) noexcept {
  return a.lay == b.lay && a.r == b.r && a.s == b.s && a.stride == b.stride && a.pad == b.pad &&
         a.dilation == b.dilation && a.grouping == b.grouping && a.tf32 == b.tf32;
}

}  // namespace cuop::detail
