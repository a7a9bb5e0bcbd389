#include "cuop/reference/gemm_reference.hpp"

#include "by_dtype.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>

namespace cuop::reference {

namespace {

constexpr int threads = 256;
constexpr long long max_blocks = 65535;

__device__ double to_double(float v) { return v; }
__device__ double to_double(__half v) { return __half2float(v); }
__device__ double to_double(__nv_bfloat16 v) { return __bfloat162float(v); }

// One thread per output element: the K-long dot product of the 16-bit inputs in f64 (every
// product of two f16 or bf16 values, and the sum of up to 2^29 of them in [-1, 1], is exact or
// nearly so in f64), then alpha and beta * C, rounded once to f32.
template <typename TIn, typename TOut, bool B_COL>
__global__ void reference_kernel(const TIn* a, long long lda, const TIn* b, long long ldb, const TOut* c, long long ldc,
                                 int m, int n, int k, float alpha, float beta, float* ref) {
  const long long count = static_cast<long long>(m) * n;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long row = i / n, col = i % n;
    const TIn* ar = a + row * lda;
    double sum = 0;
    for (int kk = 0; kk < k; ++kk) {
      const TIn bv = B_COL ? b[col * ldb + kk] : b[static_cast<long long>(kk) * ldb + col];
      sum += to_double(ar[kk]) * to_double(bv);
    }
    double r = static_cast<double>(alpha) * sum;
    if (beta != 0.f) r += static_cast<double>(beta) * to_double(c[row * ldc + col]);
    ref[i] = static_cast<float>(r);
  }
}

unsigned blocks_for(long long work) {
  const long long b = (work + threads - 1) / threads;
  return static_cast<unsigned>(b < 1 ? 1 : (b > max_blocks ? max_blocks : b));
}

template <typename F>
cudaError_t by_input(dtype t, F&& f) {
  switch (t) {
    case dtype::f16: return f(__half{});
    case dtype::bf16: return f(__nv_bfloat16{});
    case dtype::f32: break;
  }
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t gemm_reference(dtype in, dtype out, bool b_col_major, const void* a, long long lda, const void* b,
                           long long ldb, const void* c, long long ldc, int m, int n, int k, float alpha, float beta,
                           float* ref_f32, cudaStream_t s) {
  if (m <= 0 || n <= 0) return cudaSuccess;
  if (k < 0) return cudaErrorInvalidValue;
  if (beta != 0.f && c == nullptr) return cudaErrorInvalidValue;
  const unsigned grid = blocks_for(static_cast<long long>(m) * n);
  return by_input(in, [&](auto in_tag) {
    using TIn = decltype(in_tag);
    return detail::by_dtype(out, [&](auto out_tag) {
      using TOut = decltype(out_tag);
      const TIn* ap = static_cast<const TIn*>(a);
      const TIn* bp = static_cast<const TIn*>(b);
      const TOut* cp = static_cast<const TOut*>(c);
      if (b_col_major)
        reference_kernel<TIn, TOut, true>
            <<<grid, threads, 0, s>>>(ap, lda, bp, ldb, cp, ldc, m, n, k, alpha, beta, ref_f32);
      else
        reference_kernel<TIn, TOut, false>
            <<<grid, threads, 0, s>>>(ap, lda, bp, ldb, cp, ldc, m, n, k, alpha, beta, ref_f32);
      return cudaGetLastError();
    });
  });
}

// D is an m x n matrix of rows ldd apart, as a softmax output is: the same element-wise check.
cudaError_t compare_gemm(dtype out, const void* d, long long ldd, int m, int n, const float* ref, double atol,
                         double rtol, compare_result* result_host, cudaStream_t s) {
  return compare_softmax(out, d, m, n, ldd, ref, atol, rtol, result_host, s);
}

// Tolerances, for A and B uniform in [-1, 1] (then rounded to the input type; the reference uses
// the same rounded values, so that rounding is no error), f32 accumulation, |alpha| <= 1 and
// |beta * C| <= 1.
//
// Products. A product of two f16 (11-bit significands) or bf16 (8-bit) values has at most 22
// significant bits: exact in f32, whether the kernel multiplies and adds separately or fuses.
// The input type does not enter the tolerance.
//
// Accumulation. Each f32 addition rounds with a relative error of at most u = 2^-24, modelled as
// independent and uniform: variance u^2 s^2 / 3 for a partial sum s. A term a*b has mean 0 and
// variance E[a^2] E[b^2] = 1/9, so a partial sum of j terms has E[s^2] = j / 9. The worst common
// order, one sequential chain of K additions, accumulates
//     var = sum_{j<=K} u^2 (j / 9) / 3 ~= u^2 K^2 / 54,   sigma = u sqrt(K) sqrt(K / 54),
// the first sqrt(K) from the random walk of the K rounding errors, the second from the partial
// sums growing like sqrt(j). Blocked orders are smaller: L sequential additions of blocks of K/L
// terms give sigma = u sqrt(K L / 54) (L = K/32 for a warp splitting K, K/16 for an mma chain).
// atol = 8 sigma of the sequential chain covers every order with a wide margin (a false failure
// needs an 8-sigma event), yet stays far below what a lost, doubled or misplaced product or
// block of K changes (about 1/3 per product on average).
// Tensor cores break the model: their f32 accumulation does not round to nearest (it behaves like
// truncation), so the errors are biased and grow like K. Measured on the H200 at K = 4097 with
// f32 output, both our mma kernel and cuBLASLt's reach 3.5e-4 to 5.0e-4, twice the 8-sigma bound
// above. The accumulation term is therefore max(8 sigma, 4 u K): 9.8e-4 at K = 4097, a margin of
// two over what was seen, still three orders below a lost product. The epilogue alpha * acc + beta * C adds
// two roundings of values below sqrt(K) + 1 in magnitude: 4 u (sqrt(K) + 1) more.
//
// Output. Rounding to the output type is relative to the value: at most half its spacing, 2^-8
// of the value for bf16 (8 significant bits), 2^-11 for f16 (11 bits); the reference is itself
// rounded from f64 to f32 (2^-24). rtol carries these with a margin of a quarter; f16 outputs
// below 2^-14 are subnormal with an absolute spacing of 2^-24, which atol covers.
double gemm_rtol(dtype out) {
  switch (out) {
    case dtype::f32: return 16 * 0x1p-24;  // accumulated f32 order effects near |ref|
    case dtype::f16: return 0x1p-11 + 0x1p-13;
    case dtype::bf16: return 0x1p-8 + 0x1p-10;
  }
  return 0;
}

double gemm_atol(dtype in, dtype out, int k) {
  (void)in;  // exact products for f16 and bf16 alike (see above)
  const double u = 0x1p-24;
  const double kk = k < 1 ? 1.0 : static_cast<double>(k);
  const double accumulate = std::max(8 * u * kk / std::sqrt(54.0), 4 * u * kk);
  const double epilogue = 4 * u * (std::sqrt(kk) + 1);
  const double subnormal = out == dtype::f16 ? 0x1p-24 : 0.0;
  return accumulate + epilogue + subnormal;
}

}  // namespace cuop::reference
