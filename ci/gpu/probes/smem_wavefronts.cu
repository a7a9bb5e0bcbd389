// Device probe (under Nsight Compute, ci/gpu/probes/smem_wavefronts.sh): the shared-memory
// wavefronts of stage 3's store-phase loads in isolation. Lane 4a + q reads word a (+ 8 on odd
// warps) of plane q, planes STRIDE words apart, eight loads at j * 4 * STRIDE, as
// depthwise_mma::store_tile does on c32 tiles (STRIDE 680 there); other strides and a lane order
// with the plane slowest beside it, and the words OFF further on (stage 3's rows are 20 words).
// One launch each.
#include <cuda_runtime.h>
#include <cstdio>
template <int STRIDE, bool QFAST, bool STORE, int OFF = 0>
__global__ void pattern(unsigned* out, int iters) {
  extern __shared__ unsigned sm[];
  const int lane = threadIdx.x % 32, w = threadIdx.x / 32;
  const int q = QFAST ? lane % 4 : lane / 8, a = QFAST ? lane / 4 : lane % 8;
  for (int i = threadIdx.x; i < 8 * 4 * STRIDE; i += blockDim.x) sm[i] = i;
  __syncthreads();
  unsigned acc = 0;
  const int base = q * STRIDE + (w % 2) * 8 + a + OFF;
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      if (STORE) sm[j * 4 * STRIDE + base] = it + j;
      else acc += sm[j * 4 * STRIDE + base];
    }
    __syncwarp();
  }
  if (acc == 12345) out[0] = acc;
}
int main() {
  unsigned* out; cudaMalloc(&out, 4);
  auto run = [&](auto k, const char* name, int stride) {
    cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 8 * 4 * stride * 4 + 256);
    k<<<132, 256, 8 * 4 * stride * 4 + 256>>>(out, 64);
    cudaDeviceSynchronize();
    printf("%s %s\n", name, cudaGetErrorString(cudaGetLastError()));
  };
  run(pattern<680, true, false>, "ld stride680 qfast", 680);
  run(pattern<680, true, true>, "st stride680 qfast", 680);
  run(pattern<680, false, false>, "ld stride680 afast", 680);
  run(pattern<672, true, false>, "ld stride672 qfast", 672);
  run(pattern<676, true, false>, "ld stride676 qfast", 676);
  run(pattern<688, true, false>, "ld stride688 qfast", 688);
  run(pattern<696, true, false>, "ld stride696 qfast", 696);
  run(pattern<680, true, false, 4>, "ld stride680 qfast offset 4", 680);
  run(pattern<680, true, false, 20>, "ld stride680 qfast offset 20 (one plane row down)", 680);
  run(pattern<680, true, true, 20>, "st stride680 qfast offset 20", 680);
  return 0;
}
