// Reference GroupNorm (optionally followed by SiLU) to verify kernels: one block per group,
// statistics accumulated in double, outputs as float in the input's layout. Plain C++ header:
// usable from host-compiled .cpp files. Fills and comparisons are softmax_reference.hpp's.
#pragma once

#include <cuda_runtime_api.h>

#include "cuop/dtype.hpp"

namespace cuop::reference {

struct groupnorm_reference_args {
  dtype type = dtype::f32;
  bool nhwc = false;             // else NCHW
  bool silu = false;             // y * sigmoid(y) after the affine
  const void* x = nullptr;       // n x c x hw (NCHW) or n x hw x c (NHWC), dense
  const void* weight = nullptr;  // c, or null (1)
  const void* bias = nullptr;    // c, or null (0)
  long long n = 0, c = 0, hw = 0, groups = 1;
  float eps = 1e-5f;
};

// y_f32 (the input's shape and layout): the outputs. mean_f32 and rstd_f32 (n x groups each, may
// be null): the statistics. cudaErrorInvalidValue when c is not a multiple of groups.
cudaError_t groupnorm_reference(const groupnorm_reference_args& a, float* y_f32, float* mean_f32, float* rstd_f32,
                                cudaStream_t s);

}  // namespace cuop::reference
