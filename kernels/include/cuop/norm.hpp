// cuop::layernorm and cuop::rmsnorm (with the residual add fused or not): normalization over the
// last dimension of a rows x cols tensor, dispatched through the tables emitted from tuning
// results (no tuning at run time). Statistics are f32 whatever the element type.
#pragma once

#include <cuda_runtime_api.h>

#include "cuop/dtype.hpp"
#include "cuop/policy.hpp"
#include "cuop/status.hpp"

namespace cuop {

struct layernorm_problem {
  dtype type = dtype::f32;  // of x, y, weight and bias
  long long rows = 0;
  long long cols = 0;      // the normalized dimension
  long long x_stride = 0;  // elements between rows; 0 means cols
  long long y_stride = 0;  // 0 means cols
  float eps = 1e-5f;       // added to the variance
  choice_policy policy = choice_policy::tuned;
};

// y[r, :] = (x[r, :] - mean) / sqrt(var + eps) * weight + bias, with the biased variance, as
// torch.nn.functional.layer_norm over the last dimension. weight and bias (cols elements each)
// may be null (1 and 0). mean and rstd (rows floats each; rstd = 1 / sqrt(var + eps)) may be null;
// training's backward needs them. y may be x itself (in place); nothing written may share a byte
// with another operand (read-only ones, x, weight and bias, may share with each other). Refused
// with invalid_argument before anything is queued: null x or y, negative sizes, strides below
// cols, pointers off their element size, overlap, eps negative or not finite, an unknown dtype,
// a stream of another device. Streams, CUDA graphs and threads as
// every op (docs/ARCHITECTURE.md, "Using the library").
status layernorm(const layernorm_problem& p, const void* x, const void* weight, const void* bias, void* y,
                 float* mean = nullptr, float* rstd = nullptr, cudaStream_t stream = nullptr);

struct rmsnorm_problem {
  dtype type = dtype::f32;  // of x, y, the residual and weight
  long long rows = 0;
  long long cols = 0;
  long long x_stride = 0;         // 0 means cols
  long long y_stride = 0;         // 0 means cols
  long long residual_stride = 0;  // 0 means cols
  float eps = 1e-6f;              // added to the mean square
  choice_policy policy = choice_policy::tuned;
};

// y[r, :] = x[r, :] / sqrt(mean(x[r, :]^2) + eps) * weight. weight may be null (1); rstd (rows
// floats) may be null. y may be x itself. Otherwise as layernorm.
status rmsnorm(const rmsnorm_problem& p, const void* x, const void* weight, void* y, float* rstd = nullptr,
               cudaStream_t stream = nullptr);

// The fused form between an LLM's blocks: residual += x (rounded to the element type, written
// back), then y = rmsnorm(residual) * weight, reading each input and writing each output once.
// The residual may share no byte with x or y; y may be x itself.
status add_rmsnorm(const rmsnorm_problem& p, const void* x, void* residual, const void* weight, void* y,
                   float* rstd = nullptr, cudaStream_t stream = nullptr);

// What dispatch chooses for a call on the current device, for logs, tests and benchmarks.
using norm_choice = row_op_choice;
status layernorm_which(const layernorm_problem& p, norm_choice& out);
// residual: the choice for add_rmsnorm, else for rmsnorm.
status rmsnorm_which(const rmsnorm_problem& p, bool residual, norm_choice& out);

}  // namespace cuop
