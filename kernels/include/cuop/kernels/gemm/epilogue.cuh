// The epilogue the GEMM families share: D = alpha * acc + beta * C for an accumulator pair
// (two adjacent columns of one row, as mma.sync and wgmma hold them), with the output type's
// conversions, stores of both elements at once where D (and C) allow it, and the problem's edges.
// Accepted by nvcc and NVRTC alike: no host standard headers.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "cuop/kernels/gemm/args.cuh"

namespace cuop::kernels::gemm::detail {

// Output element conversions.
template <typename T> struct out_traits;
template <> struct out_traits<float> {
  static __device__ __forceinline__ float load(const float* p) { return *p; }
  static __device__ __forceinline__ void load2(const float* p, float& x, float& y) {
    const float2 v = *reinterpret_cast<const float2*>(p);
    x = v.x;
    y = v.y;
  }
  static __device__ __forceinline__ void store(float* p, float x) { *p = x; }
  static __device__ __forceinline__ void store2(float* p, float x, float y) {
    *reinterpret_cast<float2*>(p) = make_float2(x, y);
  }
};
template <> struct out_traits<__half> {
  static __device__ __forceinline__ float load(const __half* p) { return __half2float(*p); }
  static __device__ __forceinline__ void load2(const __half* p, float& x, float& y) {
    const float2 v = __half22float2(*reinterpret_cast<const __half2*>(p));
    x = v.x;
    y = v.y;
  }
  static __device__ __forceinline__ void store(__half* p, float x) { *p = __float2half_rn(x); }
  static __device__ __forceinline__ void store2(__half* p, float x, float y) {
    *reinterpret_cast<__half2*>(p) = __floats2half2_rn(x, y);
  }
};
template <> struct out_traits<__nv_bfloat16> {
  static __device__ __forceinline__ float load(const __nv_bfloat16* p) { return __bfloat162float(*p); }
  static __device__ __forceinline__ void load2(const __nv_bfloat16* p, float& x, float& y) {
    const float2 v = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(p));
    x = v.x;
    y = v.y;
  }
  static __device__ __forceinline__ void store(__nv_bfloat16* p, float x) { *p = __float2bfloat16_rn(x); }
  static __device__ __forceinline__ void store2(__nv_bfloat16* p, float x, float y) {
    *reinterpret_cast<__nv_bfloat162*>(p) = __floats2bfloat162_rn(x, y);
  }
};

// Whether pairs of elements of a matrix at p with leading dimension ld are aligned as one access.
template <typename TOut>
__device__ __forceinline__ bool pairs_ok(const void* p, long long ld) {
  return reinterpret_cast<unsigned long long>(p) % (2 * sizeof(TOut)) == 0 && ld % 2 == 0;
}

// D = alpha * acc + beta * C for the element pair (r, c), (r, c + 1).
template <typename TOut>
__device__ __forceinline__ void store_pair(const gemm_args& a, int r, int c, float x, float y,
                                                  bool d_vec, bool c_vec) {
  if (r >= a.m || c >= a.n) return;
  const bool both = c + 1 < a.n;
  x *= a.alpha;
  y *= a.alpha;
  if (a.beta != 0.f) {
    const TOut* cp = static_cast<const TOut*>(a.c) + static_cast<long long>(r) * a.ldc + c;
    float cx, cy = 0.f;
    if (both && c_vec) {
      out_traits<TOut>::load2(cp, cx, cy);
    } else {
      cx = out_traits<TOut>::load(cp);
      if (both) cy = out_traits<TOut>::load(cp + 1);
    }
    x = fmaf(a.beta, cx, x);
    y = fmaf(a.beta, cy, y);
  }
  TOut* dp = static_cast<TOut*>(a.d) + static_cast<long long>(r) * a.ldd + c;
  if (both && d_vec) {
    out_traits<TOut>::store2(dp, x, y);
  } else {
    out_traits<TOut>::store(dp, x);
    if (both) out_traits<TOut>::store(dp + 1, y);
  }
}

}  // namespace cuop::kernels::gemm::detail
