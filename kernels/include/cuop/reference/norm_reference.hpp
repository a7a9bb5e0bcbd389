// Reference row normalizations (LayerNorm, RMSNorm, RMSNorm after the residual add) to verify
// kernels: one block per row, statistics accumulated in double, outputs as float. Plain C++
// header: usable from host-compiled .cpp files. Fills and comparisons are softmax_reference.hpp's.
#pragma once

#include <cuda_runtime_api.h>

#include "cuop/dtype.hpp"

namespace cuop::reference {

struct norm_reference_args {
  bool layernorm = true;  // else RMSNorm
  dtype type = dtype::f32;
  const void* x = nullptr;         // rows x cols, row stride x_stride
  const void* residual = nullptr;  // RMSNorm: rows x cols (row stride residual_stride) added to x first, or null
  const void* weight = nullptr;    // cols, or null (1)
  const void* bias = nullptr;      // LayerNorm: cols, or null (0)
  long long rows = 0, cols = 0, x_stride = 0, residual_stride = 0;
  float eps = 1e-5f;
};

// y_f32 (rows x cols, contiguous): the normalized rows. residual_f32 (rows x cols, contiguous;
// with a residual only, else may be null): residual + x rounded to the element type, as the fused
// kernel writes it back. mean_f32 and rstd_f32 (rows each, may be null): the statistics.
cudaError_t norm_reference(const norm_reference_args& a, float* y_f32, float* residual_f32, float* mean_f32,
                           float* rstd_f32, cudaStream_t s);

// Tolerance (relative, and absolute on values near 0) for normalized outputs of type t over rows
// of `cols` elements: the output type's rounding, and for f32 the float sums' growth with cols.
double norm_tolerance(dtype t, long long cols);

}  // namespace cuop::reference
