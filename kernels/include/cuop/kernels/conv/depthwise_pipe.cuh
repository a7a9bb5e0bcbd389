// Conv family depthwise, stage 7: stage 3's tensor-core computation (depthwise_mma.cuh) in
// persistent blocks that fetch the next work unit while they compute the current one.
//
// Stage 3 gives each block one tile: its threads load the input patch through registers (a few
// 16-byte loads in flight each, then they wait), transpose it, compute and store, so a block's
// load, MMA and store phases run one after the other and co-resident blocks run them in step.
// Here a work unit is stage 3's block (one output tile of one image, BLOCK_C channels), units are
// numbered channel group fastest, then tile, then image, and block b of the persistent grid
// (SMs x blocks per SM, kernels/src/conv/family.cpp) takes units b, b + gridDim.x, ... Per unit:
//
//   wait for the unit's raw patch and filter; barrier
//   transpose the raw patch into stage 3's per-channel planes; barrier
//   fetch the next unit: cp.async of its raw patch (as NHWC, 16 bytes a copy, zeros outside the
//     image and past the patch) and its filter into the other filter buffer; nothing waits on it
//   MMAs, each warp its CPW channels (stage 3's compute_channel: the output tile over the plane's
//     first rows); barrier
//   store (stage 3's store_tile: planes back to NHWC)
//
// So the next unit's loads are in flight during this unit's MMAs and stores without holding a
// register, every load of a patch is issued at once, and blocks drift out of step, overlapping
// one block's barrier-bound phases with another's.
//
//   smem   stage 3's planes ([BLOCK_C][plane_words] words), then the raw patch: 16-byte chunks
//          [patch_h][QC][2 (column parity)][row_words (column pairs)], so that the transpose's
//          lanes, one column pair each, read consecutive chunks; then two filter buffers
//          [BLOCK_C][R][S] as T. The raw patch spans the planes' row_units x 8 columns.
//
// Shapes whose channels are not a multiple of 8 or whose tensors are not 16-byte aligned take
// stage 3's element loads into the same buffers (synchronously; correct, slower).
// Accepted by nvcc and NVRTC alike: no host standard headers.
#pragma once

#include "cuop/kernels/common/cp_async.cuh"
#include "cuop/kernels/conv/depthwise_mma.cuh"

namespace cuop::kernels::conv {

template <typename T, int R, int S, int BLOCK_C, int TILE_H, int TILE_W, int CPW>
struct depthwise_pipe : depthwise_mma<T, R, S, BLOCK_C, TILE_H, TILE_W, CPW> {
  using base = depthwise_mma<T, R, S, BLOCK_C, TILE_H, TILE_W, CPW>;
  using tile_t = typename base::tile_t;
  using words8 = typename base::words8;
  using base::block_threads;
  using base::patch_h;
  using base::patch_w;
  using base::qc;
  using base::row_words;

  static constexpr int pairs = row_words;                   // column pairs of a plane (and raw) row
  static constexpr int raw_offset = base::filter_offset;    // the planes end there
  static constexpr int raw_bytes = patch_h * qc * 2 * pairs * 16;
  static constexpr int filter_offset = raw_offset + raw_bytes;
  static constexpr int filter_taps = BLOCK_C * R * S;       // a multiple of 8: whole 16-byte chunks
  static constexpr int smem_bytes = filter_offset + 2 * base::filter_bytes;
  // As stage 3: as many blocks as an sm_90 SM's 228 KiB hold, at most 4 (family.cpp likewise).
  static constexpr int min_blocks = 228 * 1024 / (smem_bytes + 1024) < 1   ? 1
                                    : 228 * 1024 / (smem_bytes + 1024) > 4 ? 4
                                                                           : 228 * 1024 / (smem_bytes + 1024);

  struct grid_t {
    int groups, tiles_w, tiles;
    long long units;
  };

  static __device__ __forceinline__ tile_t unit(const conv_args& a, const grid_t& g, long long u) {
    tile_t t;
    t.c0 = static_cast<int>(u % g.groups) * BLOCK_C;
    const long long rest = u / g.groups;
    const int tile = static_cast<int>(rest % g.tiles);
    t.n = static_cast<int>(rest / g.tiles);
    t.oh0 = tile / g.tiles_w * TILE_H;
    t.ow0 = tile % g.tiles_w * TILE_W;
    t.ih0 = t.oh0 - a.pad_h;
    t.iw0 = t.ow0 - a.pad_w;
    t.vec_ok = a.c % 8 == 0 && reinterpret_cast<unsigned long long>(a.x) % 16 == 0 &&
               reinterpret_cast<unsigned long long>(a.y) % 16 == 0;
    return t;
  }

  // Issues (vec_ok) or performs the copies of a unit's raw patch and filter.
  static __device__ void fetch(const conv_args& a, const tile_t& t, unsigned char* raw, unsigned short* filt) {
    const int tid = static_cast<int>(threadIdx.x);
    const unsigned short* w = static_cast<const unsigned short*>(a.w) + static_cast<long long>(t.c0) * R * S;
    const int live_taps = (a.c - t.c0 < BLOCK_C ? a.c - t.c0 : BLOCK_C) * R * S;
    if (live_taps == filter_taps && reinterpret_cast<unsigned long long>(w) % 16 == 0) {
      const unsigned dst = common::smem_addr(filt);
      for (int i = tid; i < filter_taps / 8; i += block_threads) common::cp_async_16(dst + 16u * i, w + 8 * i, true);
    } else {
      for (int i = tid; i < filter_taps; i += block_threads) filt[i] = i < live_taps ? w[i] : 0;
    }
    // Chunk (row, col, q) in global order (q fastest: a pixel's channels are contiguous).
    constexpr int cols = 2 * pairs, tasks = patch_h * cols * qc;
    const unsigned short* x = static_cast<const unsigned short*>(a.x);
    const unsigned raw_base = common::smem_addr(raw);
#pragma unroll 4
    for (int task = tid; task < tasks; task += block_threads) {
      const int q = task % qc, col = task / qc % cols, row = task / (qc * cols);
      const int iy = t.ih0 + row, ix = t.iw0 + col, c = t.c0 + 8 * q;
      const unsigned dst = raw_base + 16u * static_cast<unsigned>(((row * qc + q) * 2 + (col & 1)) * pairs + (col >> 1));
      if (t.vec_ok) {
        const bool inside = col < patch_w && iy >= 0 && iy < a.h && ix >= 0 && ix < a.w_ && c < a.c;
        const long long pix = (static_cast<long long>(t.n) * a.h + iy) * a.w_ + ix;
        common::cp_async_16(dst, inside ? x + pix * a.c + c : x, inside);
      } else {
        const words8 v = base::load_chunk(a, t, iy, ix, c, col < patch_w);
        asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};\n" ::"r"(dst), "r"(v.x), "r"(v.y), "r"(v.z),
                     "r"(v.w)
                     : "memory");
      }
    }
  }

  // The raw patch into stage 3's planes: channel 8q + j of each column pair to plane slot j * QC + q.
  static __device__ void transpose(const unsigned char* raw, unsigned* planes) {
    constexpr int tasks = patch_h * qc * pairs;
    const uint4* chunks = reinterpret_cast<const uint4*>(raw);
#pragma unroll 2
    for (int task = static_cast<int>(threadIdx.x); task < tasks; task += block_threads) {
      const int pair = task % pairs, rq = task / pairs;  // rq: row * QC + q
      const int q = rq % qc, row = rq / qc;
      const uint4 v0 = chunks[2 * rq * pairs + pair], v1 = chunks[(2 * rq + 1) * pairs + pair];
      const unsigned w0[4] = {v0.x, v0.y, v0.z, v0.w}, w1[4] = {v1.x, v1.y, v1.z, v1.w};
#pragma unroll
      for (int j = 0; j < 8; ++j)
        base::plane(planes, j * qc + q)[row * row_words + pair] = depthwise_mma_detail::halves(w0[j / 2], w1[j / 2], j % 2);
    }
  }

  static __device__ void run(const conv_args& a, void* smem) {
    unsigned* planes = static_cast<unsigned*>(smem);
    unsigned char* raw = static_cast<unsigned char*>(smem) + raw_offset;
    unsigned short* filters = reinterpret_cast<unsigned short*>(static_cast<unsigned char*>(smem) + filter_offset);
    constexpr int filter_stride = base::filter_bytes / 2;  // elements from one filter buffer to the next
    grid_t g;
    g.groups = (a.c + BLOCK_C - 1) / BLOCK_C;
    g.tiles_w = (a.q + TILE_W - 1) / TILE_W;
    g.tiles = (a.p + TILE_H - 1) / TILE_H * g.tiles_w;
    g.units = static_cast<long long>(a.n) * g.tiles * g.groups;
    long long u = blockIdx.x;
    if (u >= g.units) return;
    tile_t t = unit(a, g, u);
    fetch(a, t, raw, filters);
    common::cp_async_commit();
    const int warp = static_cast<int>(threadIdx.x) / 32;
#pragma unroll 1
    for (int i = 0;; ++i) {
      common::cp_async_wait<0>();
      __syncthreads();  // the raw patch and filter are in; the last unit's store is done with the planes
      transpose(raw, planes);
      __syncthreads();  // planes ready, raw patch free
      const long long next = u + gridDim.x;
      tile_t tn = t;
      if (next < g.units) {
        tn = unit(a, g, next);
        fetch(a, tn, raw, filters + ((i + 1) & 1) * filter_stride);
      }
      common::cp_async_commit();
      const unsigned short* filt = filters + (i & 1) * filter_stride;
#pragma unroll 1
      for (int k = 0; k < CPW; ++k) base::compute_channel(a, t, planes, filt, warp * CPW + k);
      __syncthreads();  // every channel's output tile is in its plane
      base::store_tile(a, t, planes);
      if (next >= g.units) break;
      u = next;
      t = tn;
    }
  }
};

}  // namespace cuop::kernels::conv
