// The dispatch model's view of a problem, for searches that learn from neighbouring shapes
// (`strategy: transfer`, `cuop-tune replay`): the shape's features (log2 of its sizes, the numbers
// the library's dispatch compares, cuop/detail/shape_features.hpp), the group whose shapes share
// configurations (the same groups emit fits one model per, docs/dispatch.md) and the instance of
// the baseline (cuBLASLt's or cuDNN's heuristic choice, softmax's default rule). Each op's
// op_desc points at its three functions (registry.cpp).
#pragma once

#include <string>
#include <vector>

#include "tuner/ops/registry.hpp"

namespace cuop::ops {

std::vector<double> softmax_shape_features(const dim_values& dims);
std::string softmax_shape_group(const std::string& dtype, const dim_values& dims);  // the dtype
std::string softmax_baseline(const std::string& dtype, const dim_values& dims);     // the default rule's

std::vector<double> gemm_shape_features(const dim_values& dims);
std::string gemm_shape_group(const std::string& dtype, const dim_values& dims);  // the dtype
std::string gemm_baseline(const std::string& dtype, const dim_values& dims);     // "gemm_bf16_cublaslt_heuristic"

std::vector<double> conv_shape_features(const dim_values& dims);
// "f16_nhwc_filter7x7_stride1_pad3_dil1_depthwise": the dtype, layout, filter, stride, padding, dilation, kind
// of grouping and tf32, as emit names its models.
std::string conv_shape_group(const std::string& dtype, const dim_values& dims);
std::string conv_baseline(const std::string& dtype, const dim_values& dims);  // "conv2d_f16_cudnn_heuristic"

}  // namespace cuop::ops
