// Device probe of the tensor-core depthwise kernel (stage 3, kernels/include/cuop/kernels/conv/
// depthwise_mma.cuh): where its time goes. Each layer's stage 3 configuration runs whole and with
// phases left out or doubled (load = the patch's transpose into planes, mma = every warp's
// channels, store = the planes back to NHWC), timed with CUDA events after a 256 MB L2 flush,
// median of 30. Differences between variants place the time; the answers of partial variants are
// meaningless. Three variants of the MMA phase (software-pipelined; one ldmatrix.x4 per MMA; each
// MMA as two m16n8k8) run beside the winners, and the mma.sync ceiling (MMAs on register operands
// alone) is printed first. docs/conv-h200.md has the results.
// `--only NAME` runs one variant of the first layer many times (for ncu); `--winners` only the
// stage 3 rows (ci/gpu/probes/depthwise_unroll.sh); `--pingpong`, `--rowgroups`, `--occupancy`,
// `--halfloads`, `--bulk` and `--tma` their own sections (the two-half block, row groups outer,
// blocks per SM, fewer ldmatrix reads, bulk copies under the MMA phase and stage 3 fed by TMA,
// below). Links the driver library for cuTensorMapEncodeTiled.
#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
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

// Stage 3 whose MMA phase overlaps each (tap row, row group) step's taps and ldmatrix with the
// previous step's MMAs: two register buffers, the flattened step loop unrolled by two (one or two
// row groups, one 8-tap chunk; beta == 0 only: a probe of the MMA phase, not a kernel).
template <int R, int BLOCK_C, int TILE_H, int TILE_W, int CPW>
struct stage3p : stage3<R, BLOCK_C, TILE_H, TILE_W, CPW> {
  using K = stage3<R, BLOCK_C, TILE_H, TILE_W, CPW>;
  static constexpr int G = K::row_groups, U = K::units, XB = K::xblocks;
  static_assert((G == 1 || G == 2) && K::chunks == 1, "one or two row groups, one tap chunk");

  static __device__ __forceinline__ void compute_channel(const kc::conv_args& a, const typename K::tile_t&,
                                                         unsigned* planes, const unsigned short* filt, int slot) {
    const lane_setup<K, R> ls(planes, filt, slot);
    float acc[G][XB][4] = {};
    auto taps = [&](int r, unsigned (&b)[2]) { ls.taps(r, b); };
    auto units = [&](int r, int g, unsigned (&u)[U + 1][2]) {
      ls.template units<U>(K::group_row(g) + r, u);
    };
    auto mmas = [&](float (&ac)[XB][4], const unsigned (&u)[U + 1][2], const unsigned (&b)[2]) {
#pragma unroll
      for (int xb = 0; xb < XB; ++xb) {
        const unsigned af[4] = {u[xb][0], u[xb][1], u[xb + 1][0], u[xb + 1][1]};
        cuop::kernels::common::mma_16816<__half>(ac[xb], af, b);
      }
    };
    unsigned ua[U + 1][2], ub[U + 1][2], ba[2], bb[2];
    taps(0, ba);
    units(0, 0, ua);
    if constexpr (G == 2) {
#pragma unroll 1
      for (int r = 0; r < R; ++r) {
        units(r, 1, ub);
        bb[0] = ba[0], bb[1] = ba[1];
        mmas(acc[0], ua, ba);
        if (r + 1 < R) taps(r + 1, ba), units(r + 1, 0, ua);
        mmas(acc[1], ub, bb);
      }
    } else {
#pragma unroll 1
      for (int r = 0; r < R; r += 2) {
        if (r + 1 < R) taps(r + 1, bb), units(r + 1, 0, ub);
        mmas(acc[0], ua, ba);
        if (r + 2 < R) taps(r + 2, ba), units(r + 2, 0, ua);
        if (r + 1 < R) mmas(acc[0], ub, bb);
      }
    }
    write_tile<K>(a, planes, slot, acc);
  }
};

// Stage 3's MMA loop (tap rows, then row groups) with the loads and MMAs of one step supplied by
// STEP (beta == 0 only: probes of the MMA phase, not kernels).
template <int R, int BLOCK_C, int TILE_H, int TILE_W, int CPW, typename STEP>
struct stage3_step : stage3<R, BLOCK_C, TILE_H, TILE_W, CPW> {
  using K = stage3<R, BLOCK_C, TILE_H, TILE_W, CPW>;
  static_assert(K::chunks == 1, "one tap chunk");

  static __device__ __forceinline__ void compute_channel(const kc::conv_args& a, const typename K::tile_t&,
                                                         unsigned* planes, const unsigned short* filt, int slot) {
    const lane_setup<K, R> ls(planes, filt, slot);
    float acc[K::row_groups][K::xblocks][4] = {};
#pragma unroll 1
    for (int r = 0; r < R; ++r) {
      unsigned b[2];
      ls.taps(r, b);
#pragma unroll
      for (int g = 0; g < K::row_groups; ++g)
        STEP::template run<K>(ls, K::group_row(g) + r, b, acc[g]);
    }
    write_tile<K>(a, planes, slot, acc);
  }
};

// One ldmatrix.x4 per MMA (units xb and xb + 1), so that no register moves pair an odd column
// block's units into an aligned quad: more ldmatrix reads (4 a block instead of 2.5), fewer
// instructions.
struct quads_step {
  template <typename K, typename LS, int XB>
  static __device__ __forceinline__ void run(const LS& ls, int row, const unsigned (&b)[2], float (&acc)[XB][4]) {
    const unsigned row_addr = ls.base + 4u * (row * K::row_words);
    unsigned af[XB][4];
#pragma unroll
    for (int xb = 0; xb < XB; ++xb) cuop::kernels::common::ldmatrix_x4(af[xb], row_addr + 16u * xb);
#pragma unroll
    for (int xb = 0; xb < XB; ++xb) cuop::kernels::common::mma_16816<__half>(acc[xb], af[xb], b);
  }
};

// d += a * b for one m16n8k8 (f16 in, f32 accumulation): a is one 16x8 unit as ldmatrix gives it
// (rows g and g + 8), b one register of taps.
__device__ __forceinline__ void mma_1688(float (&d)[4], const unsigned (&a)[2], unsigned b) {
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(b));
}

// Each m16n8k16 split into two m16n8k8 (unit xb against taps k 0-7, unit xb + 1 against k 8-15):
// every A operand is one unit, an aligned register pair, so no register moves pair units into
// quads; twice the MMA instructions, each half the work.
struct k8_step {
  template <typename K, typename LS, int XB>
  static __device__ __forceinline__ void run(const LS& ls, int row, const unsigned (&b)[2], float (&acc)[XB][4]) {
    unsigned u[K::units + 1][2];
    ls.template units<K::units>(row, u);
#pragma unroll
    for (int xb = 0; xb < XB; ++xb) mma_1688(acc[xb], u[xb], b[0]);
#pragma unroll
    for (int xb = 0; xb < XB; ++xb) mma_1688(acc[xb], u[xb + 1], b[1]);
  }
};

template <int R, int BLOCK_C, int TILE_H, int TILE_W, int CPW>
using stage3q = stage3_step<R, BLOCK_C, TILE_H, TILE_W, CPW, quads_step>;
template <int R, int BLOCK_C, int TILE_H, int TILE_W, int CPW>
using stage3k8 = stage3_step<R, BLOCK_C, TILE_H, TILE_W, CPW, k8_step>;

// Stage 3 with fewer ldmatrix sets a channel, the other steps reusing units already loaded: WRONG
// answers, a timing probe of how far the MMA phase and the whole kernel follow its shared-memory
// reads (--halfloads). ONCE false: 8 of every 14 sets, as a row interleave of 2 would load (two row
// groups: group 1 loads at tap row 0 only; one row group: loads at even tap rows). ONCE true: one
// set per row group, at tap row 0 (1 in 7).
template <int R, int BLOCK_C, int TILE_H, int TILE_W, int CPW, bool ONCE>
struct stage3h : stage3<R, BLOCK_C, TILE_H, TILE_W, CPW> {
  using K = stage3<R, BLOCK_C, TILE_H, TILE_W, CPW>;
  static constexpr int G = K::row_groups, U = K::units, XB = K::xblocks;
  static_assert(G <= 2 && K::chunks == 1, "one or two row groups, one tap chunk");

  static __device__ __forceinline__ void compute_channel(const kc::conv_args& a, const typename K::tile_t&,
                                                         unsigned* planes, const unsigned short* filt, int slot) {
    const lane_setup<K, R> ls(planes, filt, slot);
    float acc[G][XB][4] = {};
    unsigned u[G][U + 1][2];
#pragma unroll 1
    for (int r = 0; r < R; ++r) {
      unsigned b[2];
      ls.taps(r, b);
#pragma unroll
      for (int g = 0; g < G; ++g)
        if (ONCE ? r == 0 : G == 2 ? g == 0 || r == 0 : r % 2 == 0) ls.template units<U>(K::group_row(g) + r, u[g]);
#pragma unroll
      for (int g = 0; g < G; ++g)
#pragma unroll
        for (int xb = 0; xb < XB; ++xb) {
          const unsigned af[4] = {u[g][xb][0], u[g][xb][1], u[g][xb + 1][0], u[g][xb + 1][1]};
          cuop::kernels::common::mma_16816<__half>(acc[g][xb], af, b);
        }
    }
    write_tile<K>(a, planes, slot, acc);
  }
};

// Stage 3 with the loops swapped: row groups outer, tap rows inner, so that a warp holds one row
// group's accumulators (xblocks x 4 registers) whatever the tile height, and a tall tile (a whole
// 56x56 or 64x64 image) loads no halo rows twice. Each group's taps are fetched again (one table
// word a tap row). A group's output replaces plane rows the later groups do not read, so TILE_H
// must be a multiple of 16 (no overlapping last group). beta == 0 only: a probe, not a kernel.
template <int R, int BLOCK_C, int TILE_H, int TILE_W, int CPW>
struct stage3g : stage3<R, BLOCK_C, TILE_H, TILE_W, CPW> {
  using K = stage3<R, BLOCK_C, TILE_H, TILE_W, CPW>;
  static_assert(TILE_H % 16 == 0 && K::chunks == 1, "whole row groups, one tap chunk");

  static __device__ __forceinline__ void compute_channel(const kc::conv_args& a, const typename K::tile_t&,
                                                         unsigned* planes, const unsigned short* filt, int slot) {
    const lane_setup<K, R> ls(planes, filt, slot);
    unsigned* out = K::plane(planes, slot);
#pragma unroll 1
    for (int g = 0; g < K::row_groups; ++g) {
      float acc[K::xblocks][4] = {};
#pragma unroll 1
      for (int r = 0; r < R; ++r) {
        unsigned b[2], u[K::units + 1][2];
        ls.taps(r, b);
        ls.template units<K::units>(16 * g + r, u);
#pragma unroll
        for (int xb = 0; xb < K::xblocks; ++xb) {
          const unsigned af[4] = {u[xb][0], u[xb][1], u[xb + 1][0], u[xb + 1][1]};
          cuop::kernels::common::mma_16816<__half>(acc[xb], af, b);
        }
      }
      __syncwarp();  // the group's reads are done before its rows are overwritten
      K::write_group(a.alpha, out, 16 * g, acc);
    }
  }
};

// The mma.sync ceiling: every warp issues `iters` rounds of 8 independent m16n8k16 (f16 in, f32
// accumulation) on register operands, nothing else.
__global__ void mma_ceiling(int iters, float* sink) {
  unsigned a[4] = {threadIdx.x, threadIdx.x + 1, threadIdx.x + 2, threadIdx.x + 3}, b[2] = {threadIdx.x * 3, 7};
  float acc[8][4] = {};
#pragma unroll 1
  for (int i = 0; i < iters; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) cuop::kernels::common::mma_16816<__half>(acc[j], a, b);
  float s = 0;
#pragma unroll
  for (int j = 0; j < 8; ++j) s += acc[j][0] + acc[j][1] + acc[j][2] + acc[j][3];
  if (s == 1.2345f) *sink = s;
}

// Ping-pong: one block of two halves, each half a stage 3 block of K with its own shared memory,
// persistent over the tiles (half h of block b takes tiles 2 (k gridDim + b) + h, k = 0, 1, ...).
// With ORDERED the halves' MMA phases take turns (half 0's k-th, then half 1's k-th, then half 0's
// (k + 1)-th ...; named barriers 3 and 4 pass the turn), so that one half's MMAs run while the
// other half stores and loads; without it the halves run side by side (the control).
__device__ __forceinline__ void bar_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void bar_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

template <typename K>
constexpr int pingpong_blocks = 228 * 1024 / (2 * K::smem_bytes + 2048) < 1   ? 1
                                : 228 * 1024 / (2 * K::smem_bytes + 2048) > 4 ? 4
                                                                               : 228 * 1024 / (2 * K::smem_bytes + 2048);

template <typename K, bool ORDERED>
__global__ void __launch_bounds__(2 * K::block_threads, pingpong_blocks<K>) pingpong(kc::conv_args a, int tiles, int groups,
                                                                                                 int total) {
  extern __shared__ __align__(16) unsigned char smem[];
  constexpr int T = K::block_threads;
  const int half = static_cast<int>(threadIdx.x) / T, tid = static_cast<int>(threadIdx.x) % T;
  unsigned char* mine = smem + half * K::smem_bytes;
  unsigned* planes = reinterpret_cast<unsigned*>(mine);
  unsigned short* filt = reinterpret_cast<unsigned short*>(mine + K::filter_offset);
  const int iters = (total + 2 * static_cast<int>(gridDim.x) - 1) / (2 * static_cast<int>(gridDim.x));
#pragma unroll 1
  for (int k = 0; k < iters; ++k) {
    const int tile = (k * static_cast<int>(gridDim.x) + static_cast<int>(blockIdx.x)) * 2 + half;
    const bool live = tile < total;
    const auto t = tile_at<K>(a, tile % tiles, tile / tiles % groups, tile / tiles / groups);
    if (live) K::load_patch(a, t, planes, filt, tid);
    bar_sync(1 + half, T);
    if (ORDERED) {
      if (half == 1) bar_sync(4, 2 * T);
      else if (k > 0) bar_sync(3, 2 * T);
    }
    if (live) {
#pragma unroll 1
      for (int i = 0; i < K::cpw_; ++i) K::compute_channel(a, t, planes, filt, tid / 32 * K::cpw_ + i);
    }
    if (ORDERED) {
      if (half == 0) bar_arrive(4, 2 * T);
      else if (k + 1 < iters) bar_arrive(3, 2 * T);
    }
    bar_sync(1 + half, T);
    if (live) K::store_tile(a, t, planes, tid);
    bar_sync(1 + half, T);
  }
}

// Halves in [-1, 1) from a hash of the index: inputs and taps whose every output differs.
__global__ void fill_random(unsigned short* p, long long n, unsigned seed) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    unsigned h = static_cast<unsigned>(i) * 2654435761u ^ seed;
    h ^= h >> 15, h *= 2246822519u, h ^= h >> 13;
    p[i] = __half_as_ushort(__float2half(static_cast<float>(h >> 8) / 8388608.f - 1.f));
  }
}

struct layer {
  const char* name;
  int n, hw, c;
};

struct buffers {
  void *x, *w, *y;
  const probe::l2_flush& flush;
};

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


// The ping-pong section (--pingpong): for a half configuration K, stage 3 alone (2 and, with its
// shared memory padded, 1 block per SM: how each phase scales with the warps an SM holds), then
// the persistent two-half block side by side and ordered, each checked bit for bit against stage 3.
template <typename K>
void run_pingpong(const layer& l, const buffers& b) {
  constexpr int pad = K::smem_bytes > 120 * 1024 ? K::smem_bytes : 120 * 1024;  // one block per SM
  auto us = [&](const void* k, int smem) { return time_us<K>(k, l, b, 30, smem); };
  const void* full = reinterpret_cast<const void*>(&entry<phases<K, load | mma | store>>);
  const void* only_mma = reinterpret_cast<const void*>(&entry<phases<K, mma>>);
  const void* only_load = reinterpret_cast<const void*>(&entry<phases<K, load>>);
  const void* only_store = reinterpret_cast<const void*>(&entry<phases<K, store>>);
  std::printf("| %s | %d | %.1f / %.1f | %.1f / %.1f | %.1f / %.1f | %.1f / %.1f |", l.name, K::smem_bytes / 1024,
              us(full, K::smem_bytes), us(full, pad), us(only_mma, K::smem_bytes), us(only_mma, pad),
              us(only_load, K::smem_bytes), us(only_load, pad), us(only_store, K::smem_bytes), us(only_store, pad));
  if (2 * K::smem_bytes > 227 * 1024) {
    std::printf(" (two halves do not fit) | |\n");
    return;
  }
  const std::size_t out_bytes = static_cast<std::size_t>(l.n) * l.hw * l.hw * l.c * 2;
  std::vector<unsigned char> ref(out_bytes), got(out_bytes);
  time_us<K>(full, l, b, 1);
  cudaMemcpy(ref.data(), b.y, out_bytes, cudaMemcpyDeviceToHost);
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const int tiles_w = (l.hw + K::tile_w_ - 1) / K::tile_w_, tiles = ((l.hw + K::tile_h_ - 1) / K::tile_h_) * tiles_w;
  const int groups = (l.c + K::block_c_ - 1) / K::block_c_, total = tiles * groups * l.n;
  for (const void* kernel : {reinterpret_cast<const void*>(&pingpong<K, false>),
                             reinterpret_cast<const void*>(&pingpong<K, true>)}) {
    const int smem = 2 * K::smem_bytes;
    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, 2 * K::block_threads, smem);
    kc::conv_args a{b.x, b.w, b.y, l.n, l.c, l.hw, l.hw, l.c, l.hw, l.hw, 7, 7, 1, 1, 3, 3, 1, 1, l.c, 1.f, 0.f};
    int ints[3] = {tiles, groups, total};
    void* params[] = {&a, &ints[0], &ints[1], &ints[2]};
    const dim3 grid(sms * (per_sm > 0 ? per_sm : 1));
    cudaMemset(b.y, 0, out_bytes);
    cudaLaunchKernel(kernel, grid, dim3(2 * K::block_threads), params, smem, nullptr);
    cudaMemcpy(got.data(), b.y, out_bytes, cudaMemcpyDeviceToHost);
    const bool same = std::memcmp(ref.data(), got.data(), out_bytes) == 0;
    const float us = probe::median_us(
        [&] { cudaLaunchKernel(kernel, grid, dim3(2 * K::block_threads), params, smem, nullptr); }, b.flush, 30);
    const cudaError_t err = cudaGetLastError();
    std::printf(" %.1f%s (%d/SM) |", us, err != cudaSuccess ? " ERROR" : same ? "" : " WRONG", per_sm);
  }
  std::printf("\n");
}


// The row-group section (--rowgroups): stage 3 against stage3g on whole-image tiles, each checked
// bit for bit against the first configuration of its layer; whole kernel and MMA phase, us.
template <typename K>
void run_whole(const layer& l, const buffers& b, const char* name, std::vector<unsigned char>* ref) {
  const std::size_t out_bytes = static_cast<std::size_t>(l.n) * l.hw * l.hw * l.c * 2;
  const void* full = reinterpret_cast<const void*>(&entry<phases<K, load | mma | store>>);
  const void* only_mma = reinterpret_cast<const void*>(&entry<phases<K, mma>>);
  cudaMemset(b.y, 0, out_bytes);
  time_us<K>(full, l, b, 1);
  std::vector<unsigned char> got(out_bytes);
  cudaMemcpy(got.data(), b.y, out_bytes, cudaMemcpyDeviceToHost);
  const char* check = "reference";
  if (ref->empty()) *ref = got;
  else check = std::memcmp(ref->data(), got.data(), out_bytes) == 0 ? "same" : "WRONG";
  int per_sm = 0;
  cudaFuncSetAttribute(full, cudaFuncAttributeMaxDynamicSharedMemorySize, K::smem_bytes);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, full, K::block_threads, K::smem_bytes);
  std::printf("| %s | %s | %d x %d warps | %d | %.1f | %.1f | %s |\n", l.name, name, per_sm, K::warps,
              K::smem_bytes / 1024, time_us<K>(full, l, b, 30), time_us<K>(only_mma, l, b, 30), check);
}

// The occupancy section (--occupancy): stage 3 configurations compiled with a chosen minimum of
// blocks per SM in __launch_bounds__ (the library derives it from shared memory alone, so a
// two-warps-a-channel block that fits four times gets 64 registers and spills). Whole kernel, MMA
// and load phases, us, each output checked bit for bit against the first configuration of its layer.
template <typename K, int MB>
__global__ void __launch_bounds__(K::block_threads, MB) entry_mb(kc::conv_args a) {
  extern __shared__ __align__(16) unsigned char smem[];
  K::run(a, smem);
}

template <typename K, int MB>
void run_occupancy(const layer& l, const buffers& b, const char* name, std::vector<unsigned char>* ref) {
  const std::size_t out_bytes = static_cast<std::size_t>(l.n) * l.hw * l.hw * l.c * 2;
  const void* full = reinterpret_cast<const void*>(&entry_mb<phases<K, load | mma | store>, MB>);
  const void* only_mma = reinterpret_cast<const void*>(&entry_mb<phases<K, mma>, MB>);
  const void* only_load = reinterpret_cast<const void*>(&entry_mb<phases<K, load>, MB>);
  cudaMemset(b.y, 0, out_bytes);
  time_us<K>(full, l, b, 1);
  std::vector<unsigned char> got(out_bytes);
  cudaMemcpy(got.data(), b.y, out_bytes, cudaMemcpyDeviceToHost);
  const char* check = "reference";
  if (ref->empty()) *ref = got;
  else check = std::memcmp(ref->data(), got.data(), out_bytes) == 0 ? "same" : "WRONG";
  int per_sm = 0;
  cudaFuncAttributes fa{};
  cudaFuncGetAttributes(&fa, full);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, full, K::block_threads, K::smem_bytes);
  std::printf("| %s | %s | %d | %d x %d warps | %d / %d | %.1f | %.1f | %.1f | %s |\n", l.name, name, MB, per_sm,
              K::warps, fa.numRegs, static_cast<int>(fa.localSizeBytes), time_us<K>(full, l, b, 30),
              time_us<K>(only_mma, l, b, 30), time_us<K>(only_load, l, b, 30), check);
}

// The bulk-copy section (--bulk): can TMA bulk copies of a tile's raw input run under stage 3's
// MMA phase without slowing it? A block of stage 3 (K) with a 16 KiB staging ring after its
// shared memory: with BULK, its threads first issue cp.async.bulk copies of the tile's in-image
// pixels (the block's 2 * QC 16-byte chunks of each, as one copy a pixel) into the ring, completed
// on one mbarrier, and wait for them at the end; with MMA, its warps run the MMA phase (on planes
// never loaded) meanwhile. The copied bytes are thrown away: a timing probe of the overlap, the
// first half of a TMA-fed schedule (the transposes out of the raw tile are not in it).
// The ring: 16 KiB, or what an SM's 227 KiB leave a block that fills it alone.
template <typename K>
constexpr int bulk_ring = (K::smem_bytes + 127) / 128 * 128 + 16 * 1024 + 16 <= 227 * 1024
                              ? 16 * 1024
                              : (227 * 1024 - 16 - (K::smem_bytes + 127) / 128 * 128) / 1024 * 1024;

template <typename K, bool MMA, bool BULK>
__global__ void __launch_bounds__(K::block_threads, K::min_blocks) mma_bulk(kc::conv_args a) {
  extern __shared__ __align__(128) unsigned char smem[];
  unsigned* planes = reinterpret_cast<unsigned*>(smem);
  unsigned char* ring = smem + (K::smem_bytes + 127) / 128 * 128;
  unsigned long long* bar = reinterpret_cast<unsigned long long*>(ring + bulk_ring<K>);
  const auto t = tile_at<K>(a, static_cast<int>(blockIdx.x), static_cast<int>(blockIdx.y), static_cast<int>(blockIdx.z));
  const int tid = static_cast<int>(threadIdx.x);
  constexpr int pixel_bytes = K::block_c_ * 2;
  const int rows = K::patch_h, cols = K::patch_w;
  if constexpr (BULK) {
    // The in-image pixels of the patch: its rows and columns inside the image.
    auto inside = [](int first, int n, int size) {
      const int lo = first > 0 ? first : 0, hi = first + n < size ? first + n : size;
      return hi > lo ? hi - lo : 0;
    };
    const int live = inside(t.ih0, rows, a.h) * inside(t.iw0, cols, a.w_);
    if (tid == 0) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(cuop::kernels::common::smem_addr(bar)));
      asm volatile("fence.mbarrier_init.release.cluster;\n fence.proxy.async.shared::cta;" ::: "memory");
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(cuop::kernels::common::smem_addr(bar)),
                   "r"(live * pixel_bytes) : "memory");
    }
    __syncthreads();
    for (int i = tid; i < rows * cols; i += K::block_threads) {
      const int iy = t.ih0 + i / cols, ix = t.iw0 + i % cols;
      if (iy < 0 || iy >= a.h || ix < 0 || ix >= a.w_) continue;
      const unsigned char* src = static_cast<const unsigned char*>(a.x) +
                                 ((static_cast<long long>(t.n) * a.h + iy) * a.w_ + ix) * a.c * 2 + t.c0 * 2;
      const unsigned dst = cuop::kernels::common::smem_addr(ring + (i * pixel_bytes) % bulk_ring<K>);
      asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                   ::"r"(dst), "l"(src), "r"(pixel_bytes), "r"(cuop::kernels::common::smem_addr(bar)) : "memory");
    }
  }
  if constexpr (MMA) {
    const unsigned short* filt = reinterpret_cast<const unsigned short*>(smem + K::filter_offset);
#pragma unroll 1
    for (int i = 0; i < K::cpw_; ++i) K::compute_channel(a, t, planes, filt, tid / 32 * K::cpw_ + i);
  }
  if constexpr (BULK) {
    unsigned done = 0;
    while (!done)
      asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n selp.u32 %0, 1, 0, p;\n}"
                   : "=r"(done) : "r"(cuop::kernels::common::smem_addr(bar)) : "memory");
  }
}

// The same with a tensor map: the patch comes in boxes of BOX_ROWS whole patch rows (every column
// and the block's channels; coordinates outside the image zero-filled by the TMA unit), one copy
// a box, issued by thread 0, into the ring.
template <typename K>
constexpr int box_rows = bulk_ring<K> / (K::patch_w * K::block_c_ * 2) < 1 ? 1
                         : bulk_ring<K> / (K::patch_w * K::block_c_ * 2) > 8 ? 8
                                                                            : bulk_ring<K> / (K::patch_w * K::block_c_ * 2);

template <typename K, bool MMA>
__global__ void __launch_bounds__(K::block_threads, K::min_blocks) mma_tensor(kc::conv_args a,
                                                                              const __grid_constant__ CUtensorMap map) {
  extern __shared__ __align__(128) unsigned char smem[];
  unsigned* planes = reinterpret_cast<unsigned*>(smem);
  unsigned char* ring = smem + (K::smem_bytes + 127) / 128 * 128;
  unsigned long long* bar = reinterpret_cast<unsigned long long*>(ring + bulk_ring<K>);
  const auto t = tile_at<K>(a, static_cast<int>(blockIdx.x), static_cast<int>(blockIdx.y), static_cast<int>(blockIdx.z));
  const int tid = static_cast<int>(threadIdx.x);
  constexpr int boxes = (K::patch_h + box_rows<K> - 1) / box_rows<K>;
  constexpr int box_bytes = box_rows<K> * K::patch_w * K::block_c_ * 2;
  const unsigned b_addr = cuop::kernels::common::smem_addr(bar);
  if (tid == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b_addr));
    asm volatile("fence.mbarrier_init.release.cluster;\n fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b_addr), "r"(boxes * box_bytes) : "memory");
    for (int i = 0; i < boxes; ++i) {
      const unsigned dst = cuop::kernels::common::smem_addr(ring + (i * box_bytes) % (bulk_ring<K> / box_bytes * box_bytes));
      asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6];"
                   ::"r"(dst), "l"(&map), "r"(t.c0), "r"(t.iw0), "r"(t.ih0 + i * box_rows<K>), "r"(t.n), "r"(b_addr)
                   : "memory");
    }
  }
  if constexpr (MMA) {
    const unsigned short* filt = reinterpret_cast<const unsigned short*>(smem + K::filter_offset);
#pragma unroll 1
    for (int i = 0; i < K::cpw_; ++i) K::compute_channel(a, t, planes, filt, tid / 32 * K::cpw_ + i);
  }
  __syncthreads();  // the barrier is initialized before anyone waits on it
  unsigned done = 0;
  while (!done)
    asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n selp.u32 %0, 1, 0, p;\n}"
                 : "=r"(done) : "r"(b_addr) : "memory");
}

// A 4-D tensor map of the layer's NHWC input, box: BLOCK_C channels x patch_w x box_rows x 1.
template <typename K>
CUtensorMap input_map(const layer& l, const void* x, int rows = box_rows<K>) {
  CUtensorMap map{};
  const cuuint64_t dims[4] = {static_cast<cuuint64_t>(l.c), static_cast<cuuint64_t>(l.hw), static_cast<cuuint64_t>(l.hw),
                              static_cast<cuuint64_t>(l.n)};
  const cuuint64_t strides[3] = {static_cast<cuuint64_t>(l.c) * 2, static_cast<cuuint64_t>(l.c) * 2 * l.hw,
                                 static_cast<cuuint64_t>(l.c) * 2 * l.hw * l.hw};
  const cuuint32_t box[4] = {K::block_c_, K::patch_w, static_cast<cuuint32_t>(rows), 1};
  const cuuint32_t elem[4] = {1, 1, 1, 1};
  const CUresult r = cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 4, const_cast<void*>(x), dims, strides,
                                            box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                            CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) std::printf("cuTensorMapEncodeTiled failed: %d\n", static_cast<int>(r));
  return map;
}

template <typename K>
float time_tensor(const void* kernel, const layer& l, const buffers& b, int smem) {
  kc::conv_args a{b.x, b.w, b.y, l.n, l.c, l.hw, l.hw, l.c, l.hw, l.hw, 7, 7, 1, 1, 3, 3, 1, 1, l.c, 1.f, 0.f};
  CUtensorMap map = input_map<K>(l, b.x);
  const int tiles = ((l.hw + K::tile_h_ - 1) / K::tile_h_) * ((l.hw + K::tile_w_ - 1) / K::tile_w_);
  const dim3 grid(tiles, (l.c + K::block_c_ - 1) / K::block_c_, l.n);
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  void* params[] = {&a, &map};
  const float us = probe::median_us(
      [&] { cudaLaunchKernel(kernel, grid, dim3(K::block_threads), params, smem, nullptr); }, b.flush, 30);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) std::printf("error: %s\n", cudaGetErrorString(err));
  return us;
}

template <typename K>
void run_bulk(const layer& l, const buffers& b) {
  static_assert(bulk_ring<K> >= 1024, "no room for a ring");
  const int smem = (K::smem_bytes + 127) / 128 * 128 + bulk_ring<K> + 16;
  int per_sm = 0;
  cudaFuncSetAttribute(&mma_bulk<K, true, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, &mma_bulk<K, true, true>, K::block_threads, smem);
  const float mma_only = time_us<K>(reinterpret_cast<const void*>(&mma_bulk<K, true, false>), l, b, 30, smem);
  const float bulk_only = time_us<K>(reinterpret_cast<const void*>(&mma_bulk<K, false, true>), l, b, 30, smem);
  const float both = time_us<K>(reinterpret_cast<const void*>(&mma_bulk<K, true, true>), l, b, 30, smem);
  const float stage3_load = time_us<K>(reinterpret_cast<const void*>(&entry<phases<K, load>>), l, b, 30);
  const float stage3_load_mma = time_us<K>(reinterpret_cast<const void*>(&entry<phases<K, load | mma>>), l, b, 30);
  const float boxes_only = time_tensor<K>(reinterpret_cast<const void*>(&mma_tensor<K, false>), l, b, smem);
  const float boxes_mma = time_tensor<K>(reinterpret_cast<const void*>(&mma_tensor<K, true>), l, b, smem);
  std::printf("| %s | %d x %d KiB ring | %.1f | %.1f | %.1f | %.1f / %.1f (%d rows a box) | %.1f | %.1f |\n", l.name, per_sm,
              bulk_ring<K> / 1024, mma_only, bulk_only, both, boxes_only, boxes_mma, box_rows<K>, stage3_load,
              stage3_load_mma);
}

// Stage 3 fed by TMA (--tma): the patch arrives as tensor-map boxes of BOX rows (the block's
// channels x patch_w columns, zero-filled outside the image and past C), two boxes in flight in a
// ring after stage 3's shared memory; the threads transpose each landed box into stage 3's planes
// (two 16-byte shared loads and eight 32-bit stores a task, as stage 3's register transposes) while
// the next streams in, then MMAs and store as stage 3. No global load goes through the threads.
template <typename K>
constexpr int tma_budget = K::min_blocks >= 2 ? 228 * 1024 / K::min_blocks - 1024 : 227 * 1024;  // stage 3's occupancy
template <typename K>
constexpr int tma_row_bytes = K::patch_w * K::block_c_ * 2;
template <typename K>
constexpr int tma_box = (tma_budget<K> - (K::smem_bytes + 127) / 128 * 128 - 16) / (2 * tma_row_bytes<K>) > 8 ? 8
                        : (tma_budget<K> - (K::smem_bytes + 127) / 128 * 128 - 16) / (2 * tma_row_bytes<K>);
template <typename K>
constexpr int tma_smem = (K::smem_bytes + 127) / 128 * 128 + 2 * tma_box<K> * tma_row_bytes<K> + 16;

__device__ __forceinline__ void bar_wait(unsigned bar, unsigned parity) {
  unsigned done = 0;
  while (!done)
    asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
                 : "=r"(done) : "r"(bar), "r"(parity) : "memory");
}

template <typename K>
__global__ void __launch_bounds__(K::block_threads, K::min_blocks) stage3_tma(kc::conv_args a,
                                                                              const __grid_constant__ CUtensorMap map) {
  constexpr int BOX = tma_box<K>, boxes = (K::patch_h + BOX - 1) / BOX, slot_bytes = BOX * tma_row_bytes<K>;
  static_assert(BOX >= 1, "no room for two boxes");
  extern __shared__ __align__(128) unsigned char smem[];
  unsigned* planes = reinterpret_cast<unsigned*>(smem);
  unsigned char* ring = smem + (K::smem_bytes + 127) / 128 * 128;
  const unsigned bars = cuop::kernels::common::smem_addr(ring + 2 * slot_bytes);
  const auto t = tile_at<K>(a, static_cast<int>(blockIdx.x), static_cast<int>(blockIdx.y), static_cast<int>(blockIdx.z));
  const int tid = static_cast<int>(threadIdx.x);
  auto issue = [&](int k) {
    const unsigned bar = bars + 8u * (k & 1);
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(slot_bytes) : "memory");
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6];"
                 ::"r"(cuop::kernels::common::smem_addr(ring + (k & 1) * slot_bytes)), "l"(&map), "r"(t.c0), "r"(t.iw0),
                 "r"(t.ih0 + k * BOX), "r"(t.n), "r"(bar) : "memory");
  };
  if (tid == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n mbarrier.init.shared::cta.b64 [%1], 1;" ::"r"(bars), "r"(bars + 8u));
    asm volatile("fence.mbarrier_init.release.cluster;\n fence.proxy.async.shared::cta;" ::: "memory");
    issue(0);
    if (boxes > 1) issue(1);
  }
  unsigned* pairs = reinterpret_cast<unsigned*>(smem + K::filter_offset);
  for (int i = tid; i < K::tap_rows; i += K::block_threads) {
    unsigned short tv[8];
    K::gather_taps(a, t, i, tv);
    K::write_pairs(pairs, i, tv);
  }
  __syncthreads();  // the barriers are initialized
  constexpr int qc = K::qc, rw = K::row_words;
#pragma unroll 1
  for (int k = 0; k < boxes; ++k) {
    bar_wait(bars + 8u * (k & 1), static_cast<unsigned>((k >> 1) & 1));
    const unsigned char* slot = ring + (k & 1) * slot_bytes;
    const int rows = K::patch_h - k * BOX < BOX ? K::patch_h - k * BOX : BOX;
    for (int task = tid; task < rows * rw * qc; task += K::block_threads) {
      const int q = task % qc, word = task / qc;
      const int r = word / rw, col = 2 * (word % rw);
      const int first = qc == 4 ? word & 1 : 0;  // the two pixels in turn: no 16-byte-load bank conflicts at qc 4
      auto chunk = [&](int e) {
        return col + e < K::patch_w
                   ? *reinterpret_cast<const uint4*>(slot + (r * K::patch_w + col + e) * (K::block_c_ * 2) + 16 * q)
                   : make_uint4(0, 0, 0, 0);
      };
      const uint4 one = chunk(first), other = chunk(first ^ 1);  // selects, not a dynamic index
      const uint4 px[2] = {first ? other : one, first ? one : other};
      const unsigned w0[4] = {px[0].x, px[0].y, px[0].z, px[0].w}, w1[4] = {px[1].x, px[1].y, px[1].z, px[1].w};
      const int at = (k * BOX + r) * rw + word % rw;
#pragma unroll
      for (int j = 0; j < 8; ++j)
        K::plane(planes, j * qc + q)[at] = cuop::kernels::conv::depthwise_mma_detail::halves(w0[j / 2], w1[j / 2], j % 2);
    }
    __syncthreads();  // every thread is done with the slot (and, at the last box, the planes are whole)
    if (tid == 0 && k + 2 < boxes) {
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      issue(k + 2);
    }
  }
#pragma unroll 1
  for (int i = 0; i < K::cpw_; ++i) K::compute_channel(a, t, planes, reinterpret_cast<unsigned short*>(pairs), tid / 32 * K::cpw_ + i);
  __syncthreads();
  K::store_tile(a, t, planes, tid);
}

// Stage 3 fed by one TMA box a tile (--tma, second kind): the whole raw patch lands where the
// planes will be (it is smaller), every thread copies its share of it into registers, a barrier,
// then the registers go out as stage 3's planes. Same shared memory and occupancy as stage 3.
// Built and compiled (c32_t28x32: 128 registers, no spills), not yet run on a GPU.
template <typename K>
__global__ void __launch_bounds__(K::block_threads, K::min_blocks) stage3_tma_whole(kc::conv_args a,
                                                                                    const __grid_constant__ CUtensorMap map) {
  constexpr int qc = K::qc, rw = K::row_words, tasks = K::patch_h * rw * qc;
  constexpr int per_thread = (tasks + K::block_threads - 1) / K::block_threads;
  constexpr int raw_bytes = K::patch_h * tma_row_bytes<K>;
  static_assert(raw_bytes <= K::filter_offset, "the raw patch fits where the planes go");
  extern __shared__ __align__(128) unsigned char smem[];
  unsigned* planes = reinterpret_cast<unsigned*>(smem);
  const unsigned bar = cuop::kernels::common::smem_addr(smem + (K::smem_bytes + 127) / 128 * 128);
  const auto t = tile_at<K>(a, static_cast<int>(blockIdx.x), static_cast<int>(blockIdx.y), static_cast<int>(blockIdx.z));
  const int tid = static_cast<int>(threadIdx.x);
  if (tid == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
    asm volatile("fence.mbarrier_init.release.cluster;\n fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(raw_bytes) : "memory");
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6];"
                 ::"r"(cuop::kernels::common::smem_addr(smem)), "l"(&map), "r"(t.c0), "r"(t.iw0), "r"(t.ih0), "r"(t.n), "r"(bar)
                 : "memory");
  }
  unsigned* pairs = reinterpret_cast<unsigned*>(smem + K::filter_offset);
  for (int i = tid; i < K::tap_rows; i += K::block_threads) {
    unsigned short tv[8];
    K::gather_taps(a, t, i, tv);
    K::write_pairs(pairs, i, tv);
  }
  __syncthreads();  // the barrier is initialized
  bar_wait(bar, 0);
  uint4 px[per_thread][2];
#pragma unroll
  for (int u = 0; u < per_thread; ++u) {
    const int task = tid + u * K::block_threads;
    const int q = task % qc, word = task / qc;
    const int r = word / rw, col = 2 * (word % rw);
    const int first = qc == 4 ? word & 1 : 0;
    auto chunk = [&](int e) {
      return task < tasks && col + e < K::patch_w
                 ? *reinterpret_cast<const uint4*>(smem + (r * K::patch_w + col + e) * (K::block_c_ * 2) + 16 * q)
                 : make_uint4(0, 0, 0, 0);
    };
    const uint4 one = chunk(first), other = chunk(first ^ 1);  // selects, not a dynamic index
    px[u][0] = first ? other : one;
    px[u][1] = first ? one : other;
  }
  __syncthreads();  // the raw patch is all in registers
#pragma unroll
  for (int u = 0; u < per_thread; ++u) {
    const int task = tid + u * K::block_threads;
    if (task >= tasks) break;
    const int q = task % qc, word = task / qc;
    const unsigned w0[4] = {px[u][0].x, px[u][0].y, px[u][0].z, px[u][0].w};
    const unsigned w1[4] = {px[u][1].x, px[u][1].y, px[u][1].z, px[u][1].w};
#pragma unroll
    for (int j = 0; j < 8; ++j)
      K::plane(planes, j * qc + q)[word] = cuop::kernels::conv::depthwise_mma_detail::halves(w0[j / 2], w1[j / 2], j % 2);
  }
  __syncthreads();
#pragma unroll 1
  for (int i = 0; i < K::cpw_; ++i) K::compute_channel(a, t, planes, reinterpret_cast<unsigned short*>(pairs), tid / 32 * K::cpw_ + i);
  __syncthreads();
  K::store_tile(a, t, planes, tid);
}

template <typename K>
void run_tma(const layer& l, const buffers& b) {
  const std::size_t out_bytes = static_cast<std::size_t>(l.n) * l.hw * l.hw * l.c * 2;
  const void* full = reinterpret_cast<const void*>(&entry<phases<K, load | mma | store>>);
  const void* tma = reinterpret_cast<const void*>(&stage3_tma<K>);
  cudaMemset(b.y, 0, out_bytes);
  time_us<K>(full, l, b, 1);
  std::vector<unsigned char> ref(out_bytes), got(out_bytes);
  cudaMemcpy(ref.data(), b.y, out_bytes, cudaMemcpyDeviceToHost);
  cudaMemset(b.y, 0, out_bytes);
  const int smem = tma_smem<K>;
  cudaFuncSetAttribute(tma, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  int per_sm = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, tma, K::block_threads, smem);
  kc::conv_args a{b.x, b.w, b.y, l.n, l.c, l.hw, l.hw, l.c, l.hw, l.hw, 7, 7, 1, 1, 3, 3, 1, 1, l.c, 1.f, 0.f};
  CUtensorMap map = input_map<K>(l, b.x, tma_box<K>);
  const int tiles = ((l.hw + K::tile_h_ - 1) / K::tile_h_) * ((l.hw + K::tile_w_ - 1) / K::tile_w_);
  const dim3 grid(tiles, (l.c + K::block_c_ - 1) / K::block_c_, l.n);
  void* params[] = {&a, &map};
  cudaLaunchKernel(tma, grid, dim3(K::block_threads), params, smem, nullptr);
  cudaMemcpy(got.data(), b.y, out_bytes, cudaMemcpyDeviceToHost);
  const cudaError_t err = cudaGetLastError();
  const bool same = std::memcmp(ref.data(), got.data(), out_bytes) == 0;
  const float tma_us = probe::median_us(
      [&] { cudaLaunchKernel(tma, grid, dim3(K::block_threads), params, smem, nullptr); }, b.flush, 30);
  const float s3_us = time_us<K>(full, l, b, 30);
  // The second kind: one box a tile, through registers.
  const void* whole = reinterpret_cast<const void*>(&stage3_tma_whole<K>);
  const int smem2 = (K::smem_bytes + 127) / 128 * 128 + 16;
  cudaFuncSetAttribute(whole, cudaFuncAttributeMaxDynamicSharedMemorySize, smem2);
  int per_sm2 = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm2, whole, K::block_threads, smem2);
  CUtensorMap map2 = input_map<K>(l, b.x, K::patch_h);
  void* params2[] = {&a, &map2};
  cudaMemset(b.y, 0, out_bytes);
  cudaLaunchKernel(whole, grid, dim3(K::block_threads), params2, smem2, nullptr);
  cudaMemcpy(got.data(), b.y, out_bytes, cudaMemcpyDeviceToHost);
  const cudaError_t err2 = cudaGetLastError();
  const bool same2 = std::memcmp(ref.data(), got.data(), out_bytes) == 0;
  const float whole_us = probe::median_us(
      [&] { cudaLaunchKernel(whole, grid, dim3(K::block_threads), params2, smem2, nullptr); }, b.flush, 30);
  std::printf("| %s | %d rows a box, %d KB | %d | %.1f | %.1f | %s | %d | %.1f | %s |\n", l.name, tma_box<K>, smem / 1024,
              per_sm, s3_us, tma_us, err != cudaSuccess ? cudaGetErrorString(err) : same ? "same" : "WRONG", per_sm2,
              whole_us, err2 != cudaSuccess ? cudaGetErrorString(err2) : same2 ? "same" : "WRONG");
}

// For Nsight Compute (--occupancy ncu): the MMA phase alone of 32x28x28x512 at 16, 24 and 32 warps
// per SM, three launches each, in this order.
void occupancy_ncu(const buffers& b) {
  const layer l{"32x28x28x512", 32, 28, 512};
  auto three = [&](auto kernel, auto k) {
    for (int i = 0; i < 3; ++i) time_us<decltype(k)>(reinterpret_cast<const void*>(kernel), l, b, 1);
  };
  three(&entry_mb<phases<stage3<7, 32, 28, 32, 4>, mma>, 2>, stage3<7, 32, 28, 32, 4>{});
  three(&entry_mb<phases<stage3<7, 16, 28, 32, 2>, mma>, 3>, stage3<7, 16, 28, 32, 2>{});
  three(&entry_mb<phases<stage3<7, 16, 28, 32, 1>, mma>, 2>, stage3<7, 16, 28, 32, 1>{});
}

void occupancy_section(const buffers& b) {
  std::printf("| layer | configuration | launch-bounds blocks | resident | registers / local bytes | whole us | MMA us |"
              " load us | output |\n");
  std::printf("| --- | --- | ---: | --- | --- | ---: | ---: | ---: | --- |\n");
  std::vector<unsigned char> ref;
  for (const layer l : {layer{"32x28x28x512", 32, 28, 512}, layer{"32x28x28x256", 32, 28, 256}}) {
    ref.clear();
    run_occupancy<stage3<7, 32, 28, 32, 4>, 2>(l, b, "c32 t28x32 cv4", &ref);
    run_occupancy<stage3<7, 16, 28, 32, 4>, 4>(l, b, "c16 t28x32 cv4", &ref);
    run_occupancy<stage3<7, 16, 28, 32, 2>, 4>(l, b, "c16 t28x32 cv2", &ref);
    run_occupancy<stage3<7, 16, 28, 32, 2>, 3>(l, b, "c16 t28x32 cv2", &ref);
    run_occupancy<stage3<7, 16, 28, 32, 2>, 2>(l, b, "c16 t28x32 cv2", &ref);
    run_occupancy<stage3<7, 8, 28, 32, 1>, 3>(l, b, "c8 t28x32 cv1", &ref);
    run_occupancy<stage3<7, 8, 28, 32, 2>, 6>(l, b, "c8 t28x32 cv2", &ref);
    run_occupancy<stage3<7, 32, 28, 32, 2>, 1>(l, b, "c32 t28x32 cv2", &ref);
    run_occupancy<stage3<7, 32, 28, 32, 2>, 2>(l, b, "c32 t28x32 cv2", &ref);
    run_occupancy<stage3<7, 16, 28, 32, 1>, 1>(l, b, "c16 t28x32 cv1", &ref);
    run_occupancy<stage3<7, 16, 28, 32, 1>, 2>(l, b, "c16 t28x32 cv1", &ref);
  }
  ref.clear();
  const layer l56{"32x56x56x128", 32, 56, 128};
  run_occupancy<stage3<7, 64, 16, 56, 4>, 1>(l56, b, "c64 t16x56 cv4", &ref);
  run_occupancy<stage3<7, 32, 16, 56, 4>, 2>(l56, b, "c32 t16x56 cv4", &ref);
  run_occupancy<stage3<7, 32, 16, 56, 2>, 1>(l56, b, "c32 t16x56 cv2", &ref);
  run_occupancy<stage3<7, 16, 16, 56, 2>, 4>(l56, b, "c16 t16x56 cv2", &ref);
  run_occupancy<stage3<7, 16, 16, 56, 2>, 3>(l56, b, "c16 t16x56 cv2", &ref);
  run_occupancy<stage3<7, 16, 28, 56, 2>, 3>(l56, b, "c16 t28x56 cv2", &ref);
  run_occupancy<stage3<7, 16, 28, 56, 2>, 2>(l56, b, "c16 t28x56 cv2", &ref);
  run_occupancy<stage3<7, 16, 16, 56, 4>, 4>(l56, b, "c16 t16x56 cv4", &ref);
  ref.clear();
  const layer l64{"16x64x64x384", 16, 64, 384};
  run_occupancy<stage3<7, 64, 16, 64, 4>, 1>(l64, b, "c64 t16x64 cv4", &ref);
  run_occupancy<stage3<7, 32, 16, 64, 2>, 1>(l64, b, "c32 t16x64 cv2", &ref);
  run_occupancy<stage3<7, 16, 16, 64, 2>, 3>(l64, b, "c16 t16x64 cv2", &ref);
  run_occupancy<stage3<7, 16, 32, 32, 2>, 3>(l64, b, "c16 t32x32 cv2", &ref);
  run_occupancy<stage3<7, 16, 16, 32, 2>, 3>(l64, b, "c16 t16x32 cv2", &ref);
  run_occupancy<stage3<7, 16, 16, 32, 2>, 4>(l64, b, "c16 t16x32 cv2", &ref);
  run_occupancy<stage3<7, 32, 32, 32, 4>, 2>(l64, b, "c32 t32x32 cv4", &ref);
}

int main(int argc, char** argv) {
  const char* only = argc > 2 && std::strcmp(argv[1], "--only") == 0 ? argv[2] : nullptr;
  const bool ping = argc > 1 && std::strcmp(argv[1], "--pingpong") == 0;
  const bool rowgroups = argc > 1 && std::strcmp(argv[1], "--rowgroups") == 0;
  const bool winners = argc > 1 && std::strcmp(argv[1], "--winners") == 0;  // stage 3 rows only
  const bool occupancy = argc > 1 && std::strcmp(argv[1], "--occupancy") == 0;
  const bool halfloads = argc > 1 && std::strcmp(argv[1], "--halfloads") == 0;
  const bool bulk = argc > 1 && std::strcmp(argv[1], "--bulk") == 0;
  const bool tma = argc > 1 && std::strcmp(argv[1], "--tma") == 0;
  const probe::l2_flush flush(256ull << 20);
  buffers b{nullptr, nullptr, nullptr, flush};
  const std::size_t bytes = 64ull << 20;  // x and y of the largest layer (16 x 64 x 64 x 384 halves: 48 MiB)
  cudaMalloc(&b.x, bytes);
  cudaMalloc(&b.y, bytes);
  cudaMalloc(&b.w, 1 << 20);
  cudaMemset(b.x, 0x30, bytes);  // halves of 0x3030 (0.13) and 0x2c2c (0.06): nonzero MMAs
  cudaMemset(b.w, 0x2c, 1 << 20);
  if (rowgroups) {
    fill_random<<<1024, 256>>>(static_cast<unsigned short*>(b.x), bytes / 2, 0x9e3779b9u);
    fill_random<<<64, 256>>>(static_cast<unsigned short*>(b.w), (1 << 20) / 2, 0x7f4a7c15u);
    std::printf("| layer | configuration | blocks per SM | KB | whole us | MMA phase us | output |\n");
    std::printf("| --- | --- | --- | ---: | ---: | ---: | --- |\n");
    std::vector<unsigned char> ref;
    const layer l56{"32x56x56x128", 32, 56, 128};
    run_whole<stage3<7, 64, 16, 56, 4>>(l56, b, "stage 3 c64 t16x56 cpw4", &ref);
    run_whole<stage3<7, 32, 28, 56, 4>>(l56, b, "stage 3 c32 t28x56 cpw4", &ref);
    run_whole<stage3g<7, 8, 64, 56, 1>>(l56, b, "rows outer c8 t64x56 cpw1", &ref);
    run_whole<stage3g<7, 8, 64, 56, 2>>(l56, b, "rows outer c8 t64x56 cpw2", &ref);
    run_whole<stage3g<7, 16, 64, 56, 1>>(l56, b, "rows outer c16 t64x56 cpw1", &ref);
    run_whole<stage3g<7, 16, 64, 56, 2>>(l56, b, "rows outer c16 t64x56 cpw2", &ref);
    run_whole<stage3g<7, 16, 32, 56, 2>>(l56, b, "rows outer c16 t32x56 cpw2", &ref);
    run_whole<stage3g<7, 32, 32, 56, 4>>(l56, b, "rows outer c32 t32x56 cpw4", &ref);
    ref.clear();
    const layer l64{"16x64x64x384", 16, 64, 384};
    run_whole<stage3<7, 64, 16, 64, 4>>(l64, b, "stage 3 c64 t16x64 cpw4", &ref);
    run_whole<stage3<7, 32, 16, 32, 4>>(l64, b, "stage 3 c32 t16x32 cpw4", &ref);
    run_whole<stage3g<7, 8, 64, 64, 1>>(l64, b, "rows outer c8 t64x64 cpw1", &ref);
    run_whole<stage3g<7, 8, 64, 64, 2>>(l64, b, "rows outer c8 t64x64 cpw2", &ref);
    run_whole<stage3g<7, 16, 64, 64, 1>>(l64, b, "rows outer c16 t64x64 cpw1", &ref);
    run_whole<stage3g<7, 16, 64, 64, 2>>(l64, b, "rows outer c16 t64x64 cpw2", &ref);
    run_whole<stage3g<7, 16, 32, 64, 2>>(l64, b, "rows outer c16 t32x64 cpw2", &ref);
    run_whole<stage3g<7, 32, 32, 32, 4>>(l64, b, "rows outer c32 t32x32 cpw4", &ref);
    ref.clear();
    const layer l28{"32x28x28x512", 32, 28, 512};
    run_whole<stage3<7, 32, 28, 32, 4>>(l28, b, "stage 3 c32 t28x32 cpw4", &ref);
    run_whole<stage3g<7, 32, 32, 32, 4>>(l28, b, "rows outer c32 t32x32 cpw4", &ref);
    run_whole<stage3g<7, 16, 32, 32, 2>>(l28, b, "rows outer c16 t32x32 cpw2", &ref);
    run_whole<stage3g<7, 8, 32, 32, 1>>(l28, b, "rows outer c8 t32x32 cpw1", &ref);
    return 0;
  }
  if (tma) {
    fill_random<<<1024, 256>>>(static_cast<unsigned short*>(b.x), bytes / 2, 0x9e3779b9u);
    fill_random<<<64, 256>>>(static_cast<unsigned short*>(b.w), (1 << 20) / 2, 0x7f4a7c15u);
    std::printf("| layer, configuration | ring | blocks per SM | stage 3 us | TMA ring us | output |"
                " one box: blocks per SM | one box us | output |\n");
    std::printf("| --- | --- | ---: | ---: | ---: | --- | ---: | ---: | --- |\n");
    for (int rep = 0; rep < 2; ++rep) {
      run_tma<stage3<7, 32, 28, 32, 4>>({"32x28x28x512 c32 t28x32 cv4", 32, 28, 512}, b);
      run_tma<stage3<7, 32, 28, 32, 4>>({"32x28x28x256 c32 t28x32 cv4", 32, 28, 256}, b);
      run_tma<stage3<7, 32, 28, 56, 4>>({"32x56x56x128 c32 t28x56 cv4", 32, 56, 128}, b);
      run_tma<stage3<7, 32, 16, 32, 4>>({"16x64x64x384 c32 t16x32 cv4", 16, 64, 384}, b);
    }
    return 0;
  }
  if (bulk) {
    std::printf("| layer, configuration | blocks per SM, ring | MMA phase us | pixel copies us | both us |"
                " tensor-map boxes us: alone / with the MMA phase | stage 3 load phase us | stage 3 load + MMA us |\n");
    std::printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (int rep = 0; rep < 2; ++rep) {
      run_bulk<stage3<7, 32, 28, 32, 4>>({"32x28x28x512 c32 t28x32 cv4", 32, 28, 512}, b);
      run_bulk<stage3<7, 64, 16, 56, 4>>({"32x56x56x128 c64 t16x56 cv4", 32, 56, 128}, b);
      run_bulk<stage3<7, 64, 16, 64, 4>>({"16x64x64x384 c64 t16x64 cv4", 16, 64, 384}, b);
    }
    return 0;
  }
  if (halfloads) {
    std::printf("| layer, configuration | full | load+store | load+mma | mma | load | store | load+2mma+store |\n");
    std::printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (int rep = 0; rep < 2; ++rep) {
      const layer l28{"32x28x28x512 c32 t28x32 cv4", 32, 28, 512}, l56{"32x56x56x128 c64 t16x56 cv4", 32, 56, 128},
          l64{"16x64x64x384 c64 t16x64 cv4", 16, 64, 384};
      run_layer<stage3<7, 32, 28, 32, 4>>(l28, b, nullptr);
      run_layer<stage3h<7, 32, 28, 32, 4, false>>({"(8/14 loads)", 32, 28, 512}, b, nullptr);
      run_layer<stage3h<7, 32, 28, 32, 4, true>>({"(1/7 loads)", 32, 28, 512}, b, nullptr);
      run_layer<stage3<7, 64, 16, 56, 4>>(l56, b, nullptr);
      run_layer<stage3h<7, 64, 16, 56, 4, false>>({"(8/14 loads)", 32, 56, 128}, b, nullptr);
      run_layer<stage3h<7, 64, 16, 56, 4, true>>({"(1/7 loads)", 32, 56, 128}, b, nullptr);
      run_layer<stage3<7, 64, 16, 64, 4>>(l64, b, nullptr);
      run_layer<stage3h<7, 64, 16, 64, 4, false>>({"(8/14 loads)", 16, 64, 384}, b, nullptr);
      run_layer<stage3h<7, 64, 16, 64, 4, true>>({"(1/7 loads)", 16, 64, 384}, b, nullptr);
    }
    return 0;
  }
  if (occupancy) {
    fill_random<<<1024, 256>>>(static_cast<unsigned short*>(b.x), bytes / 2, 0x9e3779b9u);
    fill_random<<<64, 256>>>(static_cast<unsigned short*>(b.w), (1 << 20) / 2, 0x7f4a7c15u);
    if (argc > 2 && std::strcmp(argv[2], "ncu") == 0) occupancy_ncu(b);
    else occupancy_section(b);
    return 0;
  }
  if (ping) {
    fill_random<<<1024, 256>>>(static_cast<unsigned short*>(b.x), bytes / 2, 0x9e3779b9u);
    fill_random<<<64, 256>>>(static_cast<unsigned short*>(b.w), (1 << 20) / 2, 0x7f4a7c15u);
    std::printf("| layer, half configuration | KB | whole: own occupancy / 1 block per SM | mma | load | store | two halves | ordered |\n");
    std::printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    run_pingpong<stage3<7, 32, 28, 32, 4>>({"32x28x28x512 c32 t28x32", 32, 28, 512}, b);
    run_pingpong<stage3<7, 16, 28, 32, 4>>({"32x28x28x512 c16 t28x32", 32, 28, 512}, b);
    run_pingpong<stage3<7, 32, 28, 32, 4>>({"32x28x28x256 c32 t28x32", 32, 28, 256}, b);
    run_pingpong<stage3<7, 32, 16, 56, 4>>({"32x56x56x128 c32 t16x56", 32, 56, 128}, b);
    run_pingpong<stage3<7, 64, 16, 56, 4>>({"32x56x56x128 c64 t16x56", 32, 56, 128}, b);
    run_pingpong<stage3<7, 32, 16, 64, 4>>({"16x64x64x384 c32 t16x64", 16, 64, 384}, b);
    run_pingpong<stage3<7, 64, 16, 64, 4>>({"16x64x64x384 c64 t16x64", 16, 64, 384}, b);
    return 0;
  }
  {
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    float* sink = nullptr;
    cudaMalloc(&sink, 4);
    for (int warps_per_sm : {8, 16, 32}) {
      const int iters = 4096, blocks = sms * warps_per_sm / 8;
      cudaEvent_t e0, e1;
      cudaEventCreate(&e0);
      cudaEventCreate(&e1);
      mma_ceiling<<<blocks, 256>>>(iters, sink);
      cudaEventRecord(e0);
      mma_ceiling<<<blocks, 256>>>(iters, sink);
      cudaEventRecord(e1);
      cudaEventSynchronize(e1);
      float ms = 0;
      cudaEventElapsedTime(&ms, e0, e1);
      const double flop = 2.0 * 16 * 8 * 16 * 8 * iters * blocks * 8.0;
      std::printf("mma.sync m16n8k16 f32 ceiling, %d warps per SM: %.0f TFLOP/s (%.2f MMAs per SM per cycle at 1.98 GHz)\n",
                  warps_per_sm, flop / ms / 1e9, flop / 4096.0 / (ms * 1e-3) / sms / 1.98e9);
    }
  }
  std::printf("| layer (f16 nhwc 7x7), stage 3 winner | full | load+store | load+mma | mma | load | store | load+2mma+store |\n");
  std::printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  run_layer<stage3<7, 32, 28, 32, 4>>({"32x28x28x512 c32 t28x32 cv4", 32, 28, 512}, b, only);
  if (only) return 0;
  if (winners) {
    run_layer<stage3<7, 64, 28, 32, 4>>({"32x28x28x256 c64 t28x32 cv4", 32, 28, 256}, b, nullptr);
    run_layer<stage3<7, 32, 28, 32, 4>>({"32x28x28x256 c32 t28x32 cv4", 32, 28, 256}, b, nullptr);
    run_layer<stage3<7, 64, 16, 56, 4>>({"32x56x56x128 c64 t16x56 cv4", 32, 56, 128}, b, nullptr);
    run_layer<stage3<7, 64, 16, 64, 4>>({"16x64x64x384 c64 t16x64 cv4", 16, 64, 384}, b, nullptr);
    run_layer<stage3<7, 32, 16, 32, 4>>({"16x64x64x384 c32 t16x32 cv4", 16, 64, 384}, b, nullptr);
    return 0;
  }
  run_layer<stage3p<7, 32, 28, 32, 4>>({"32x28x28x512 c32 t28x32 cv4 pipelined", 32, 28, 512}, b, only);
  run_layer<stage3q<7, 32, 28, 32, 4>>({"32x28x28x512 c32 t28x32 cv4 quads", 32, 28, 512}, b, only);
  run_layer<stage3k8<7, 32, 28, 32, 4>>({"32x28x28x512 c32 t28x32 cv4 k8 pairs", 32, 28, 512}, b, only);
  run_layer<stage3<7, 64, 28, 32, 4>>({"32x28x28x256 c64 t28x32 cv4", 32, 28, 256}, b, only);
  run_layer<stage3p<7, 64, 28, 32, 4>>({"32x28x28x256 c64 t28x32 cv4 pipelined", 32, 28, 256}, b, only);
  run_layer<stage3q<7, 64, 28, 32, 4>>({"32x28x28x256 c64 t28x32 cv4 quads", 32, 28, 256}, b, only);
  run_layer<stage3k8<7, 64, 28, 32, 4>>({"32x28x28x256 c64 t28x32 cv4 k8 pairs", 32, 28, 256}, b, only);
  run_layer<stage3<7, 64, 16, 56, 4>>({"32x56x56x128 c64 t16x56 cv4", 32, 56, 128}, b, only);
  run_layer<stage3p<7, 64, 16, 56, 4>>({"32x56x56x128 c64 t16x56 cv4 pipelined", 32, 56, 128}, b, only);
  run_layer<stage3q<7, 64, 16, 56, 4>>({"32x56x56x128 c64 t16x56 cv4 quads", 32, 56, 128}, b, only);
  run_layer<stage3k8<7, 64, 16, 56, 4>>({"32x56x56x128 c64 t16x56 cv4 k8 pairs", 32, 56, 128}, b, only);
  run_layer<stage3<7, 32, 16, 32, 4>>({"16x64x64x384 c32 t16x32 cv4", 16, 64, 384}, b, only);
  run_layer<stage3p<7, 32, 16, 32, 4>>({"16x64x64x384 c32 t16x32 cv4 pipelined", 16, 64, 384}, b, only);
  run_layer<stage3q<7, 32, 16, 32, 4>>({"16x64x64x384 c32 t16x32 cv4 quads", 16, 64, 384}, b, only);
  run_layer<stage3k8<7, 32, 16, 32, 4>>({"16x64x64x384 c32 t16x32 cv4 k8 pairs", 16, 64, 384}, b, only);
  return 0;
}
