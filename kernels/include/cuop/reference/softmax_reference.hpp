// Reference softmax and the device utilities used to verify kernels: random fill, NaN poisoning,
// an obviously correct softmax (double accumulation, one block per row) and a comparison that
// counts bad elements. Plain C++ header: usable from host-compiled .cpp files.
#pragma once

#include <cuda_runtime_api.h>

#include "cuop/dtype.hpp"

namespace cuop::reference {

// Uniform values in [lo, hi] from a hash of (seed, index): deterministic, never all zeros.
cudaError_t fill_random(dtype t, void* data, long long count, unsigned long long seed, float lo, float hi,
                        cudaStream_t s);

// Quiet NaN in every element: outputs are poisoned with it before a kernel runs.
cudaError_t fill_nan(dtype t, void* data, long long count, cudaStream_t s);

// out_f32 (rows x cols, contiguous) = softmax of each row of `in` (row stride in_stride).
cudaError_t softmax_reference(dtype t, const void* in, long long rows, long long cols, long long in_stride,
                              float* out_f32, cudaStream_t s);

struct compare_result {
  double max_abs_err = 0;
  double max_rel_err = 0;  // relative to |ref|, over elements with ref != 0
  long long bad = 0;       // |out - ref| > atol + rtol * |ref|, or out not finite
  long long nan_count = 0;
  long long first_bad_row = -1, first_bad_col = -1;  // lowest row-major index, -1 if none
};

// Compares `out` (row stride out_stride) with `ref` (contiguous); synchronizes `s`.
cudaError_t compare_softmax(dtype t, const void* out, long long rows, long long cols, long long out_stride,
                            const float* ref, double atol, double rtol, compare_result* result_host, cudaStream_t s);

// Tolerances for softmax outputs of type t over rows of `cols` elements: rtol covers rounding of
// the output type; atol, scaled by the mean probability 1/cols, covers the smallest values.
double softmax_rtol(dtype t);
double softmax_tolerance(dtype t, long long cols);

}  // namespace cuop::reference
