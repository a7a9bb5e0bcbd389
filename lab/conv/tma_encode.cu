// Lab probe: what mma_tma's per-call tensor map costs the host. kc::launch(config, ...) encodes
// x's map (kc::make_tma_input, the driver's cuTensorMapEncodeTiled) on every call. This times, on
// the host, for the dispatched mma_tma configurations of the 7x7 NHWC layers:
//   encode    make_tma_input alone, the median of batches of 1000 calls, per call;
//   launch    the enqueue of an empty kernel that takes (conv_args) as mma's entry does, and
//             of one that takes (conv_args, __grid_constant__ tma_input) as mma_tma's, map made
//             per call as kc::launch makes it: the median of batches of 200 enqueues (the stream
//             drained between batches, so the queue never blocks), per call.
// Usage: tma_encode. docs/conv.md (mma_tma) cites what it found.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "cuop/kernels/conv/launch.hpp"

namespace kc = cuop::kernels::conv;

__global__ void empty_args(kc::conv_args) {}
__global__ void empty_args_map(kc::conv_args, const __grid_constant__ kc::tma_input) {}

namespace {

using clock_type = std::chrono::steady_clock;

template <typename F>
double median_us_per_call(int batches, int calls, F&& f, bool drain) {
  std::vector<double> per_call;
  for (int b = 0; b < batches; ++b) {
    if (drain) cudaDeviceSynchronize();
    const auto t0 = clock_type::now();
    for (int i = 0; i < calls; ++i) f();
    const auto t1 = clock_type::now();
    per_call.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / calls);
  }
  std::sort(per_call.begin(), per_call.end());
  return per_call[per_call.size() / 2];
}

struct layer {
  const char* name;
  int n, h, w, c, block_c, tile_h, tile_w;
};

}  // namespace

int main() {
  const layer layers[] = {{"32x56x56x128", 32, 56, 56, 128, 32, 16, 32},
                          {"32x28x28x256", 32, 28, 28, 256, 32, 28, 32},
                          {"32x28x28x512", 32, 28, 28, 512, 32, 16, 32},
                          {"16x64x64x384", 16, 64, 64, 384, 32, 16, 32}};
  std::printf(
      "| layer (f16 NHWC 7x7; mma_tma, c32, box of its tile) | encode us | launch, conv_args us | "
      "launch, conv_args + map made per call us | map valid |\n| --- | ---: | ---: | ---: | --- |\n");
  for (const auto& l : layers) {
    void *x = nullptr, *y = nullptr, *w = nullptr;
    const size_t bytes = static_cast<size_t>(l.n) * l.h * l.w * l.c * 2;
    cudaMalloc(&x, bytes);
    cudaMalloc(&y, bytes);
    cudaMalloc(&w, static_cast<size_t>(l.c) * 49 * 2);
    kc::depthwise_config cfg;
    cfg.t = cuop::dtype::f16;
    cfg.r = cfg.s = 7;
    cfg.vec = 8;
    cfg.cvecs = 4;
    cfg.block_c = l.block_c;
    cfg.tile_h = l.tile_h;
    cfg.tile_w = l.tile_w;
    cfg.ph = cfg.pw = 1;
    cfg.algo = kc::depthwise_algo::mma_tma;
    kc::conv_args a{};
    a.x = x;
    a.w = w;
    a.y = y;
    a.n = l.n;
    a.c = l.c;
    a.h = l.h;
    a.w_ = l.w;
    a.k = l.c;
    a.p = l.h;
    a.q = l.w;
    a.r = a.s = 7;
    a.stride_h = a.stride_w = a.dil_h = a.dil_w = 1;
    a.pad_h = a.pad_w = 3;
    a.groups = l.c;
    a.alpha = 1.f;
    kc::tma_input in;
    kc::make_tma_input(cfg, a, in);
    const int valid = in.valid;
    const double encode = median_us_per_call(
        21, 1000, [&] { kc::make_tma_input(cfg, a, in); }, false);
    const double plain = median_us_per_call(
        51, 200, [&] { empty_args<<<1, 32>>>(a); }, true);
    const double with_map = median_us_per_call(
        51, 200,
        [&] {
          kc::tma_input m;
          kc::make_tma_input(cfg, a, m);
          empty_args_map<<<1, 32>>>(a, m);
        },
        true);
    if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) {
      std::printf("CUDA error: %s\n", cudaGetErrorString(e));
      return 1;
    }
    std::printf("| %s | %.3f | %.3f | %.3f | %s |\n", l.name, encode, plain, with_map, valid ? "yes" : "no");
    cudaFree(x);
    cudaFree(y);
    cudaFree(w);
  }
  return 0;
}
