// Kernels for tests/gpu/measure_engine_test.cpp (compiled by nvcc in measure_engine_kernels.cu).
#pragma once

#include <cuda_runtime_api.h>

namespace cuop::test {

// out[i] = in[i] * scale for i < n, grid-stride.
cudaError_t launch_scaled_copy(const float* in, float* out, long long n, float scale, cudaStream_t stream);

}  // namespace cuop::test
