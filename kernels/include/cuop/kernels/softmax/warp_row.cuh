// Softmax family warp_row: THREADS_PER_ROW lanes (1..32, a power of two) own one row, a block
// holds ROWS_PER_BLOCK rows, each lane keeps CHUNKS vectors of VEC elements in registers.
// Handles cols <= VEC * THREADS_PER_ROW * CHUNKS with one read and one write of the data, and
// reductions by shuffles only. Grid: 1-D, strided over groups of ROWS_PER_BLOCK rows. PERSISTENT
// (1): the host caps the grid at the resident block count and each block prefetches its next
// group when registers allow. 0: one block per group (the hardware hands out groups as blocks
// finish, so no block is left with an extra group at the end), no prefetch, fewer registers.
#pragma once

#include "cuop/kernels/softmax/common.cuh"

namespace cuop::kernels::softmax {

template <typename T, int VEC, int THREADS_PER_ROW, int ROWS_PER_BLOCK, int CHUNKS, int PERSISTENT = 1>
struct warp_row {
  static constexpr int block_threads = THREADS_PER_ROW * ROWS_PER_BLOCK;
  static constexpr long long cols_per_row = static_cast<long long>(VEC) * THREADS_PER_ROW * CHUNKS;
  static_assert(THREADS_PER_ROW >= 1 && THREADS_PER_ROW <= 32 &&
                (THREADS_PER_ROW & (THREADS_PER_ROW - 1)) == 0, "threads_per_row: 1, 2, 4 .. 32");
  static_assert(block_threads % 32 == 0 && block_threads <= 1024, "whole warps, <= 1024 threads");
  static_assert(CHUNKS >= 1, "chunks >= 1");
  static_assert(PERSISTENT == 0 || PERSISTENT == 1, "persistent: 0 or 1");

  using tile_t = detail::tile<T, VEC, THREADS_PER_ROW, CHUNKS>;
  static constexpr bool prefetch = PERSISTENT && detail::prefetch_fits<T, VEC, CHUNKS, block_threads>;

  struct where {
    const T* in;
    T* out;
    long long cols;  // 0 for a lane past the last row: loads nothing, stores nothing
    detail::row_layout<T, VEC> layout;
  };

  static __device__ __forceinline__ where locate(const softmax_args& a, long long group) {
    const long long row = group * ROWS_PER_BLOCK + threadIdx.x / THREADS_PER_ROW;
    const bool valid = row < a.rows;
    const long long r = valid ? row : 0;
    const T* in = detail::row_ptr<T>(a.in, r, a.in_stride);
    T* out = detail::row_ptr<T>(a.out, r, a.out_stride);
    return {in, out, valid ? a.cols : 0, detail::row_layout<T, VEC>(in, out, a.cols, cols_per_row)};
  }

  static __device__ __forceinline__ void finish(tile_t& x, const where& w) {
    const int lane = threadIdx.x % THREADS_PER_ROW;
    const detail::stats r = detail::warp_reduce<THREADS_PER_ROW>(x.local_stats());
    x.store(w.out, 0, w.cols, w.layout, lane, r);
  }

  static __device__ __forceinline__ void step(tile_t& cur, tile_t& next, const softmax_args& a,
                                              const where& w, long long group, long long groups,
                                              where& w_next) {
    const long long g = group + gridDim.x;
    if (g < groups) {
      w_next = locate(a, g);
      next.load(w_next.in, 0, w_next.cols, w_next.layout, threadIdx.x % THREADS_PER_ROW);
    }
    finish(cur, w);
  }

  static __device__ void run(const softmax_args& a) {
    const long long groups = (a.rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK;
    const int lane = threadIdx.x % THREADS_PER_ROW;
    long long g = blockIdx.x;
    if constexpr (prefetch) {
      // Unrolled by two so both tiles stay in fixed registers.
      tile_t t0, t1;
      where w0, w1;
      if (g < groups) {
        w0 = locate(a, g);
        t0.load(w0.in, 0, w0.cols, w0.layout, lane);
      }
      while (g < groups) {
        step(t0, t1, a, w0, g, groups, w1);
        g += gridDim.x;
        if (g >= groups) break;
        step(t1, t0, a, w1, g, groups, w0);
        g += gridDim.x;
      }
    } else {
      for (; g < groups; g += gridDim.x) {
        tile_t t0;
        const where w0 = locate(a, g);
        t0.load(w0.in, 0, w0.cols, w0.layout, lane);
        finish(t0, w0);
      }
    }
  }
};

}  // namespace cuop::kernels::softmax
