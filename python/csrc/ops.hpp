// The PyTorch ops over cuop's dispatch: each takes tensors on a CUDA device, queues its work on
// torch's current stream of that device and returns a new tensor; `*_which` names the choice the
// op would run (docs/python.md). Schemas: registration.cpp; the Python side: python/cuop/.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/util/ArrayRef.h>

#include <optional>
#include <string>
#include <string_view>

namespace cuop::torch_bridge {

// softmax over dimension `dim` (any; the kernels run the last one, others go through a copy).
at::Tensor softmax(const at::Tensor& x, int64_t dim);
std::string softmax_which(const at::Tensor& x, int64_t dim);

// y = x weight^T + bias, weight out_features x in_features (torch.nn.functional.linear).
at::Tensor linear(const at::Tensor& x, const at::Tensor& weight, const std::optional<at::Tensor>& bias);
std::string linear_which(const at::Tensor& x, const at::Tensor& weight);

// torch.nn.functional.conv2d for 4-d input; channels_last input runs NHWC, contiguous NCHW.
at::Tensor conv2d(const at::Tensor& x, const at::Tensor& weight, const std::optional<at::Tensor>& bias,
                  c10::IntArrayRef stride, c10::IntArrayRef padding, c10::IntArrayRef dilation, int64_t groups);
std::string conv2d_which(const at::Tensor& x, const at::Tensor& weight, c10::IntArrayRef stride,
                         c10::IntArrayRef padding, c10::IntArrayRef dilation, int64_t groups);

// torch.nn.functional.layer_norm and rms_norm over the trailing dimensions normalized_shape
// (forward only: no autograd); add_rms_norm updates `residual` in place (residual += x) and returns
// rms_norm of the new residual. norm_which: kind "layer_norm" or "rms_norm" (with residual: the
// fused form's choice).
at::Tensor layer_norm(const at::Tensor& x, c10::IntArrayRef normalized_shape, const std::optional<at::Tensor>& weight,
                      const std::optional<at::Tensor>& bias, double eps);
at::Tensor rms_norm(const at::Tensor& x, c10::IntArrayRef normalized_shape, const std::optional<at::Tensor>& weight,
                    std::optional<double> eps);
at::Tensor add_rms_norm(const at::Tensor& x, const at::Tensor& residual, c10::IntArrayRef normalized_shape,
                        const std::optional<at::Tensor>& weight, std::optional<double> eps);
std::string norm_which(const at::Tensor& x, c10::IntArrayRef normalized_shape, std::string_view kind, bool residual);

// torch.nn.functional.group_norm over x (N, C, *), then SiLU when `silu` (forward only);
// channels_last 4-d input runs NHWC and returns channels_last, anything else NCHW (contiguous).
at::Tensor group_norm(const at::Tensor& x, int64_t num_groups, const std::optional<at::Tensor>& weight,
                      const std::optional<at::Tensor>& bias, double eps, bool silu);
std::string group_norm_which(const at::Tensor& x, int64_t num_groups, bool silu);

}  // namespace cuop::torch_bridge
