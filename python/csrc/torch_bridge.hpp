// What every op of the PyTorch bridge shares: checks of tensors with torch's errors, the mapping
// of torch's dtypes onto cuop's, the current stream of a tensor's device, and statuses as errors.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/cuda/CUDAStream.h>

#include <string>
#include <string_view>

#include "cuop/dtype.hpp"
#include "cuop/status.hpp"

namespace cuop::torch_bridge {

// x is a CUDA tensor (op and name say which call and argument in the error).
void check_cuda(const at::Tensor& x, std::string_view op, std::string_view name);
// y is on x's device and has x's dtype.
void check_same(const at::Tensor& x, const at::Tensor& y, std::string_view op, std::string_view name);
// x's dtype as cuop's; float32, float16 and bfloat16 only.
dtype dtype_of(const at::Tensor& x, std::string_view op, std::string_view name);
// A size that cuop's problem takes as an int.
int as_int(int64_t v, std::string_view op, std::string_view what);
// x as rows x cols: its last dimension dense, rows a constant stride apart (no smaller than cols);
// a view of x where one exists, else a dense copy.
at::Tensor as_rows(const at::Tensor& x, int64_t cols);
// torch's current stream on x's device (what every op queues its work on).
cudaStream_t current_stream(const at::Tensor& x);
// Raises torch's error for anything but success; unsupported says the call has no kernel here.
void check_status(status s, std::string_view op, std::string_view call);

// How a `*_which` answer reads: "instance [kind, source, table sm_NN, tuned shape]".
std::string describe_choice(const char* instance, const char* kind, const char* source, int table_arch,
                            bool exact_shape);

}  // namespace cuop::torch_bridge
