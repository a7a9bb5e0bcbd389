// What the normalizations' reference kernels share: elements as doubles, and a block-wide sum in
// double over a fixed block size.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace cuop::reference::detail {

__device__ inline double as_double(float v) { return v; }
__device__ inline double as_double(__half v) { return __half2float(v); }
__device__ inline double as_double(__nv_bfloat16 v) { return __bfloat162float(v); }

// The sum of v over a block of THREADS threads (a power of two), in every thread; `red` holds
// THREADS doubles of shared memory.
template <int THREADS>
__device__ double block_sum(double v, double* red) {
  red[threadIdx.x] = v;
  __syncthreads();
  for (int w = THREADS / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) red[threadIdx.x] += red[threadIdx.x + w];
    __syncthreads();
  }
  const double r = red[0];
  __syncthreads();
  return r;
}

}  // namespace cuop::reference::detail
