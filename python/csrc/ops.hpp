// The PyTorch ops over cuop's dispatch: each takes tensors on a CUDA device, queues its work on
// torch's current stream of that device and returns a new tensor; `*_which` names the choice the
// op would run (docs/python.md). Schemas: registration.cpp; the Python side: python/cuop/.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/util/ArrayRef.h>

#include <optional>
#include <string>

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

}  // namespace cuop::torch_bridge
