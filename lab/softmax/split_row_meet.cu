// Lab probe (lab/softmax/split_row_meet.sh compiles it against header variants; the lab's CMake
// build compiles it against the tree): split_row with one block per (row, segment) on 256x262144 f32, block_row on 1024x65536 (the same bytes, no
// meet) and a device copy of them, CUDA events around single launches after a 256 MB read flush,
// median of 30. Prints "== <variant>" (CUOP_PROBE_VARIANT) and a line per kernel.
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <vector>
#include "cuop/kernels/softmax/block_row.cuh"
#include "cuop/kernels/softmax/launch.hpp"
#include "cuop/kernels/softmax/split_row.cuh"
#include "probe_timing.hpp"
namespace ks = cuop::kernels::softmax;
template <typename K>
__global__ void __launch_bounds__(K::block_threads) entry(ks::softmax_args a) {
  K::run(a);
}
#define CK(x)                                        \
  do {                                               \
    cudaError_t e = (x);                             \
    if (e != cudaSuccess) {                          \
      printf("%s: %s\n", #x, cudaGetErrorString(e)); \
      exit(1);                                       \
    }                                                \
  } while (0)
const probe::l2_flush* flush;  // 256 MB
template <typename F>
float median_us(F f) {
  return probe::median_us(f, *flush, 30, 3);
}
template <typename K>
void run(const char* name, ks::softmax_config c, long long rows, long long cols, float* in, float* out) {
  const void* k = reinterpret_cast<const void*>(&entry<K>);
  ks::device_limits dev;
  CK(ks::query_limits(0, k, c, dev));
  ks::launch_plan p;
  auto why = ks::plan_launch(c, rows, cols, dev, p);
  if (!why.empty()) {
    printf("%s: %s\n", name, why.c_str());
    return;
  }
  void* ws = nullptr;
  if (p.workspace_bytes) {
    CK(cudaMalloc(&ws, p.workspace_bytes));
    CK(cudaMemset(ws, 0, p.workspace_bytes));
  }
  ks::softmax_args a{in, out, rows, cols, cols, cols, ws};
  float us = median_us([&] { CK(ks::launch(k, p, a, nullptr)); });
  printf("%-44s %9.2f us %7.0f GB/s\n", name, us, 2.0 * rows * cols * 4 / us / 1e3);
  cudaFree(ws);
}
ks::softmax_config cfg(ks::family f, int threads, int chunks, int smem) {
  ks::softmax_config c;
  c.fam = f;
  c.type = cuop::dtype::f32;
  c.vec = 4;
  c.block_threads = threads;
  c.chunks = chunks;
  c.persistent = 0;
  c.smem_chunks = smem;
  return c;
}
int main() {
  float *in, *out;
  const long long n = 256ll * 262144;
  const probe::l2_flush flush256(256ull << 20);
  flush = &flush256;
  CK(cudaMalloc(&in, n * 4));
  CK(cudaMalloc(&out, n * 4));
  CK(cudaMemset(in, 0, n * 4));
#ifdef CUOP_PROBE_VARIANT
  printf("== %s\n", CUOP_PROBE_VARIANT);
#endif
  run<ks::split_row<float, 4, 512, 8, 0, 8>>("256x262144 split_row_vec4_threads512_chunks8_persistent0_smemchunks8",
                                             cfg(ks::family::split_row, 512, 8, 8), 256, 262144, in, out);
  run<ks::split_row<float, 4, 256, 6, 0, 10>>("256x262144 split_row_vec4_threads256_chunks6_persistent0_smemchunks10",
                                              cfg(ks::family::split_row, 256, 6, 10), 256, 262144, in, out);
  run<ks::split_row<float, 4, 1024, 4, 0, 12>>("256x262144 split_row_vec4_threads1024_chunks4_persistent0_smemchunks12",
                                               cfg(ks::family::split_row, 1024, 4, 12), 256, 262144, in, out);
  run<ks::block_row<float, 4, 1024, 4, 0, 12>>("1024x65536 block_row_vec4_threads1024_chunks4_persistent0_smemchunks12",
                                               cfg(ks::family::block_row, 1024, 4, 12), 1024, 65536, in, out);
  float us = median_us([&] { CK(cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice)); });
  printf("%-44s %9.2f us %7.0f GB/s\n", "copy 256 MB", us, 2.0 * n * 4 / us / 1e3);
}
