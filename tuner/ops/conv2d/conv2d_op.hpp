// 2-D convolution (forward) as the sweep sees it. A problem is {n, h, w, c, k, r, s} with
// optional stride (1), pad (0), dilation (1), groups (1), tf32 (0) and layout (nhwc; or nchw) and
// one dtype for x, w and y (f32 accumulation). Candidates: our depthwise kernel family (groups ==
// c == k), and the library families cuDNN ("cudnn") and our cuFFT convolution ("fft"), listed by
// the worker on the GPU (library.hpp); all measured by conv_trial_runner (trial.hpp, docs/conv.md).
#pragma once

#include <string>
#include <string_view>

#include "cuop/detail/shape_features.hpp"
#include "cuop/kernels/conv/family.hpp"
#include "tuner/ops/op.hpp"

namespace cuop::ops {

inline constexpr std::string_view conv_depthwise_family = "depthwise";

// "nhwc_32x56x56x128_k128_filter7x7_stride1_pad3_dil1_groups128": layout, n x h x w x c, then k, filter, stride,
// pad, dilation and groups.
std::string conv_problem_key(const catalog::dim_values& dims);
std::string conv_problem_key(const kernels::conv::conv_shape& sh);  // the same, from a shape

kernels::conv::conv_shape conv_shape_of(const catalog::dim_values& dims);

// Throws cuop::error for an unknown family, parameter or dtype.
kernels::conv::depthwise_config depthwise_config_of(const space::point& p, const spec::problem& problem);

// The extern "C" entry of one configuration (dynamic shared memory), and its translation unit.
std::string conv_entry_definition(const kernels::conv::depthwise_config& c);
std::string conv_entry_source(const kernels::conv::depthwise_config& c);

const op& conv2d_op();

// "dense", "depthwise" or "grouped": how a model group names its kind of grouping.
const char* grouping_name(detail::conv_grouping g);

}  // namespace cuop::ops
