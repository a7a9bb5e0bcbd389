// GEMM family mma: tensor cores through mma.sync.m16n8k16 (f16/bf16 in, f32 accumulation), the
// Ampere-style path that runs on sm_80, sm_90a and sm_100a alike.
//
//   grid   x: tiles_m * tiles_n output tiles of BLOCK_M x BLOCK_N, in grouped order: GROUP_M tile
//             rows per group, a group walked column by column, so consecutive blocks share B tiles
//             (and A tiles) in L2 (Triton's grouped ordering)
//          z: SPLIT_K slices of K, each a whole number of BLOCK_K tiles (trailing ones may be empty)
//   block  WARPS_M x WARPS_N warps, each owning a WARP_M x WARP_N tile of the output
//   smem   STAGES buffers of {A: BLOCK_M x BLOCK_K, B: BLOCK_N x BLOCK_K (column-major B) or
//          BLOCK_K x BLOCK_N (row-major B)} 16-bit elements, filled by 16-byte cp.async and read by
//          ldmatrix.x4 (.trans for row-major B). 16-byte chunks are XOR-swizzled so that the eight
//          rows one ldmatrix phase reads, and the eight chunks a 128-byte store covers, fall in
//          different banks.
//
// Main loop, per k tile of BLOCK_K / 16 steps: the copies of tile t + STAGES - 1 are issued
// during the first steps (A in step 0, B in step 1, between the mma of tile t); register fragments
// are double-buffered, so the ldmatrix of step k + 1 is in flight during the mma of step k; one
// cp.async.wait_group + __syncthreads per tile.
//
// Edges and alignment: rows and 16-byte chunks outside A or B are zero-filled by cp.async with a
// zero source size (from a valid address, nothing read); a chunk cut by the K edge (or the N edge
// of row-major B) is filled element by element, so no copy reads a byte past an operand. An operand
// whose 16-byte chunks would be misaligned (base pointer not 16-byte aligned or leading dimension
// not a multiple of 8 elements) is loaded element by element (correct for any layout, slower).
// A block whose copies are all whole, aligned chunks (K a multiple of 8, both operands aligned,
// and for row-major B its columns a multiple of 8 or whole) runs a main loop without any branch;
// the others run one with uniform branches per operand and tile. Outputs are stored predicated;
// C is read only when beta != 0.
//
// Split-K (SPLIT_K > 1): every non-empty slice stores its f32 partial tile to the workspace, then
// counts itself in the tile's counter (release); the last to arrive (acquire) adds the partials in
// slice order (the sum does not depend on arrival order), applies the epilogue and puts the counter
// back to 0, so a workspace zeroed once stays valid for every later launch, of any problem and any
// configuration. One launch at a time per workspace. Layout (detail::mma_split_* below):
//   bytes [0, mma_split_counter_bytes)    u32 counter per output tile (<= mma_split_max_tiles)
//   then f32 partials[SPLIT_K][tiles][BLOCK_M * BLOCK_N], each tile in the order its threads hold
//   their accumulators (fully coalesced float4 stores and loads).
// kernels/src/gemm/family.cpp plans the same sizes.
//
// Accepted by nvcc and NVRTC alike: no host standard headers.
// size-limit: one kernel and its device helpers; moving code out changes the family's source hash (stale results)
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "cuop/kernels/common/mma_sync.cuh"
#include "cuop/kernels/gemm/args.cuh"
#include "cuop/kernels/gemm/epilogue.cuh"

namespace cuop::kernels::gemm {

namespace detail {

// Split-K workspace: counters first (a fixed region, so counters of one problem or configuration
// never overlap partials of another), partials after.
inline constexpr int mma_split_max_tiles = 16384;
inline constexpr long long mma_split_counter_bytes = 4ll * mma_split_max_tiles;

template <typename T> inline constexpr bool is_bf16_v = false;
template <> inline constexpr bool is_bf16_v<__nv_bfloat16> = true;
template <typename T> inline constexpr bool is_f16_v = false;
template <> inline constexpr bool is_f16_v<__half> = true;
template <typename A, typename B> inline constexpr bool same_v = false;
template <typename A> inline constexpr bool same_v<A, A> = true;

using common::smem_addr;

// 16-byte asynchronous copy of `full` ? all 16 bytes : none (16 zeros, nothing read); not issued
// at all unless `issue`.
__device__ __forceinline__ void cp_async_16(unsigned dst, const void* src, bool full, bool issue) {
  asm volatile(
      "{\n .reg .pred p;\n setp.ne.b32 p, %3, 0;\n"
      " @p cp.async.cg.shared.global [%0], [%1], 16, %2;\n}\n"
      :: "r"(dst), "l"(src), "r"(full ? 16 : 0), "r"(static_cast<int>(issue)) : "memory");
}
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" :: "n"(N) : "memory");
}

__device__ __forceinline__ void st_shared_v4(unsigned dst, const unsigned (&w)[4]) {
  asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};\n"
               :: "r"(dst), "r"(w[0]), "r"(w[1]), "r"(w[2]), "r"(w[3]) : "memory");
}

using common::ldmatrix_x4;
using common::ldmatrix_x4_trans;
using common::mma_16816;

// Index (in 16-byte chunks) of chunk `c` of row `r` in a tile of CPR chunks per row. Rows of 8 or
// more chunks XOR the low three bits of the chunk with the row; shorter rows are treated as one
// run of 128-byte lines, whose chunk bits are XORed with the line number. Either way, 8 rows
// starting at a multiple of 8 read at one logical chunk hit 8 different 16-byte bank groups, and
// each 128-byte line is only permuted within itself. Needs ROWS * CPR to be a multiple of 8.
template <int CPR>
__device__ __forceinline__ int swizzle(int r, int c) {
  if constexpr (CPR % 8 == 0) {
    return r * CPR + (c ^ (r & 7));
  } else {
    const int l = r * CPR + c;
    return l ^ ((l >> 3) & 7);
  }
}

// Copies one ROWS x (8 * CPR) tile of 16-bit elements (row-major in global memory with leading
// dimension ld, contiguous along the 8 * CPR side) to swizzled shared memory. Thread t copies
// chunks t, t + THREADS, ...; `g` follows the thread's first chunk from tile to tile. Rows
// [0, row_lim) and columns [0, col_lim) of the tile exist; the rest is zero-filled.
template <int ROWS, int CPR, int THREADS>
struct tile_copy {
  static constexpr int chunks = ROWS * CPR;
  static constexpr int iters = (chunks + THREADS - 1) / THREADS;
  static constexpr bool fixed_col = THREADS % CPR == 0;  // a thread's chunk column never changes
  static constexpr int row_step = THREADS / CPR;
  static_assert(chunks % 8 == 0, "a tile is a whole number of 128-byte lines");

  const unsigned short* g;  // fixed_col: this thread's first chunk; else the tile's origin
  long long ld;
  int r0, c0;               // this thread's first chunk
  unsigned sw0;             // fixed_col: shared offset (bytes) of the first chunk

  // The swizzled offset of chunk i is sw0 + i * (offset between chunks) when the XOR pattern
  // repeats from one of this thread's chunks to the next.
  static constexpr bool linear_sw =
      fixed_col && (CPR % 8 == 0 ? row_step % 8 == 0 : THREADS % 64 == 0);

  __device__ __forceinline__ void init(const void* origin, long long ld_, int tid) {
    ld = ld_;
    r0 = tid / CPR;
    c0 = tid % CPR;
    g = static_cast<const unsigned short*>(origin);
    if constexpr (fixed_col) g += static_cast<long long>(r0) * ld + c0 * 8;
    sw0 = 16u * static_cast<unsigned>(swizzle<CPR>(r0, c0));
  }
  __device__ __forceinline__ void advance(long long elems) { g += elems; }

  __device__ __forceinline__ bool active(int i, int tid) const {
    return chunks % THREADS == 0 || i * THREADS + tid < chunks;
  }
  // Row, column, source and shared offset of this thread's chunk i.
  __device__ __forceinline__ void chunk(int i, int tid, int& r, int& c, const unsigned short*& p,
                                        unsigned& off) const {
    if constexpr (fixed_col) {
      r = r0 + i * row_step;
      c = c0;
      p = g + static_cast<long long>(i * row_step) * ld;
      if constexpr (linear_sw)
        off = sw0 + 16u * static_cast<unsigned>(i * row_step * CPR);
      else
        off = 16u * static_cast<unsigned>(swizzle<CPR>(r, c));
    } else {
      const int id = i * THREADS + tid;
      r = id / CPR;
      c = id % CPR;
      p = g + static_cast<long long>(r) * ld + c * 8;
      off = 16u * static_cast<unsigned>(swizzle<CPR>(r, c));
    }
  }
  // 16-byte copies (base and ld aligned to 8 elements). Whole chunks are copied, chunks outside
  // the tile zero-filled (from a valid address, reading nothing); a chunk cut by col_lim is not
  // copied but left to fix_cut (FIX), so no copy ever covers a byte past the operand. Cuts exist
  // only at the K edge (or the N edge of row-major B) when that edge is not a multiple of 8;
  // without them (FIX false) this is branch-free.
  template <bool FIX>
  __device__ __forceinline__ void load_vec(unsigned dst, int row_lim, int col_lim, const void* safe,
                                           int tid) const {
    if constexpr (fixed_col) {
      // One running source pointer (fewer live registers than one per chunk).
      const int col_left = col_lim - c0 * 8;  // elements of this thread's chunks
      const long long step = static_cast<long long>(row_step) * ld;
      const unsigned short* p = g;
#pragma unroll
      for (int i = 0; i < iters; ++i) {
        if (!active(i, tid)) break;
        const int r = r0 + i * row_step;
        const unsigned off = linear_sw ? sw0 + 16u * static_cast<unsigned>(i * row_step * CPR)
                                       : 16u * static_cast<unsigned>(swizzle<CPR>(r, c0));
        const int left = r < row_lim ? col_left : 0;
        const bool full = left >= 8;
        cp_async_16(dst + off, full ? static_cast<const void*>(p) : safe, full, left <= 0 || full);
        p += step;
      }
    } else {
#pragma unroll
      for (int i = 0; i < iters; ++i) {
        if (!active(i, tid)) break;
        int r, c;
        const unsigned short* p;
        unsigned off;
        chunk(i, tid, r, c, p, off);
        const int left = r < row_lim ? col_lim - c * 8 : 0;
        const bool full = left >= 8;
        cp_async_16(dst + off, full ? static_cast<const void*>(p) : safe, full, left <= 0 || full);
      }
    }
    if constexpr (FIX)
      if (row_lim > 0 && col_lim > 0 && col_lim < 8 * CPR && col_lim % 8 != 0)
        fix_cut(dst, row_lim, col_lim, tid);
  }

  // The chunks of this thread cut by col_lim: their existing elements, element by element.
  __device__ __forceinline__ void fix_cut(unsigned dst, int row_lim, int col_lim, int tid) const {
#pragma unroll 1
    for (int i = 0; i < iters; ++i) {
      if (!active(i, tid)) break;
      int r, c;
      const unsigned short* p;
      unsigned off;
      chunk(i, tid, r, c, p, off);
      const int left = col_lim - c * 8;
      if (r < row_lim && left > 0 && left < 8) store_elems(dst + off, p, left);
    }
  }

  // Elements [0, left) of the chunk at p (zeros after) to shared memory.
  static __device__ __forceinline__ void store_elems(unsigned dst, const unsigned short* p, int left) {
    unsigned w[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const unsigned lo = 2 * j < left ? __ldg(p + 2 * j) : 0u;
      const unsigned hi = 2 * j + 1 < left ? __ldg(p + 2 * j + 1) : 0u;
      w[j] = lo | (hi << 16);
    }
    st_shared_v4(dst, w);
  }

  // Element by element, for misaligned operands: plain loads of the elements that exist, zeros
  // elsewhere, one 16-byte shared store per chunk.
  __device__ __forceinline__ void load_elems(unsigned dst, int row_lim, int col_lim, int tid) const {
#pragma unroll 1
    for (int i = 0; i < iters; ++i) {
      if (!active(i, tid)) break;
      int r, c;
      const unsigned short* p;
      unsigned off;
      chunk(i, tid, r, c, p, off);
      store_elems(dst + off, p, r < row_lim ? col_lim - c * 8 : 0);
    }
  }
};

__device__ __forceinline__ bool vec16_ok(const void* p, long long ld) {
  return reinterpret_cast<unsigned long long>(p) % 16 == 0 && ld % 8 == 0;
}

__device__ __forceinline__ unsigned atom_add_acq_rel(unsigned* p, unsigned v) {
  unsigned old;
  asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], %2;\n" : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
}
__device__ __forceinline__ void st_relaxed(unsigned* p, unsigned v) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;\n" :: "l"(p), "r"(v) : "memory");
}

}  // namespace detail

template <typename TIn, typename TOut, bool B_COL, int BLOCK_M, int BLOCK_N, int BLOCK_K,
          int WARP_M, int WARP_N, int STAGES, int GROUP_M, int SPLIT_K>
struct mma {
  static_assert(detail::is_bf16_v<TIn> || detail::is_f16_v<TIn>, "inputs are f16 or bf16");
  static_assert(detail::same_v<TOut, float> || detail::same_v<TOut, TIn>, "output is f32 or the input type");
  static_assert(BLOCK_M % WARP_M == 0 && BLOCK_N % WARP_N == 0, "warp tiles divide the block tile");
  static_assert(WARP_M % 16 == 0 && WARP_N % 16 == 0, "warp tile is a multiple of 16 x 16");
  static_assert(BLOCK_K == 16 || BLOCK_K == 32 || BLOCK_K == 64, "block_k is 16, 32 or 64");
  static_assert(STAGES >= 2, "at least two stages");
  static_assert(GROUP_M >= 1 && SPLIT_K >= 1, "group_m and split_k >= 1");

  static constexpr int warps_m = BLOCK_M / WARP_M;
  static constexpr int warps_n = BLOCK_N / WARP_N;
  static constexpr int block_threads = 32 * warps_m * warps_n;
  static_assert(block_threads <= 1024, "at most 1024 threads");

  static constexpr int mma_m = WARP_M / 16;  // m16 tiles per warp
  static constexpr int mma_n = WARP_N / 8;   // n8 tiles per warp
  static constexpr int k_steps = BLOCK_K / 16;
  static constexpr int a_cpr = BLOCK_K / 8;                   // 16-byte chunks per row of A
  static constexpr int b_cpr = B_COL ? BLOCK_K / 8 : BLOCK_N / 8;
  static constexpr int b_rows = B_COL ? BLOCK_N : BLOCK_K;
  static constexpr int a_bytes = BLOCK_M * BLOCK_K * 2;
  static constexpr int b_bytes = BLOCK_N * BLOCK_K * 2;
  static constexpr int stage_bytes = a_bytes + b_bytes;
  static constexpr int smem_bytes = STAGES * stage_bytes;

  using a_copy = detail::tile_copy<BLOCK_M, a_cpr, block_threads>;
  using b_copy = detail::tile_copy<b_rows, b_cpr, block_threads>;
  
  struct frags {
    unsigned a[mma_m][4];
    unsigned b[mma_n][2];
  };

  // Fragments of k step `kk` of the stage at shared address `stage`.
  static __device__ __forceinline__ void load_frags(frags& f, unsigned stage, int kk, int wm, int wn,
                                                    int lane) {
#pragma unroll
    for (int i = 0; i < mma_m; ++i) {
      const int r = wm + i * 16 + (lane & 15);
      const int c = kk * 2 + (lane >> 4);
      detail::ldmatrix_x4(f.a[i], stage + 16u * detail::swizzle<a_cpr>(r, c));
    }
    const unsigned b_stage = stage + a_bytes;
#pragma unroll
    for (int j = 0; j < mma_n / 2; ++j) {
      unsigned r4[4];
      if constexpr (B_COL) {  // rows are n, chunks along k
        const int r = wn + j * 16 + (lane & 7) + ((lane >> 4) << 3);
        const int c = kk * 2 + ((lane >> 3) & 1);
        detail::ldmatrix_x4(r4, b_stage + 16u * detail::swizzle<b_cpr>(r, c));
      } else {  // rows are k, chunks along n: transposed on the way to registers
        const int r = kk * 16 + (lane & 7) + (((lane >> 3) & 1) << 3);
        const int c = (wn + j * 16) / 8 + (lane >> 4);
        detail::ldmatrix_x4_trans(r4, b_stage + 16u * detail::swizzle<b_cpr>(r, c));
      }
      f.b[2 * j][0] = r4[0];
      f.b[2 * j][1] = r4[1];
      f.b[2 * j + 1][0] = r4[2];
      f.b[2 * j + 1][1] = r4[3];
    }
  }

  static __device__ __forceinline__ void compute(float (&acc)[mma_m][mma_n][4], const frags& f) {
#pragma unroll
    for (int i = 0; i < mma_m; ++i)
#pragma unroll
      for (int jj = 0; jj < mma_n; ++jj) {
        const int j = (i % 2) ? mma_n - 1 - jj : jj;  // serpentine: reuse the last B fragment
        detail::mma_16816<TIn>(acc[i][j], f.a[i], f.b[j]);
      }
  }

  // The copy side of the pipeline: where this block's tiles come from.
  struct loader {
    a_copy ac;
    b_copy bc;
    long long b_step;    // elements between the B tiles of consecutive k tiles
    unsigned smem;       // shared address of stage 0
    int m_left, n_left;  // rows of A and columns of B from this block's origin
    bool a_vec, b_vec;   // 16-byte copies are aligned for A / B

    // Issues the copies of operand OP (0: A, 1: B) of k tile `kt` (absolute) into `stage` and
    // moves that operand on to the next tile; a tile past the slice (`valid` false) is zero-filled
    // without reading anything. FAST: both operands take 16-byte copies and no chunk is cut by an
    // edge (no branch at all); else each operand branches uniformly between the 16-byte copies
    // (with the fix-up of cut chunks) and the element-wise copy.
    template <bool FAST, int OP>
    __device__ __forceinline__ void load(const gemm_args& a, int stage, int kt, bool valid, int tid) {
      const unsigned s = smem + static_cast<unsigned>(stage * stage_bytes);
      const int k_left = valid ? a.k - kt * BLOCK_K : 0;
      if constexpr (OP == 0) {
        const int rows = valid ? m_left : 0;
        if (FAST)
          ac.template load_vec<false>(s, rows, k_left, a.a, tid);
        else if (a_vec)
          ac.template load_vec<true>(s, rows, k_left, a.a, tid);
        else
          ac.load_elems(s, rows, k_left, tid);
        ac.advance(BLOCK_K);
      } else {
        const int rows = B_COL ? (valid ? n_left : 0) : k_left;
        const int cols = B_COL ? k_left : n_left;
        if (FAST)
          bc.template load_vec<false>(s + a_bytes, rows, cols, a.b, tid);
        else if (b_vec)
          bc.template load_vec<true>(s + a_bytes, rows, cols, a.b, tid);
        else
          bc.load_elems(s + a_bytes, rows, cols, tid);
        bc.advance(b_step);
      }
    }
    template <bool FAST>
    __device__ __forceinline__ void load_tile(const gemm_args& a, int stage, int kt, bool valid, int tid) {
      load<FAST, 0>(a, stage, kt, valid, tid);
      load<FAST, 1>(a, stage, kt, valid, tid);
    }
  };

  struct pipeline {
    frags f[2];
    int read_stage;   // stage the fragments are read from
    int write_stage;  // stage the next copy goes to
    int next_kt;      // k tile (relative to the slice) the next copy fetches
  };

  // One k tile: BLOCK_K / 16 steps, each loading the next step's fragments before the mma of this
  // one; the copies of tile t + STAGES - 1 are issued in the first steps (A in step 0, B in step
  // 1), spread between the mma. P0 (the tile's parity) keeps the fragment buffer a compile-time
  // index when a tile has an odd number of steps.
  template <bool FAST, int P0>
  static __device__ __forceinline__ void k_tile(const gemm_args& a, loader& ld, pipeline& p,
                                                float (&acc)[mma_m][mma_n][4], int kt0, int k_tiles,
                                                int wm, int wn, int lane, int tid) {
#pragma unroll
    for (int kk = 0; kk < k_steps; ++kk) {
      constexpr int b_step_kk = k_steps > 1 ? 1 : 0;
      if (kk == 0)
        ld.template load<FAST, 0>(a, p.write_stage, kt0 + p.next_kt, p.next_kt < k_tiles, tid);
      if (kk == b_step_kk) {
        ld.template load<FAST, 1>(a, p.write_stage, kt0 + p.next_kt, p.next_kt < k_tiles, tid);
        detail::cp_async_commit();
        ++p.next_kt;
        p.write_stage = p.write_stage + 1 == STAGES ? 0 : p.write_stage + 1;
      }
      if (kk == k_steps - 1) {  // the next tile's stage must have landed, for every thread
        detail::cp_async_wait<STAGES - 2>();
        __syncthreads();
        p.read_stage = p.read_stage + 1 == STAGES ? 0 : p.read_stage + 1;
      }
      const int cur = (P0 * k_steps + kk) & 1;
      load_frags(p.f[cur ^ 1], ld.smem + static_cast<unsigned>(p.read_stage * stage_bytes),
                 (kk + 1) % k_steps, wm, wn, lane);
      compute(acc, p.f[cur]);
    }
  }

  // The whole slice: prologue of STAGES - 1 copies, then one k_tile per k tile.
  template <bool FAST>
  static __device__ __forceinline__ void mainloop(const gemm_args& a, loader& ld,
                                                  float (&acc)[mma_m][mma_n][4], int kt0, int k_tiles,
                                                  int wm, int wn, int lane, int tid) {
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
      ld.template load_tile<FAST>(a, s, kt0 + s, s < k_tiles, tid);
      detail::cp_async_commit();
    }
    detail::cp_async_wait<STAGES - 2>();
    __syncthreads();

    pipeline p{{frags{}, frags{}}, 0, STAGES - 1, STAGES - 1};
    load_frags(p.f[0], ld.smem, 0, wm, wn, lane);
    if constexpr (k_steps % 2 == 0) {
      for (int kt = 0; kt < k_tiles; ++kt) k_tile<FAST, 0>(a, ld, p, acc, kt0, k_tiles, wm, wn, lane, tid);
    } else {  // an odd number of k steps per tile: alternate the fragment buffers by tile
      for (int kt = 0; kt < k_tiles; kt += 2) {
        k_tile<FAST, 0>(a, ld, p, acc, kt0, k_tiles, wm, wn, lane, tid);
        if (kt + 1 < k_tiles) k_tile<FAST, 1>(a, ld, p, acc, kt0, k_tiles, wm, wn, lane, tid);
      }
    }
    detail::cp_async_wait<0>();
  }

  static __device__ void run(const gemm_args& a) {
    // #lizard forgives(length): tile order, main loop, split-K reduction and epilogue share the accumulators in registers
    extern __shared__ __align__(128) unsigned char cuop_gemm_smem[];
    const int tid = static_cast<int>(threadIdx.x);
    const int lane = tid & 31;
    const int warp = tid >> 5;
    const int wm = (warp % warps_m) * WARP_M;
    const int wn = (warp / warps_m) * WARP_N;

    // Grouped tile order.
    const int tiles_m = (a.m + BLOCK_M - 1) / BLOCK_M;
    const int tiles_n = (a.n + BLOCK_N - 1) / BLOCK_N;
    const int pid = static_cast<int>(blockIdx.x);
    if (pid >= tiles_m * tiles_n) return;
    const int group = GROUP_M < tiles_m ? GROUP_M : tiles_m;
    const int per_group = group * tiles_n;
    const int first_m = (pid / per_group) * group;
    const int group_rows = tiles_m - first_m < group ? tiles_m - first_m : group;
    const int in_group = pid % per_group;
    const int tile_m = first_m + in_group % group_rows;
    const int tile_n = in_group / group_rows;
    const int m0 = tile_m * BLOCK_M;
    const int n0 = tile_n * BLOCK_N;

    // This slice's k tiles.
    const int k_tiles_all = (a.k + BLOCK_K - 1) / BLOCK_K;
    const int slice_tiles = SPLIT_K > 1 ? (k_tiles_all + SPLIT_K - 1) / SPLIT_K : k_tiles_all;
    const int slice = SPLIT_K > 1 ? static_cast<int>(blockIdx.z) : 0;
    const int kt0 = slice * slice_tiles < k_tiles_all ? slice * slice_tiles : k_tiles_all;
    const int kt1 = kt0 + slice_tiles < k_tiles_all ? kt0 + slice_tiles : k_tiles_all;
    const int k_tiles = kt1 - kt0;

    loader ld;
    ld.smem = detail::smem_addr(cuop_gemm_smem);
    ld.a_vec = detail::vec16_ok(a.a, a.lda);
    ld.b_vec = detail::vec16_ok(a.b, a.ldb);
    ld.m_left = a.m - m0;
    ld.n_left = a.n - n0;
    const TIn* A = static_cast<const TIn*>(a.a);
    const TIn* B = static_cast<const TIn*>(a.b);
    ld.ac.init(A + static_cast<long long>(m0) * a.lda + static_cast<long long>(kt0) * BLOCK_K, a.lda, tid);
    if constexpr (B_COL) {
      ld.bc.init(B + static_cast<long long>(n0) * a.ldb + static_cast<long long>(kt0) * BLOCK_K, a.ldb, tid);
      ld.b_step = BLOCK_K;
    } else {
      ld.bc.init(B + static_cast<long long>(kt0) * BLOCK_K * a.ldb + n0, a.ldb, tid);
      ld.b_step = BLOCK_K * a.ldb;
    }

    float acc[mma_m][mma_n][4];
#pragma unroll
    for (int i = 0; i < mma_m; ++i)
#pragma unroll
      for (int j = 0; j < mma_n; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.f;

    if (k_tiles > 0) {
      // No chunk is cut by an edge: K (rows of A, columns of column-major B) is a multiple of 8,
      // and so are the columns of row-major B this block reads.
      const bool no_cut = a.k % 8 == 0 && (B_COL || ld.n_left >= BLOCK_N || ld.n_left % 8 == 0);
      if (ld.a_vec && ld.b_vec && no_cut)
        mainloop<true>(a, ld, acc, kt0, k_tiles, wm, wn, lane, tid);
      else
        mainloop<false>(a, ld, acc, kt0, k_tiles, wm, wn, lane, tid);
    }

    const bool d_vec = detail::pairs_ok<TOut>(a.d, a.ldd);
    const bool c_vec = detail::pairs_ok<TOut>(a.c, a.ldc);

    if constexpr (SPLIT_K > 1) {
      const int tiles = tiles_m * tiles_n;
      unsigned* counter = static_cast<unsigned*>(a.workspace) + pid;
      float* partials = reinterpret_cast<float*>(static_cast<unsigned char*>(a.workspace) +
                                                 detail::mma_split_counter_bytes);
      constexpr int tile_floats = BLOCK_M * BLOCK_N;
      float4* mine = reinterpret_cast<float4*>(
          partials + (static_cast<long long>(slice) * tiles + pid) * tile_floats);
      // Float4 number v = i * mma_n + j of a thread is acc[i][j].
      if (k_tiles > 0) {
#pragma unroll
        for (int i = 0; i < mma_m; ++i)
#pragma unroll
          for (int j = 0; j < mma_n; ++j)
            __stcg(mine + (i * mma_n + j) * block_threads + tid,
                   make_float4(acc[i][j][0], acc[i][j][1], acc[i][j][2], acc[i][j][3]));
      }
      // Every thread's partial (and every read of shared memory) precedes the arrival.
      __syncthreads();
      unsigned* last_flag = reinterpret_cast<unsigned*>(cuop_gemm_smem);
      if (tid == 0) {
        __threadfence();
        const unsigned arrived = detail::atom_add_acq_rel(counter, 1u);
        const bool last = arrived == SPLIT_K - 1;
        if (last) detail::st_relaxed(counter, 0u);  // every slice has arrived: ready for the next launch
        __threadfence();
        *last_flag = last ? 1u : 0u;
      }
      __syncthreads();
      if (*last_flag == 0u) return;
      // Slices with at least one k tile (the others stored nothing).
      const int slices = slice_tiles > 0 ? (k_tiles_all + slice_tiles - 1) / slice_tiles : 0;
      const float4* base = reinterpret_cast<const float4*>(partials) +
                           static_cast<long long>(pid) * (tile_floats / 4) + tid;
      const long long slice_stride = static_cast<long long>(tiles) * (tile_floats / 4);
#pragma unroll
      for (int i = 0; i < mma_m; ++i)
#pragma unroll
        for (int j = 0; j < mma_n; ++j) {
          float4 t = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
          for (int s = 0; s < SPLIT_K; ++s) {
            float4 p;
            if (s == slice) {
              p = make_float4(acc[i][j][0], acc[i][j][1], acc[i][j][2], acc[i][j][3]);
            } else if (s < slices) {
              p = __ldcg(base + s * slice_stride + (i * mma_n + j) * block_threads);
            } else {
              continue;
            }
            t.x += p.x;
            t.y += p.y;
            t.z += p.z;
            t.w += p.w;
          }
          acc[i][j][0] = t.x;
          acc[i][j][1] = t.y;
          acc[i][j][2] = t.z;
          acc[i][j][3] = t.w;
        }
    }

#pragma unroll
    for (int i = 0; i < mma_m; ++i)
#pragma unroll
      for (int j = 0; j < mma_n; ++j) {
        const int r = m0 + wm + i * 16 + (lane >> 2);
        const int c = n0 + wn + j * 8 + (lane & 3) * 2;
        detail::store_pair<TOut>(a, r, c, acc[i][j][0], acc[i][j][1], d_vec, c_vec);
        detail::store_pair<TOut>(a, r + 8, c, acc[i][j][2], acc[i][j][3], d_vec, c_vec);
      }
  }
};

}  // namespace cuop::kernels::gemm
