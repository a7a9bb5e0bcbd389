#include "cuop/reference/groupnorm_reference.hpp"

#include "by_dtype.cuh"
#include "double_sums.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace cuop::reference {

namespace {

using detail::as_double;

constexpr int threads = 256;
constexpr long long max_blocks = 65535;

// Element k (0 .. cg * hw) of group (sample s, group g): its offset in the tensor and channel.
struct element {
  long long at, channel;
};

__device__ element element_of(const groupnorm_reference_args& a, long long s, long long g, long long k) {
  const long long cg = a.c / a.groups;
  if (!a.nhwc) {
    const long long ch = g * cg + k / a.hw;
    return {(s * a.c + ch) * a.hw + k % a.hw, ch};
  }
  const long long p = k / cg, ch = g * cg + k % cg;
  return {(s * a.hw + p) * a.c + ch, ch};
}

template <typename T>
__global__ void reference_kernel(groupnorm_reference_args a, float* y, float* mean_out, float* rstd_out) {
  __shared__ double red[threads];
  const T* x = static_cast<const T*>(a.x);
  const long long size = a.c / a.groups * a.hw;
  for (long long grp = blockIdx.x; grp < a.n * a.groups; grp += gridDim.x) {
    const long long s = grp / a.groups, g = grp % a.groups;
    double sum = 0;
    for (long long k = threadIdx.x; k < size; k += threads) sum += as_double(x[element_of(a, s, g, k).at]);
    const double mean = detail::block_sum<threads>(sum, red) / static_cast<double>(size);
    double s2 = 0;
    for (long long k = threadIdx.x; k < size; k += threads) {
      const double d = as_double(x[element_of(a, s, g, k).at]) - mean;
      s2 += d * d;
    }
    const double rstd =
        1.0 / sqrt(detail::block_sum<threads>(s2, red) / static_cast<double>(size) + static_cast<double>(a.eps));
    for (long long k = threadIdx.x; k < size; k += threads) {
      const element e = element_of(a, s, g, k);
      const double w = a.weight ? as_double(static_cast<const T*>(a.weight)[e.channel]) : 1.0;
      const double b = a.bias ? as_double(static_cast<const T*>(a.bias)[e.channel]) : 0.0;
      double o = (as_double(x[e.at]) - mean) * rstd * w + b;
      if (a.silu) o = o / (1.0 + exp(-o));
      y[e.at] = static_cast<float>(o);
    }
    if (threadIdx.x == 0) {
      if (mean_out) mean_out[grp] = static_cast<float>(mean);
      if (rstd_out) rstd_out[grp] = static_cast<float>(rstd);
    }
  }
}

}  // namespace

cudaError_t groupnorm_reference(const groupnorm_reference_args& a, float* y_f32, float* mean_f32, float* rstd_f32,
                                cudaStream_t s) {
  if (a.groups < 1 || a.c < 1 || a.c % a.groups != 0) return cudaErrorInvalidValue;
  if (a.n <= 0 || a.hw <= 0) return cudaSuccess;
  if (a.x == nullptr || y_f32 == nullptr) return cudaErrorInvalidValue;
  const long long groups = a.n * a.groups;
  const unsigned grid = static_cast<unsigned>(groups < max_blocks ? groups : max_blocks);
  return detail::by_dtype(a.type, [&](auto tag) {
    using T = decltype(tag);
    reference_kernel<T><<<grid, threads, 0, s>>>(a, y_f32, mean_f32, rstd_f32);
    return cudaGetLastError();
  });
}

}  // namespace cuop::reference
