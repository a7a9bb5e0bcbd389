// Device probe of the tensor-core depthwise kernel (stage 3, kernels/include/cuop/kernels/conv/
// depthwise_mma.cuh): where its time goes. Each layer's stage 3 configuration runs whole and with
// phases left out or doubled (load = the patch's transpose into planes, mma = every warp's
// channels, store = the planes back to NHWC), timed with CUDA events after a 256 MB read flush,
// median of 30. Differences between variants place the time; the answers of partial variants are
// meaningless. `--only NAME` runs one variant of one layer many times (for ncu).
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cuop/kernels/conv/depthwise.cuh"

namespace kc = cuop::kernels::conv;

enum : int { load = 1, mma = 2, store = 4, mma_twice = 8 };

// depthwise_mma::run with phases chosen by MODE.
template <typename K, int MODE>
struct phases : K {
  static __device__ void run(const kc::conv_args& a, void* smem) {
    unsigned* planes = static_cast<unsigned*>(smem);
    const int tiles_w = (a.q + K::tile_w_ - 1) / K::tile_w_;
    typename K::tile_t t;
    t.n = static_cast<int>(blockIdx.z);
    t.c0 = static_cast<int>(blockIdx.y) * K::block_c_;
    t.oh0 = static_cast<int>(blockIdx.x) / tiles_w * K::tile_h_;
    t.ow0 = static_cast<int>(blockIdx.x) % tiles_w * K::tile_w_;
    t.ih0 = t.oh0 - a.pad_h;
    t.iw0 = t.ow0 - a.pad_w;
    t.vec_ok = true;
    unsigned short* filt = reinterpret_cast<unsigned short*>(static_cast<unsigned char*>(smem) + K::filter_offset);
    if constexpr (MODE & load) K::load_patch(a, t, planes, filt);
    __syncthreads();
    const int warp = static_cast<int>(threadIdx.x) / 32;
    constexpr int reps = MODE & mma_twice ? 2 : MODE & mma ? 1 : 0;
#pragma unroll 1
    for (int rep = 0; rep < reps; ++rep)
#pragma unroll 1
      for (int i = 0; i < K::cpw_; ++i) K::compute_channel(a, t, planes, filt, warp * K::cpw_ + i);
    __syncthreads();
    if constexpr (MODE & store) K::store_tile(a, t, planes);
  }
};

template <typename K>
__global__ void __launch_bounds__(K::block_threads, K::min_blocks) entry(kc::conv_args a) {
  extern __shared__ __align__(16) unsigned char smem[];
  K::run(a, smem);
}

// Stage 3 with its tile parameters visible to the probe.
template <int R, int BLOCK_C, int TILE_H, int TILE_W, int CPW>
struct stage3 : kc::depthwise_mma<__half, R, R, BLOCK_C, TILE_H, TILE_W, CPW> {
  static constexpr int block_c_ = BLOCK_C, tile_h_ = TILE_H, tile_w_ = TILE_W, cpw_ = CPW;
};

__global__ void read_flush(const uint4* p, long long n, unsigned* sink) {
  unsigned acc = 0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    acc ^= __ldcg(p + i).x;
  if (acc == 0x12345678u) *sink = acc;
}

struct layer {
  const char* name;
  int n, hw, c;
};

struct buffers {
  void *x, *w, *y;
  uint4* flush;
  long long flush_n;
  unsigned* sink;
};

template <typename K>
float time_us(const void* kernel, const layer& l, const buffers& b, int repeats) {
  kc::conv_args a{b.x, b.w, b.y, l.n, l.c, l.hw, l.hw, l.c, l.hw, l.hw, 7, 7, 1, 1, 3, 3, 1, 1, l.c, 1.f, 0.f};
  const int tiles = ((l.hw + K::tile_h_ - 1) / K::tile_h_) * ((l.hw + K::tile_w_ - 1) / K::tile_w_);
  const dim3 grid(tiles, (l.c + K::block_c_ - 1) / K::block_c_, l.n);
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, K::smem_bytes);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  std::vector<float> t;
  for (int i = 0; i < repeats; ++i) {
    read_flush<<<1056, 256>>>(b.flush, b.flush_n, b.sink);
    cudaEventRecord(e0);
    void* params[] = {&a};
    cudaLaunchKernel(kernel, grid, dim3(K::block_threads), params, K::smem_bytes, nullptr);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    t.push_back(ms * 1000.f);
  }
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) std::printf("error: %s\n", cudaGetErrorString(err));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <typename K>
void run_layer(const layer& l, const buffers& b, const char* only) {
  struct variant {
    const char* name;
    const void* kernel;
  };
  const variant vs[] = {
      {"full", reinterpret_cast<const void*>(&entry<phases<K, load | mma | store>>)},
      {"load+store", reinterpret_cast<const void*>(&entry<phases<K, load | store>>)},
      {"load+mma", reinterpret_cast<const void*>(&entry<phases<K, load | mma>>)},
      {"mma", reinterpret_cast<const void*>(&entry<phases<K, mma>>)},
      {"load", reinterpret_cast<const void*>(&entry<phases<K, load>>)},
      {"store", reinterpret_cast<const void*>(&entry<phases<K, store>>)},
      {"load+2mma+store", reinterpret_cast<const void*>(&entry<phases<K, load | mma_twice | store>>)},
  };
  std::string line = std::string("| ") + l.name + " |";
  for (const variant& v : vs) {
    if (only && std::strcmp(only, v.name) != 0) continue;
    line += " " + std::to_string(time_us<K>(v.kernel, l, b, only ? 200 : 30)).substr(0, 6) + " |";
  }
  std::printf("%s\n", line.c_str());
}

int main(int argc, char** argv) {
  const char* only = argc > 2 && std::strcmp(argv[1], "--only") == 0 ? argv[2] : nullptr;
  buffers b{};
  const std::size_t bytes = 64ull << 20;  // x and y of the largest layer (16 x 64 x 64 x 384 halves: 48 MiB)
  cudaMalloc(&b.x, bytes);
  cudaMalloc(&b.y, bytes);
  cudaMalloc(&b.w, 1 << 20);
  cudaMemset(b.x, 0x30, bytes);  // halves of 0x3030 (0.13) and 0x2c2c (0.06): nonzero MMAs
  cudaMemset(b.w, 0x2c, 1 << 20);
  b.flush_n = (256ll << 20) / 16;
  cudaMalloc(&b.flush, b.flush_n * 16);
  cudaMemset(b.flush, 0, b.flush_n * 16);
  cudaMalloc(&b.sink, 4);
  std::printf("| layer (f16 nhwc 7x7), stage 3 winner | full | load+store | load+mma | mma | load | store | load+2mma+store |\n");
  std::printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  run_layer<stage3<7, 32, 28, 32, 4>>({"32x28x28x512 c32 t28x32 cv4", 32, 28, 512}, b, only);
  if (only) return 0;
  run_layer<stage3<7, 64, 28, 32, 4>>({"32x28x28x256 c64 t28x32 cv4", 32, 28, 256}, b, only);
  run_layer<stage3<7, 64, 16, 56, 4>>({"32x56x56x128 c64 t16x56 cv4", 32, 56, 128}, b, only);
  run_layer<stage3<7, 32, 16, 32, 4>>({"16x64x64x384 c32 t16x32 cv4", 16, 64, 384}, b, only);
  return 0;
}
