// The depthwise lab probes' layers and tensors (lab/conv/dw_seg.cu): the four 7x7 f16 NHWC layers
// of configs/conv.yaml, input fill, an f32 reference and a comparison in units in the last place.
// Each probe is one translation unit of its own binary that includes this once.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuop/kernels/conv/args.cuh"
#include "probe_timing.hpp"

namespace kc = cuop::kernels::conv;

// Halves in [-1, 1) from a hash of the index: inputs and taps whose every output differs.
__global__ void fill_random(unsigned short* p, long long n, unsigned seed) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    unsigned h = static_cast<unsigned>(i) * 2654435761u ^ seed;
    h ^= h >> 15, h *= 2246822519u, h ^= h >> 13;
    p[i] = __half_as_ushort(__float2half(static_cast<float>(h >> 8) / 8388608.f - 1.f));
  }
}

// The f32 direct convolution of the probes' 7x7 layers (stride 1, pad 3) on the GPU, one thread an
// output, its f32 FMAs in tap order, rounded to f16 once.
__global__ void reference_7x7(const __half* x, const __half* w, __half* y, int n, int h, int wd, int c) {
  constexpr int R = 7, PAD = 3;
  const long long total = static_cast<long long>(n) * h * wd * c;
  for (long long o = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; o < total;
       o += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int ch = static_cast<int>(o % c), ow = static_cast<int>(o / c % wd), oh = static_cast<int>(o / c / wd % h);
    const long long img = o / c / wd / h;
    float acc = 0.f;
    for (int r = 0; r < R; ++r)
      for (int s = 0; s < R; ++s) {
        const int ih = oh - PAD + r, iw = ow - PAD + s;
        const float v =
            ih >= 0 && ih < h && iw >= 0 && iw < wd ? __half2float(x[((img * h + ih) * wd + iw) * c + ch]) : 0.f;
        acc = fmaf(v, __half2float(w[(ch * R + r) * R + s]), acc);
      }
    y[o] = __float2half_rn(acc);
  }
}

struct layer {
  const char* name;
  int n, hw, c;
};

// The four 7x7 f16 NHWC depthwise layers of configs/conv.yaml.
inline constexpr layer l512{"32x28x28x512", 32, 28, 512}, l256{"32x28x28x256", 32, 28, 256};
inline constexpr layer l128{"32x56x56x128", 32, 56, 128}, l384{"16x64x64x384", 16, 64, 384};

struct buffers {
  void *x, *w, *y;
  const probe::l2_flush& flush;
};

// The probes' tensors, x and y of the largest layer (16 x 64 x 64 x 384 halves: 48 MiB) and the
// taps, filled with halves of 0x3030 (0.13) and 0x2c2c (0.06): nonzero MMAs.
constexpr std::size_t probe_bytes = 64ull << 20;
inline buffers make_buffers(const probe::l2_flush& flush) {
  buffers b{nullptr, nullptr, nullptr, flush};
  cudaMalloc(&b.x, probe_bytes);
  cudaMalloc(&b.y, probe_bytes);
  cudaMalloc(&b.w, 1 << 20);
  cudaMemset(b.x, 0x30, probe_bytes);
  cudaMemset(b.w, 0x2c, 1 << 20);
  return b;
}
// Inputs and taps whose every output differs (for the sections that compare outputs bit for bit).
inline void randomize(const buffers& b) {
  fill_random<<<1024, 256>>>(static_cast<unsigned short*>(b.x), probe_bytes / 2, 0x9e3779b9u);
  fill_random<<<64, 256>>>(static_cast<unsigned short*>(b.w), (1 << 20) / 2, 0x7f4a7c15u);
}

// A device buffer's bytes on the host.
inline std::vector<unsigned char> download(const void* p, std::size_t bytes) {
  std::vector<unsigned char> v(bytes);
  cudaMemcpy(v.data(), p, bytes, cudaMemcpyDeviceToHost);
  return v;
}

// The f32 reference of a 7x7 layer (reference_7x7, computed into `scratch`, probe_bytes at least)
// on the host, f16 bit patterns.
inline std::vector<unsigned char> reference_of(const layer& l, const buffers& b, void* scratch) {
  reference_7x7<<<4096, 256>>>(static_cast<const __half*>(b.x), static_cast<const __half*>(b.w),
                               static_cast<__half*>(scratch), l.n, l.hw, l.hw, l.c);
  cudaDeviceSynchronize();
  return download(scratch, static_cast<std::size_t>(l.n) * l.hw * l.hw * l.c * 2);
}

// The largest distance, in f16 units in the last place, between two outputs (f16 bit patterns
// mapped to a monotonic integer line), and how many elements differ at all.
struct ulp_report {
  int max_ulps = 0;
  float max_abs = 0;
  long long differing = 0;
};
inline ulp_report compare_ulps(const std::vector<unsigned char>& x, const std::vector<unsigned char>& y) {
  auto line = [](unsigned short h) { return h & 0x8000 ? -static_cast<int>(h & 0x7fff) : static_cast<int>(h); };
  ulp_report rep;
  const auto* hx = reinterpret_cast<const unsigned short*>(x.data());
  const auto* hy = reinterpret_cast<const unsigned short*>(y.data());
  for (std::size_t i = 0; i < x.size() / 2; ++i) {
    const int d = std::abs(line(hx[i]) - line(hy[i]));
    rep.max_ulps = std::max(rep.max_ulps, d);
    rep.max_abs =
        std::max(rep.max_abs, std::abs(__half2float(__ushort_as_half(hx[i])) - __half2float(__ushort_as_half(hy[i]))));
    rep.differing += d != 0;
  }
  return rep;
}
