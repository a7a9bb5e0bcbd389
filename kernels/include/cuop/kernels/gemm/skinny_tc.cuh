// GEMM family skinny_tc: decode-sized problems (M of 1 to 64) whose time is the time to read B once
// (N x K weights), on tensor cores (mma.sync m16n8k16, f32 accumulation; sm_80 and later). Family
// skinny does the same on CUDA cores, which run out of FMAs when M grows past a few rows.
//
//   grid   x: ceil(N / BLOCK_N) column tiles, y: ceil(M / M_TILE) row tiles, z: SPLIT_K slices of
//          K, each ceil(ceil(K / SPLIT_K) / 8) * 8 long (8-aligned, trailing ones may be empty)
//   block  THREADS threads (whole warps)
//
// The product is computed transposed, D^T = B * A^T: the mma's 16-row operand is 16 columns of B
// (rows of the N x K weights, K contiguous), its 8-column operand 8 rows of A, so that M = 1 wastes
// 7 of 8 lanes of the small operand rather than 15 of 16. Column-major B only.
//
// Mapping. The block's BLOCK_N / 16 column tiles are split over G = min(BLOCK_N / 16, W) column
// groups of W / G warps (W warps in the block); a warp owns CT = BLOCK_N / 16 / G adjacent column
// tiles and all M_TILE / 8 row tiles, and the warps of a group split each step of K between them.
// In a step a warp reads V = K_CHUNK / 8 chunks of 32 elements of K: lane (g = lane / 4,
// q = lane % 4) loads the 16 bytes at k = chunk + 8 q of columns g and g + 8 of each of its column
// tiles (one warp instruction reads 64 contiguous bytes of 16 columns), and the same 16 bytes of
// rows g of each row tile of A (through L1: every warp of the block, and every block of the grid
// row, reads the same A).
//
// Those loads are fragments as they are: the sum over K does not depend on its order, so k slots
// 2q, 2q + 1, 2q + 8 and 2q + 9 of the first k16 step stand for elements 8q .. 8q + 3 of the chunk
// and those of the second for 8q + 4 .. 8q + 7, in A and B alike. No shared memory, no shuffles:
// every B element is read exactly once, with ld.global.nc.L1::no_allocate and an L2 evict-first
// policy, and a step's loads are issued while the previous step's MMAs run when the registers of
// two steps fit (prefetch).
//
// Reduction. When several warps split K for a column group, or K is split over blocks, the warps
// store their accumulators to shared memory (f32 [W / G][M_TILE * BLOCK_N]) and the block adds
// them in warp order. The epilogue D = alpha * acc + beta * C (C read only when beta != 0) is
// applied once per element; stores are predicated on M and N. Split-K (SPLIT_K > 1) is family
// skinny's: the same workspace layout, counters and last-block reduction (skinny.cuh).
//
// Any M, N, K: columns past N re-read the last column and rows past M the last row (their sums
// are never stored); the K tail goes one chunk at a time with the elements past the slice read
// as zeros. The 16-byte path needs A and B 16-byte aligned with lda and ldb multiples of 8
// elements; otherwise a uniform branch takes the tail's loop, element by element (correct, slower).
//
// Accepted by nvcc and NVRTC alike: no host standard headers.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "cuop/kernels/common/mma_sync.cuh"
#include "cuop/kernels/gemm/args.cuh"
#include "cuop/kernels/gemm/skinny.cuh"

namespace cuop::kernels::gemm {

template <typename TIn, typename TOut, bool B_COL, int BLOCK_N, int THREADS, int M_TILE, int K_CHUNK, int SPLIT_K>
struct skinny_tc {
  static_assert(skinny_detail::is_bf16<TIn> || skinny_detail::is_f16<TIn>, "inputs f16 or bf16");
  static_assert(skinny_detail::same<TOut, float> || skinny_detail::same<TOut, TIn>, "output f32 or the input type");
  static_assert(B_COL, "skinny_tc reads column-major B (n x k)");
  static_assert(THREADS >= 32 && THREADS % 32 == 0 && THREADS <= 1024, "whole warps, <= 1024 threads");
  static_assert(M_TILE >= 8 && M_TILE <= 64 && M_TILE % 8 == 0, "m_tile 8, 16, ..., 64");
  static_assert(K_CHUNK >= 8 && K_CHUNK % 8 == 0, "k_chunk a positive multiple of 8");
  static_assert(BLOCK_N >= 16 && BLOCK_N % 16 == 0, "block_n a positive multiple of 16");
  static_assert(SPLIT_K >= 1, "split_k >= 1");

  static constexpr int block_threads = THREADS;
  static constexpr int warps = THREADS / 32;
  static constexpr int col_tiles = BLOCK_N / 16;
  static constexpr int groups = col_tiles < warps ? col_tiles : warps;
  static constexpr int group_warps = warps / groups;  // warps splitting K for one column group
  static_assert(col_tiles % warps == 0 || warps % col_tiles == 0,
                "block_n / 16 a multiple or a divisor of the warp count");
  static constexpr int ct = col_tiles / groups;  // column tiles of a warp
  static constexpr int rt = M_TILE / 8;          // row tiles
  static constexpr int vecs = K_CHUNK / 8;       // 32-element chunks of a warp's step
  static constexpr int warp_k = 32 * vecs;       // K of one warp's step
  static constexpr int step_k = warp_k * group_warps;
  static constexpr int tile_outputs = M_TILE * BLOCK_N;
  static constexpr bool staged = group_warps > 1 || SPLIT_K > 1;  // partials through shared memory
  static constexpr int smem_floats = staged ? group_warps * tile_outputs : 1;
  static_assert(smem_floats * 4 + 4 <= 48 * 1024, "partials of the block exceed 48 KiB of static shared memory");
  // Registers of one step; a second step's B is loaded during the MMAs when both fit with the
  // accumulators in a 168-register budget (a fixed function of the template arguments).
  static constexpr int b_regs = ct * 2 * vecs * 4;
  static constexpr int a_regs = rt * vecs * 4;
  static constexpr int acc_regs = ct * rt * 4;
  static constexpr bool prefetch = 2 * b_regs + a_regs + acc_regs + 40 <= 168;

  using u16 = unsigned short;
  using b_step = unsigned[ct][2][vecs][4];
  using acc_t = float[ct][rt][4];

  struct tile_t {
    long long m0, n0;  // first row and column of the tile
    int kb, ke;        // this block's K slice
  };

  // Where this lane reads: B columns g and g + 8 of each column tile, A row g of each row tile.
  struct lane_ptrs {
    const u16* b[ct][2];
    const u16* a[rt];
  };

  static __device__ __forceinline__ lane_ptrs pointers(const gemm_args& a, const tile_t& t, int group, int g) {
    lane_ptrs p;
    const u16* b = static_cast<const u16*>(a.b);
    const u16* am = static_cast<const u16*>(a.a);
#pragma unroll
    for (int j = 0; j < ct; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        long long n = t.n0 + (static_cast<long long>(group) * ct + j) * 16 + g + 8 * h;
        if (n > a.n - 1) n = a.n - 1;  // past N: re-read the last column, never stored
        p.b[j][h] = b + n * a.ldb;
      }
#pragma unroll
    for (int r = 0; r < rt; ++r) {
      long long m = t.m0 + r * 8 + g;
      if (m > a.m - 1) m = a.m - 1;  // past M: re-read the last row, never stored
      p.a[r] = am + m * a.lda;
    }
    return p;
  }

  // The two k16 MMAs of one 32-element chunk: B's 16 bytes of columns g and g + 8 (w[0], w[1]),
  // A's 16 bytes of row g (x).
  static __device__ __forceinline__ void mma_chunk(const unsigned (&w0)[4], const unsigned (&w1)[4],
                                                   const unsigned (&x)[4], float (&acc)[4]) {
    const unsigned lo[4] = {w0[0], w1[0], w0[1], w1[1]};
    const unsigned lo_x[2] = {x[0], x[1]};
    common::mma_16816<TIn>(acc, lo, lo_x);
    const unsigned hi[4] = {w0[2], w1[2], w0[3], w1[3]};
    const unsigned hi_x[2] = {x[2], x[3]};
    common::mma_16816<TIn>(acc, hi, hi_x);
  }

  // A whole step's B (every chunk inside the slice), 16-byte loads from this lane's k.
  static __device__ __forceinline__ void load_b(const lane_ptrs& p, int k, unsigned long long pol, b_step& bw) {
#pragma unroll
    for (int c = 0; c < vecs; ++c)
#pragma unroll
      for (int j = 0; j < ct; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h) skinny_detail::ld_stream16(p.b[j][h] + k + c * 32, pol, bw[j][h][c]);
  }

  static __device__ __forceinline__ void mma_step(const lane_ptrs& p, int k, const b_step& bw, acc_t& acc) {
    unsigned aw[vecs][rt][4];
#pragma unroll
    for (int c = 0; c < vecs; ++c)
#pragma unroll
      for (int r = 0; r < rt; ++r) skinny_detail::ld_cached16(p.a[r] + k + c * 32, aw[c][r]);
#pragma unroll
    for (int c = 0; c < vecs; ++c)
#pragma unroll
      for (int j = 0; j < ct; ++j)
#pragma unroll
        for (int r = 0; r < rt; ++r) mma_chunk(bw[j][0][c], bw[j][1][c], aw[c][r], acc[j][r]);
  }

  // One chunk a warp from `chunk` (this warp's first) to the end of the slice, the elements past it
  // read as zeros: the tail of the 16-byte path and the whole of the misaligned one. The bound is
  // the warp's chunk, so every lane of a warp runs the same MMAs.
  template <bool VEC>
  static __device__ __forceinline__ void each_chunk(const lane_ptrs& p, int chunk, int q, int ke,
                                                    unsigned long long pol, acc_t& acc) {
#pragma unroll 1
    for (; chunk < ke; chunk += 32 * group_warps) {
      const int k = chunk + 8 * q;
      const int valid = ke - k < 0 ? 0 : (ke - k < 8 ? ke - k : 8);
      unsigned x[rt][4];
#pragma unroll
      for (int r = 0; r < rt; ++r) skinny_detail::load8<VEC, false>(p.a[r] + k, valid, 0, x[r]);
#pragma unroll
      for (int j = 0; j < ct; ++j) {
        unsigned w[2][4];
#pragma unroll
        for (int h = 0; h < 2; ++h) skinny_detail::load8<VEC, true>(p.b[j][h] + k, valid, pol, w[h]);
#pragma unroll
        for (int r = 0; r < rt; ++r) mma_chunk(w[0], w[1], x[r], acc[j][r]);
      }
    }
  }

  static __device__ __forceinline__ void main_loop(const gemm_args& a, const tile_t& t, const lane_ptrs& p,
                                                   int sub, int q, acc_t& acc) {
    const unsigned long long pol = skinny_detail::evict_first_policy();
    const bool vec = ((reinterpret_cast<unsigned long long>(a.a) | reinterpret_cast<unsigned long long>(a.b)) & 15) ==
                         0 &&
                     (a.lda & 7) == 0 && (a.ldb & 7) == 0;
    if (!vec) {
      each_chunk<false>(p, t.kb + sub * 32, q, t.ke, pol, acc);
      return;
    }
    const int kofs = sub * warp_k + 8 * q;  // this lane's first element of a step
    int s = t.kb;
    if constexpr (prefetch) {
      b_step cur, nxt;
      if (s + step_k <= t.ke) load_b(p, s + kofs, pol, cur);
      while (s + step_k <= t.ke) {
        const bool more = s + 2 * step_k <= t.ke;
        if (more) load_b(p, s + step_k + kofs, pol, nxt);
        mma_step(p, s + kofs, cur, acc);
        s += step_k;
        if (!more) break;
        if (s + 2 * step_k <= t.ke) load_b(p, s + step_k + kofs, pol, cur);
        mma_step(p, s + kofs, nxt, acc);
        s += step_k;
      }
    } else {
#pragma unroll 1
      for (; s + step_k <= t.ke; s += step_k) {
        b_step bw;
        load_b(p, s + kofs, pol, bw);
        mma_step(p, s + kofs, bw, acc);
      }
    }
    each_chunk<true>(p, s + sub * 32, q, t.ke, pol, acc);
  }

  // Output o (row-major in the tile) of this block's slice has the value v.
  static __device__ __forceinline__ void finish(const gemm_args& a, const tile_t& t, int o, float v, float* partials) {
    if constexpr (SPLIT_K == 1) {
      const long long m = t.m0 + o / BLOCK_N, n = t.n0 + o % BLOCK_N;
      if (m < a.m && n < a.n) skinny_detail::store_out<TOut>(a, m, n, v);
    } else {
      partials[o] = v;
    }
  }

  static __device__ void run(const gemm_args& a) {
    __shared__ float red[smem_floats];
    __shared__ unsigned last_flag;
    const int tid = static_cast<int>(threadIdx.x);
    const int lane = tid & 31, warp = tid >> 5;
    const int g = lane >> 2, q = lane & 3;
    const int group = warp / group_warps, sub = warp % group_warps;

    tile_t t;
    t.m0 = static_cast<long long>(blockIdx.y) * M_TILE;
    t.n0 = static_cast<long long>(blockIdx.x) * BLOCK_N;
    if constexpr (SPLIT_K == 1) {
      t.kb = 0;
      t.ke = a.k;
    } else {
      const long long slice = ((static_cast<long long>(a.k) + SPLIT_K - 1) / SPLIT_K + 7) / 8 * 8;
      const long long kb = slice * blockIdx.z;
      t.kb = static_cast<int>(kb < a.k ? kb : a.k);
      t.ke = static_cast<int>(kb + slice < a.k ? kb + slice : a.k);
    }

    acc_t acc;
#pragma unroll
    for (int j = 0; j < ct; ++j)
#pragma unroll
      for (int r = 0; r < rt; ++r)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[j][r][e] = 0.f;
    main_loop(a, t, pointers(a, t, group, g), sub, q, acc);

    const unsigned tile = blockIdx.y * gridDim.x + blockIdx.x;
    float* partials = nullptr;
    if constexpr (SPLIT_K > 1)
      partials = reinterpret_cast<float*>(static_cast<char*>(a.workspace) + skinny_split_counter_bytes) +
                 (static_cast<long long>(tile) * SPLIT_K + blockIdx.z) * tile_outputs;

    // Accumulator e of tile (j, r): column 16 j' + g (+ 8 for e >= 2), row 8 r + 2 q (+ 1 for odd e),
    // j' the warp's j-th column tile of the block.
#pragma unroll
    for (int j = 0; j < ct; ++j)
#pragma unroll
      for (int r = 0; r < rt; ++r)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int col = (group * ct + j) * 16 + g + 8 * (e >> 1);
          const int row = r * 8 + 2 * q + (e & 1);
          const int o = row * BLOCK_N + col;
          if constexpr (staged) red[sub * tile_outputs + o] = acc[j][r][e];
          else finish(a, t, o, acc[j][r][e], partials);
        }
    if constexpr (staged) {
      __syncthreads();
      for (int o = tid; o < tile_outputs; o += THREADS) {
        float s = red[o];
#pragma unroll 4
        for (int w = 1; w < group_warps; ++w) s += red[w * tile_outputs + o];
        finish(a, t, o, s, partials);
      }
    }
    if constexpr (SPLIT_K > 1)
      skinny_detail::split_k_finish<TOut, SPLIT_K, THREADS, BLOCK_N, tile_outputs>(a, tile, t.m0, t.n0, last_flag);
  }
};

}  // namespace cuop::kernels::gemm
