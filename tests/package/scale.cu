// The consumer's own kernel: its project compiles CUDA for its own architectures.
#include <cuda_runtime_api.h>

__global__ void scale(float* x, float a) { x[threadIdx.x] *= a; }

void scale_on_device() {
  float* x = nullptr;
  if (cudaMalloc(&x, 32 * sizeof(float)) != cudaSuccess) return;
  scale<<<1, 32>>>(x, 2.f);
  cudaFree(x);
}
