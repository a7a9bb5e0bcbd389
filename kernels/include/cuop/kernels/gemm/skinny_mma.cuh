// GEMM family skinny_mma: decode-sized problems (M of 1 to 64) on tensor cores. Like skinny, its
// time is the time to read B (N x K weights) once with 16-byte loads; unlike skinny, the
// multiply-adds go to mma.sync m16n8k16, so from M = 8 on it stays bound by memory, not by
// instruction issue. Column-major B only (B[n * ldb + k], the weight layout).
//
//   grid   x: ceil(N / BLOCK_N) column tiles, y: ceil(M / M_TILE) row tiles, z: SPLIT_K slices of
//          K, each ceil(ceil(K / SPLIT_K) / 8) * 8 long (trailing ones may be empty)
//   block  THREADS threads (whole warps)
//
// Operands swapped: the MMA computes D^T = B^T A^T, so its 16 x 16 "A" operand is 16 columns of B
// (16 weight rows, loaded straight from global memory into registers, no shared memory) and its
// 16 x 8 "B" operand is 8 rows of A. The k order inside a 32-wide chunk is permuted so that every
// fragment comes from whole 16-byte loads: lane (g = lane / 4, t = lane % 4) loads elements
// [8t, 8t + 8) of the chunk from weight rows g and g + 8 and from activation rows g (of each
// 8-row group); words 0-1 feed the first m16n8k16 of the chunk, words 2-3 the second. The same
// permutation applies to both operands, so the sum is unchanged. No lane exchange is needed
// afterwards: the MMA has already reduced over the quad.
//
// The block's W warps form G = min(BLOCK_N / 16, W) column groups of W / G warps; a group owns
// R = BLOCK_N / 16 / G adjacent 16-column tiles and its warps take turns along K in chunks of
// K_CHUNK (a step of a group is (W / G) * K_CHUNK long). A step's weight loads (R * K_CHUNK / 32 *
// 2 16-byte loads per lane, ld.global.nc.L1::no_allocate with L2 evict-first) are issued while the
// previous step's MMAs run. Activations (M_TILE rows, K_CHUNK / 32 16-byte loads per lane and row
// group) come through L1, where every warp of the block and every block of the grid row reuse
// them.
//
// Reduction and split-K as in skinny (skinny.cuh): warps of a group add their partials in shared
// memory in warp order; with SPLIT_K > 1 every block stores its f32 partial tile to the workspace
// and the last slice of a tile adds them in slice order, applies the epilogue and resets the tile's
// counter. Workspace layout identical to skinny's: counters (skinny_split_counter_bytes), then f32
// partials[tiles][SPLIT_K][M_TILE * BLOCK_N]. kernels/src/gemm/skinny_mma_plan.cpp plans the sizes.
//
// Any M, N, K: columns past N re-read the last column and rows past M the last row (never
// stored); the K tail goes a 32-wide chunk at a time with zero fill past K. The 16-byte path needs
// A and B 16-byte aligned and lda, ldb multiples of 8 elements; otherwise a uniform branch runs the
// whole K range through the tail loop with 16-bit loads (correct, slower).
//
// Accepted by nvcc and NVRTC alike: no host standard headers.
#pragma once

#include "cuop/kernels/gemm/mma.cuh"
#include "cuop/kernels/gemm/skinny.cuh"

namespace cuop::kernels::gemm {

template <typename TIn, typename TOut, bool B_COL, int BLOCK_N, int THREADS, int M_TILE,
          int K_CHUNK, int SPLIT_K>
struct skinny_mma {
  static_assert(skinny_detail::is_bf16<TIn> || skinny_detail::is_f16<TIn>, "inputs f16 or bf16");
  static_assert(skinny_detail::same<TOut, float> || skinny_detail::same<TOut, TIn>,
                "output f32 or the input type");
  static_assert(B_COL, "column-major B only (weights stored n x k)");
  static_assert(THREADS >= 32 && THREADS % 32 == 0 && THREADS <= 1024, "whole warps, <= 1024 threads");
  static_assert(M_TILE >= 8 && M_TILE <= 64 && M_TILE % 8 == 0, "m_tile 8, 16, ..., 64");
  static_assert(K_CHUNK >= 32 && K_CHUNK % 32 == 0, "k_chunk a positive multiple of 32");
  static_assert(BLOCK_N >= 16 && BLOCK_N % 16 == 0, "block_n a positive multiple of 16");
  static_assert(SPLIT_K >= 1, "split_k >= 1");

  static constexpr int block_threads = THREADS;
  static constexpr int warps = THREADS / 32;
  static constexpr int n_tiles = BLOCK_N / 16;
  static constexpr int groups = n_tiles < warps ? n_tiles : warps;
  static_assert(n_tiles % warps == 0 || warps % n_tiles == 0,
                "block_n / 16 a multiple or a divisor of the warp count");
  static constexpr int group_warps = warps / groups;  // warps sharing a column group along K
  static constexpr int r_tiles = n_tiles / groups;    // 16-column tiles per warp
  static constexpr int m_groups = M_TILE / 8;         // 8-row groups of A (MMA n8 tiles)
  static constexpr int chunks = K_CHUNK / 32;         // 32-wide k chunks per warp and step
  static constexpr int step_k = group_warps * K_CHUNK;
  static constexpr int tile_outputs = M_TILE * BLOCK_N;
  static constexpr int producers = group_warps;
  static constexpr int smem_floats = producers > 1 ? producers * tile_outputs : 0;
  static_assert((smem_floats > 0 ? smem_floats : 1) * 4 + 4 <= 48 * 1024,
                "partials of the block exceed 48 KiB of static shared memory");

  using u16 = unsigned short;
  using weights_t = unsigned[chunks][r_tiles][2][4];  // one step of B, per lane

  struct tile_t {
    long long m0, n0;
    int kb, ke;
  };

  // One step's weights: for each chunk and tile, rows g and g + 8, elements [8t, 8t + 8).
  static __device__ __forceinline__ void load_weights(u16 const* const (&wrow)[r_tiles][2], int k,
                                                      unsigned long long pol, weights_t& w) {
#pragma unroll
    for (int c = 0; c < chunks; ++c)
#pragma unroll
      for (int i = 0; i < r_tiles; ++i)
#pragma unroll
        for (int h = 0; h < 2; ++h) skinny_detail::ld_stream16(wrow[i][h] + k + 32 * c, pol, w[c][i][h]);
  }

  // The two MMAs of one chunk: weights wl (row g) / wh (row g + 8), activations x (row g).
  static __device__ __forceinline__ void mma_chunk(const unsigned (&wl)[4], const unsigned (&wh)[4],
                                                   const unsigned (&x)[4], float (&acc)[4]) {
    const unsigned a0[4] = {wl[0], wh[0], wl[1], wh[1]};
    const unsigned b0[2] = {x[0], x[1]};
    detail::mma_16816<TIn>(acc, a0, b0);
    const unsigned a1[4] = {wl[2], wh[2], wl[3], wh[3]};
    const unsigned b1[2] = {x[2], x[3]};
    detail::mma_16816<TIn>(acc, a1, b1);
  }

  static __device__ __forceinline__ void compute(u16 const* const (&arow)[m_groups], int k,
                                                 const weights_t& w,
                                                 float (&acc)[r_tiles][m_groups][4]) {
#pragma unroll
    for (int c = 0; c < chunks; ++c) {
      unsigned x[m_groups][4];
#pragma unroll
      for (int j = 0; j < m_groups; ++j) skinny_detail::ld_cached16(arow[j] + k + 32 * c, x[j]);
#pragma unroll
      for (int i = 0; i < r_tiles; ++i)
#pragma unroll
        for (int j = 0; j < m_groups; ++j) mma_chunk(w[c][i][0], w[c][i][1], x[j], acc[i][j]);
    }
  }

  // 32-wide chunks from kc (this warp's first) to ke, every `stride` elements, element-wise past
  // ke. kc and the loop condition are warp-uniform, as mma.sync requires.
  template <bool VEC>
  static __device__ __forceinline__ void tail(u16 const* const (&wrow)[r_tiles][2],
                                              u16 const* const (&arow)[m_groups], int kc, int ke,
                                              int stride, int t, unsigned long long pol,
                                              float (&acc)[r_tiles][m_groups][4]) {
#pragma unroll 1
    for (; kc < ke; kc += stride) {
      const int k = kc + 8 * t;
      const int valid = ke - k < 8 ? ke - k : 8;  // <= 0: no load, zeros
      unsigned x[m_groups][4];
#pragma unroll
      for (int j = 0; j < m_groups; ++j) skinny_detail::load8<VEC, false>(arow[j] + k, valid, 0, x[j]);
#pragma unroll
      for (int i = 0; i < r_tiles; ++i) {
        unsigned wl[4], wh[4];
        skinny_detail::load8<VEC, true>(wrow[i][0] + k, valid, pol, wl);
        skinny_detail::load8<VEC, true>(wrow[i][1] + k, valid, pol, wh);
#pragma unroll
        for (int j = 0; j < m_groups; ++j) mma_chunk(wl, wh, x[j], acc[i][j]);
      }
    }
  }

  static __device__ __forceinline__ void main_loop(const gemm_args& a, const tile_t& tl, int group,
                                                   int sub, int lane,
                                                   float (&acc)[r_tiles][m_groups][4]) {
    const unsigned long long pol = skinny_detail::evict_first_policy();
    const int g = lane >> 2, t = lane & 3;
    const u16* b = static_cast<const u16*>(a.b);
    u16 const* wrow[r_tiles][2];
#pragma unroll
    for (int i = 0; i < r_tiles; ++i)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        long long n = tl.n0 + (static_cast<long long>(group) * r_tiles + i) * 16 + h * 8 + g;
        if (n > a.n - 1) n = a.n - 1;  // past N: re-read the last column, never stored
        wrow[i][h] = b + n * a.ldb;
      }
    u16 const* arow[m_groups];
#pragma unroll
    for (int j = 0; j < m_groups; ++j) {
      long long m = tl.m0 + j * 8 + g;
      if (m > a.m - 1) m = a.m - 1;  // past M: re-read the last row, never stored
      arow[j] = static_cast<const u16*>(a.a) + m * a.lda;
    }
    const bool vec = ((reinterpret_cast<unsigned long long>(a.a) |
                       reinterpret_cast<unsigned long long>(a.b)) & 15) == 0 &&
                     (a.lda & 7) == 0 && (a.ldb & 7) == 0;
    if (!vec) {
      tail<false>(wrow, arow, tl.kb + sub * 32, tl.ke, group_warps * 32, t, pol, acc);
      return;
    }
    const int kofs = sub * K_CHUNK + 8 * t;  // this lane's offset inside a step
    int s = tl.kb;
    if (s + step_k <= tl.ke) {
      weights_t cur, nxt;
      load_weights(wrow, s + kofs, pol, cur);
      while (true) {
        const bool more = s + 2 * step_k <= tl.ke;
        if (more) load_weights(wrow, s + step_k + kofs, pol, nxt);
        compute(arow, s + kofs, cur, acc);
        s += step_k;
        if (!more) break;
        const bool more2 = s + 2 * step_k <= tl.ke;
        if (more2) load_weights(wrow, s + step_k + kofs, pol, cur);
        compute(arow, s + kofs, nxt, acc);
        s += step_k;
        if (!more2) break;
      }
    }
    tail<true>(wrow, arow, s + sub * 32, tl.ke, group_warps * 32, t, pol, acc);
  }

  static __device__ void run(const gemm_args& a) {
    __shared__ float red[smem_floats > 0 ? smem_floats : 1];
    __shared__ unsigned last_flag;
    const int tid = static_cast<int>(threadIdx.x);
    const int lane = tid & 31, warp = tid >> 5;
    const int group = warp / group_warps, sub = warp % group_warps;

    tile_t tl;
    tl.m0 = static_cast<long long>(blockIdx.y) * M_TILE;
    tl.n0 = static_cast<long long>(blockIdx.x) * BLOCK_N;
    if constexpr (SPLIT_K == 1) {
      tl.kb = 0;
      tl.ke = a.k;
    } else {
      const long long slice = ((static_cast<long long>(a.k) + SPLIT_K - 1) / SPLIT_K + 7) / 8 * 8;
      const long long kb = slice * blockIdx.z;
      tl.kb = static_cast<int>(kb < a.k ? kb : a.k);
      tl.ke = static_cast<int>(kb + slice < a.k ? kb + slice : a.k);
    }

    float acc[r_tiles][m_groups][4];
#pragma unroll
    for (int i = 0; i < r_tiles; ++i)
#pragma unroll
      for (int j = 0; j < m_groups; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.f;
    main_loop(a, tl, group, sub, lane, acc);

    const unsigned tile = blockIdx.y * gridDim.x + blockIdx.x;
    float* partials = nullptr;
    if constexpr (SPLIT_K > 1)
      partials = reinterpret_cast<float*>(static_cast<char*>(a.workspace) + skinny_split_counter_bytes) +
                 (static_cast<long long>(tile) * SPLIT_K + blockIdx.z) * tile_outputs;

    // Fragment element e of tile (i, j): column 16 i + 8 (e / 2) + g of the warp's tiles, row
    // 8 j + 2 t + e % 2 of the block's rows.
    const int g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int i = 0; i < r_tiles; ++i)
#pragma unroll
      for (int j = 0; j < m_groups; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int col = (group * r_tiles + i) * 16 + (e >> 1) * 8 + g;
          const int row = j * 8 + 2 * t + (e & 1);
          const int o = row * BLOCK_N + col;
          if constexpr (producers > 1) {
            red[sub * tile_outputs + o] = acc[i][j][e];
          } else if constexpr (SPLIT_K > 1) {
            partials[o] = acc[i][j][e];
          } else {
            const long long m = tl.m0 + row, n = tl.n0 + col;
            if (m < a.m && n < a.n) skinny_detail::store_out<TOut>(a, m, n, acc[i][j][e]);
          }
        }
    if constexpr (producers > 1) {
      __syncthreads();
      for (int o = tid; o < tile_outputs; o += THREADS) {
        float s = red[o];
#pragma unroll 4
        for (int p = 1; p < producers; ++p) s += red[p * tile_outputs + o];
        if constexpr (SPLIT_K > 1) {
          partials[o] = s;
        } else {
          const long long m = tl.m0 + o / BLOCK_N, n = tl.n0 + o % BLOCK_N;
          if (m < a.m && n < a.n) skinny_detail::store_out<TOut>(a, m, n, s);
        }
      }
    }
    if constexpr (SPLIT_K > 1)
      skinny_detail::split_k_finish<TOut, SPLIT_K, THREADS, BLOCK_N, tile_outputs>(a, tile, tl.m0,
                                                                                   tl.n0, last_flag);
  }
};

}  // namespace cuop::kernels::gemm
