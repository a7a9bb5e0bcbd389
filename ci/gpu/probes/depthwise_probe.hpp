// Shared by the depthwise device probes (depthwise_phases.cu, depthwise_bounds.cu): stage 3 with
// its tile parameters visible, its block with phases left out or doubled, a lane's view of a
// channel, input fill, and timing (CUDA events after the probe's L2 flush, median of `repeats`).
// Each probe is one translation unit of its own binary that includes this once.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "cuop/kernels/conv/depthwise.cuh"
#include "probe_timing.hpp"

namespace kc = cuop::kernels::conv;

enum : int { load = 1, mma = 2, store = 4, mma_twice = 8 };

// Output tile x (row-major over the output's tiles) of channel group `group` of image n, as
// depthwise_mma::run decodes its block index (the probe's tensors are 16-byte aligned, C % 8 == 0).
template <typename K>
__device__ __forceinline__ typename K::tile_t tile_at(const kc::conv_args& a, int x, int group, int n) {
  const int tiles_w = (a.q + K::tile_w_ - 1) / K::tile_w_;
  typename K::tile_t t;
  t.n = n;
  t.c0 = group * K::block_c_;
  t.oh0 = x / tiles_w * K::tile_h_;
  t.ow0 = x % tiles_w * K::tile_w_;
  t.ih0 = t.oh0 - a.pad_h;
  t.iw0 = t.ow0 - a.pad_w;
  t.vec_ok = true;
  return t;
}

// depthwise_mma::run with phases chosen by MODE.
template <typename K, int MODE>
struct phases : K {
  static __device__ void run(const kc::conv_args& a, void* smem) {
    unsigned* planes = static_cast<unsigned*>(smem);
    const auto t = tile_at<K>(a, static_cast<int>(blockIdx.x), static_cast<int>(blockIdx.y), static_cast<int>(blockIdx.z));
    unsigned short* filt = reinterpret_cast<unsigned short*>(static_cast<unsigned char*>(smem) + K::filter_offset);
    const int tid = static_cast<int>(threadIdx.x);
    if constexpr (MODE & load) K::load_patch(a, t, planes, filt, tid);
    __syncthreads();
    const int warp = tid / 32;
    constexpr int reps = MODE & mma_twice ? 2 : MODE & mma ? 1 : 0;
#pragma unroll 1
    for (int rep = 0; rep < reps; ++rep)
#pragma unroll 1
      for (int i = 0; i < K::cpw_; ++i) K::compute_channel(a, t, planes, filt, warp * K::cpw_ + i);
    __syncthreads();
    if constexpr (MODE & store) K::store_tile(a, t, planes, tid);
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

// A lane's view of a channel, as stage 3's compute_channel sets it up: the channel's tap pairs,
// the lane's tap offset (k0 - n_col) and the shared-memory address of its ldmatrix row in the plane.
template <typename K, int R>
struct lane_setup {
  const unsigned* pc;
  int d;
  unsigned base;
  __device__ lane_setup(unsigned* planes, const unsigned short* filt, int slot) {
    const int lane = static_cast<int>(threadIdx.x) % 32;
    pc = reinterpret_cast<const unsigned*>(filt) + (8 * (slot % K::qc) + slot / K::qc) * R * K::pair_words;
    d = 2 * (lane % 4) - lane / 4;
    const int a_row = (lane & 7) + ((lane >> 3) & 1) * 8, a_unit = lane >> 4;
    base = cuop::kernels::common::smem_addr(K::plane(planes, slot)) + 4u * (a_row * K::row_words) + 16u * a_unit;
  }
  // Units 0..U-1 (16 rows x 8 columns each) of the 16 plane rows from `row`, as stage 3 loads them.
  template <int U>
  __device__ void units(int row, unsigned (&u)[U + 1][2]) const {
    const unsigned row_addr = base + 4u * (row * K::row_words);
#pragma unroll
    for (int k = 0; k + 1 < U; k += 2) {
      unsigned four[4];
      cuop::kernels::common::ldmatrix_x4(four, row_addr + 16u * k);
      u[k][0] = four[0]; u[k][1] = four[1]; u[k + 1][0] = four[2]; u[k + 1][1] = four[3];
    }
    if constexpr (U % 2) cuop::kernels::common::ldmatrix_x2(u[U - 1], row_addr + 16u * (U - 1));
  }
  // The two registers of filter row r's Toeplitz fragment (one 8-tap chunk).
  __device__ void taps(int r, unsigned (&b)[2]) const { K::fragment(pc + r * K::pair_words, 0, d, b); }
};

// The MMA variants' epilogue (beta == 0): stage 3's, once every lane is done with the plane.
template <typename K, typename ACC>
__device__ __forceinline__ void write_tile(const kc::conv_args& a, unsigned* planes, int slot, const ACC& acc) {
  __syncwarp();
  K::write_scaled(a.alpha, K::plane(planes, slot), acc);
}

// Halves in [-1, 1) from a hash of the index: inputs and taps whose every output differs.
__global__ void fill_random(unsigned short* p, long long n, unsigned seed) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    unsigned h = static_cast<unsigned>(i) * 2654435761u ^ seed;
    h ^= h >> 15, h *= 2246822519u, h ^= h >> 13;
    p[i] = __half_as_ushort(__float2half(static_cast<float>(h >> 8) / 8388608.f - 1.f));
  }
}

// The f32 direct convolution of the probes' 7x7 layers (stride 1, pad 3) on the GPU, one thread an
// output, its f32 FMAs in tap order, rounded to f16 once (dw_ffma.cu's kernel adds in this order).
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
        const float v = ih >= 0 && ih < h && iw >= 0 && iw < wd ? __half2float(x[((img * h + ih) * wd + iw) * c + ch]) : 0.f;
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

template <typename K>
float time_us(const void* kernel, const layer& l, const buffers& b, int repeats, int smem = K::smem_bytes) {
  kc::conv_args a{b.x, b.w, b.y, l.n, l.c, l.hw, l.hw, l.c, l.hw, l.hw, 7, 7, 1, 1, 3, 3, 1, 1, l.c, 1.f, 0.f};
  const int tiles = ((l.hw + K::tile_h_ - 1) / K::tile_h_) * ((l.hw + K::tile_w_ - 1) / K::tile_w_);
  const dim3 grid(tiles, (l.c + K::block_c_ - 1) / K::block_c_, l.n);
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  void* params[] = {&a};
  const float us = probe::median_us(
      [&] { cudaLaunchKernel(kernel, grid, dim3(K::block_threads), params, smem, nullptr); }, b.flush, repeats);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) std::printf("error: %s\n", cudaGetErrorString(err));
  return us;
}

// One launch of `kernel` on the layer, its output poisoned with NaN first (an output never
// written shows), back on the host.
template <typename K>
std::vector<unsigned char> output_of(const void* kernel, const layer& l, const buffers& b) {
  const std::size_t out_bytes = static_cast<std::size_t>(l.n) * l.hw * l.hw * l.c * 2;
  cudaMemset(b.y, 0xff, out_bytes);
  time_us<K>(kernel, l, b, 1);
  std::vector<unsigned char> got(out_bytes);
  cudaMemcpy(got.data(), b.y, out_bytes, cudaMemcpyDeviceToHost);
  return got;
}

// Runs `kernel` once on the layer and compares its output with *ref bit for bit; the first call of
// a layer (ref empty) keeps its output as the reference.
template <typename K>
const char* check_output(const void* kernel, const layer& l, const buffers& b, std::vector<unsigned char>* ref) {
  std::vector<unsigned char> got = output_of<K>(kernel, l, b);
  if (ref->empty()) {
    *ref = std::move(got);
    return "reference";
  }
  return *ref == got ? "same" : "WRONG";
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
    rep.max_abs = std::max(rep.max_abs, std::abs(__half2float(__ushort_as_half(hx[i])) - __half2float(__ushort_as_half(hy[i]))));
    rep.differing += d != 0;
  }
  return rep;
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
