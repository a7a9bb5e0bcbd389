#include "cuop/reference/conv_reference.hpp"

#include "by_dtype.cuh"

#include <cuda_runtime.h>

namespace cuop::reference {

namespace {

namespace kc = kernels::conv;

constexpr int threads = 256;
constexpr long long max_blocks = 65535;

__device__ double to_double(float v) { return v; }
__device__ double to_double(__half v) { return __half2float(v); }
__device__ double to_double(__nv_bfloat16 v) { return __bfloat162float(v); }

// One thread per output element, in the output's memory order: the (C / groups) x R x S sum in
// f64 of the inputs as stored, rounded once to f32. The loop nest is conv2d_reference_cpu's.
template <typename T>
__global__ void reference_kernel(kc::conv_shape sh, long long p_out, long long q_out, const T* x, const T* w,
                                 float* ref) {
  const bool nhwc = sh.lay == kc::layout::nhwc;
  const long long cg = sh.c / sh.groups, kg = sh.k / sh.groups;
  const long long count = static_cast<long long>(sh.n) * sh.k * p_out * q_out;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    long long n, k, p, q;
    if (nhwc) {
      k = i % sh.k;
      q = i / sh.k % q_out;
      p = i / sh.k / q_out % p_out;
      n = i / sh.k / q_out / p_out;
    } else {
      q = i % q_out;
      p = i / q_out % p_out;
      k = i / q_out / p_out % sh.k;
      n = i / q_out / p_out / sh.k;
    }
    const long long g = k / kg;
    double acc = 0;
    for (long long cc = 0; cc < cg; ++cc)
      for (long long r = 0; r < sh.r; ++r) {
        const long long h = p * sh.stride_h - sh.pad_h + r * sh.dil_h;
        if (h < 0 || h >= sh.h) continue;
        for (long long s = 0; s < sh.s; ++s) {
          const long long wi = q * sh.stride_w - sh.pad_w + s * sh.dil_w;
          if (wi < 0 || wi >= sh.w) continue;
          const long long c = g * cg + cc;
          const long long xi = nhwc ? ((n * sh.h + h) * sh.w + wi) * sh.c + c : ((n * sh.c + c) * sh.h + h) * sh.w + wi;
          const long long fi = nhwc ? ((k * sh.r + r) * sh.s + s) * cg + cc : ((k * cg + cc) * sh.r + r) * sh.s + s;
          acc += to_double(x[xi]) * to_double(w[fi]);
        }
      }
    ref[i] = static_cast<float>(acc);
  }
}

}  // namespace

cudaError_t conv2d_reference(dtype t, const kc::conv_shape& sh, const void* x, const void* w, float* ref,
                             cudaStream_t s) {
  const long long count = static_cast<long long>(sh.n) * sh.k * sh.p() * sh.q();
  const long long b = (count + threads - 1) / threads;
  const unsigned blocks = static_cast<unsigned>(b < 1 ? 1 : (b > max_blocks ? max_blocks : b));
  return detail::by_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    reference_kernel<T>
        <<<blocks, threads, 0, s>>>(sh, sh.p(), sh.q(), static_cast<const T*>(x), static_cast<const T*>(w), ref);
    return cudaGetLastError();
  });
}

}  // namespace cuop::reference
