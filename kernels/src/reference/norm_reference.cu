#include "cuop/reference/norm_reference.hpp"

#include "by_dtype.cuh"
#include "double_sums.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace cuop::reference {

namespace {

constexpr int threads = 256;
constexpr long long max_blocks = 65535;

__device__ float as_float(float v) { return v; }
__device__ float as_float(__half v) { return __half2float(v); }
__device__ float as_float(__nv_bfloat16 v) { return __bfloat162float(v); }

// The element type's rounding of a float, back as float.
__device__ float round_to(float v, float) { return v; }
__device__ float round_to(float v, __half) { return __half2float(__float2half_rn(v)); }
__device__ float round_to(float v, __nv_bfloat16) { return __bfloat162float(__float2bfloat16_rn(v)); }

// Element c of row r as the kernel normalizes it: x, or the residual sum rounded to T.
template <typename T>
__device__ double value_at(const norm_reference_args& a, long long r, long long c) {
  const float x = as_float(static_cast<const T*>(a.x)[r * a.x_stride + c]);
  if (a.layernorm || a.residual == nullptr) return x;
  const float res = as_float(static_cast<const T*>(a.residual)[r * a.residual_stride + c]);
  return round_to(x + res, T{});
}

template <typename T>
__device__ double param_at(const void* p, long long c, double none) {
  return p ? as_float(static_cast<const T*>(p)[c]) : none;
}

template <typename T>
__global__ void reference_kernel(norm_reference_args a, float* y, float* residual, float* mean_out, float* rstd_out) {
  __shared__ double red[threads];
  const double n = static_cast<double>(a.cols);
  for (long long r = blockIdx.x; r < a.rows; r += gridDim.x) {
    double mean = 0;
    if (a.layernorm) {
      double s = 0;
      for (long long c = threadIdx.x; c < a.cols; c += threads) s += value_at<T>(a, r, c);
      mean = detail::block_sum<threads>(s, red) / n;
    }
    double s2 = 0;
    for (long long c = threadIdx.x; c < a.cols; c += threads) {
      const double d = value_at<T>(a, r, c) - mean;
      s2 += d * d;
    }
    const double rstd = 1.0 / sqrt(detail::block_sum<threads>(s2, red) / n + static_cast<double>(a.eps));
    for (long long c = threadIdx.x; c < a.cols; c += threads) {
      const double v = value_at<T>(a, r, c);
      double o = (v - mean) * rstd * param_at<T>(a.weight, c, 1.0);
      if (a.layernorm) o += param_at<T>(a.bias, c, 0.0);
      y[r * a.cols + c] = static_cast<float>(o);
      if (residual && !a.layernorm && a.residual) residual[r * a.cols + c] = static_cast<float>(v);
    }
    if (threadIdx.x == 0) {
      if (mean_out) mean_out[r] = static_cast<float>(mean);
      if (rstd_out) rstd_out[r] = static_cast<float>(rstd);
    }
  }
}

}  // namespace

cudaError_t norm_reference(const norm_reference_args& a, float* y_f32, float* residual_f32, float* mean_f32,
                           float* rstd_f32, cudaStream_t s) {
  if (a.rows <= 0 || a.cols <= 0) return cudaSuccess;
  if (a.x == nullptr || y_f32 == nullptr) return cudaErrorInvalidValue;
  const unsigned grid = static_cast<unsigned>(a.rows < max_blocks ? a.rows : max_blocks);
  return detail::by_dtype(a.type, [&](auto tag) {
    using T = decltype(tag);
    reference_kernel<T><<<grid, threads, 0, s>>>(a, y_f32, residual_f32, mean_f32, rstd_f32);
    return cudaGetLastError();
  });
}

double norm_tolerance(dtype t, long long cols) {
  switch (t) {
    case dtype::f32: return 2e-5 + 2e-10 * static_cast<double>(cols);
    case dtype::f16: return 2e-3;
    case dtype::bf16: return 8e-3;
  }
  return 0;
}

}  // namespace cuop::reference
