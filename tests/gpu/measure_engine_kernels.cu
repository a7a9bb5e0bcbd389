// Kernels the measurement engine's GPU tests time: a scaled copy whose length is set by the
// element count (tests/gpu/measure_engine_test.cpp).
#include <cuda_runtime.h>

#include "measure_engine_kernels.hpp"

namespace {

__global__ void scaled_copy(const float* in, float* out, long long n, float scale) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    out[i] = in[i] * scale;
}

}  // namespace

namespace cuop::test {

cudaError_t launch_scaled_copy(const float* in, float* out, long long n, float scale, cudaStream_t stream) {
  const long long blocks = (n + 255) / 256;
  scaled_copy<<<static_cast<unsigned>(blocks < 4096 ? blocks : 4096), 256, 0, stream>>>(in, out, n, scale);
  return cudaGetLastError();
}

}  // namespace cuop::test
