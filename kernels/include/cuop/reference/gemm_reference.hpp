// Reference GEMM used to verify kernels: one thread per output element, f64 accumulation of
// products of the f16/bf16 inputs, so it is obviously correct rather than fast; and a
// comparison with a tolerance derived from K and the output type. Plain C++ header.
#pragma once

#include <cuda_runtime_api.h>

#include "cuop/dtype.hpp"
#include "cuop/reference/softmax_reference.hpp"  // fill_random, fill_nan, compare_result

namespace cuop::reference {

// ref_f32 (m x n, contiguous) = alpha * A * B + beta * C. A row-major (lda), B row-major
// (b_col_major false: B[k * ldb + n]) or column-major (B[n * ldb + k]); C (type out, ldc) is
// read only when beta != 0.
cudaError_t gemm_reference(dtype in, dtype out, bool b_col_major, const void* a, long long lda, const void* b,
                           long long ldb, const void* c, long long ldc, int m, int n, int k, float alpha, float beta,
                           float* ref_f32, cudaStream_t s);

// Compares D (type out, ldd) with the reference; synchronizes `s`.
cudaError_t compare_gemm(dtype out, const void* d, long long ldd, int m, int n, const float* ref, double atol,
                         double rtol, compare_result* result_host, cudaStream_t s);

// Tolerances for a K-long f32-accumulated dot product of inputs in [-1, 1] written as `out`:
// rtol covers the output rounding, atol the accumulation-order error growing with sqrt(K).
double gemm_rtol(dtype out);
double gemm_atol(dtype in, dtype out, int k);

}  // namespace cuop::reference
