// Softmax family block_row: one block of BLOCK_THREADS owns a row, each thread keeps CHUNKS
// vectors of VEC elements in registers (and SMEM_CHUNKS more in shared memory, below). Handles
// cols <= VEC * BLOCK_THREADS * (CHUNKS + SMEM_CHUNKS) in a single
// pass (one read, one write) with one __syncthreads per row. Grid: 1-D, strided over rows.
// PERSISTENT (1): the host caps the grid at the resident block count and each block prefetches
// its next row when registers allow. 0: one block per row (the hardware hands out rows as blocks
// finish, so no block is left with an extra row at the end), no prefetch, fewer registers.
// SMEM_CHUNKS (> 0, with PERSISTENT 0 only): each thread holds SMEM_CHUNKS more vectors in
// dynamic shared memory (smem_tile.cuh; SMEM_CHUNKS * BLOCK_THREADS * VEC * sizeof(T) bytes at
// launch), so one block holds rows that registers alone cannot (64k f32 columns).
#pragma once

#include "cuop/kernels/softmax/common.cuh"
#include "cuop/kernels/softmax/smem_tile.cuh"

namespace cuop::kernels::softmax {

template <typename T, int VEC, int BLOCK_THREADS, int CHUNKS, int PERSISTENT = 1, int SMEM_CHUNKS = 0>
struct block_row {
  static constexpr int block_threads = BLOCK_THREADS;
  static constexpr long long cols_in_registers = static_cast<long long>(VEC) * BLOCK_THREADS * CHUNKS;
  static constexpr long long cols_per_row = cols_in_registers + static_cast<long long>(VEC) * BLOCK_THREADS * SMEM_CHUNKS;
  static_assert(BLOCK_THREADS % 32 == 0 && BLOCK_THREADS <= 1024, "whole warps, <= 1024 threads");
  static_assert(CHUNKS >= 1, "chunks >= 1");
  static_assert(PERSISTENT == 0 || PERSISTENT == 1, "persistent: 0 or 1");
  static_assert(SMEM_CHUNKS >= 0 && (SMEM_CHUNKS == 0 || PERSISTENT == 0),
                "smem_chunks >= 0, and only with persistent 0");

  using tile_t = detail::tile<T, VEC, BLOCK_THREADS, CHUNKS>;
  using scratch_t = float2[2][BLOCK_THREADS / 32];
  using smem_t = detail::smem_tile<T, VEC, BLOCK_THREADS, SMEM_CHUNKS>;
  static constexpr bool prefetch = PERSISTENT && detail::prefetch_fits<T, VEC, CHUNKS, BLOCK_THREADS>;

  struct where {
    const T* in;
    T* out;
    detail::row_layout<T, VEC> layout;
  };

  static __device__ __forceinline__ where locate(const softmax_args& a, long long row) {
    const T* in = detail::row_ptr<T>(a.in, row, a.in_stride);
    T* out = detail::row_ptr<T>(a.out, row, a.out_stride);
    return {in, out, detail::row_layout<T, VEC>(in, out, a.cols, cols_per_row)};
  }

  static __device__ __forceinline__ void finish(tile_t& x, const where& w, long long cols,
                                                scratch_t& scratch, int parity) {
    const detail::stats r = detail::block_reduce<BLOCK_THREADS>(x.local_stats(), scratch, parity);
    x.store(w.out, 0, cols, w.layout, threadIdx.x, r);
  }

  static __device__ __forceinline__ void step(tile_t& cur, tile_t& next, const softmax_args& a,
                                              const where& w, long long row, where& w_next,
                                              scratch_t& scratch, int parity) {
    const long long r = row + gridDim.x;
    if (r < a.rows) {
      w_next = locate(a, r);
      next.load(w_next.in, 0, a.cols, w_next.layout, threadIdx.x);
    }
    finish(cur, w, a.cols, scratch, parity);
  }

  // One row, part in registers and part in shared memory: the shared part's copies are issued
  // first so that all of the row's loads are in flight together.
  static __device__ __forceinline__ void run_with_smem(const softmax_args& a, scratch_t& scratch) {
    const smem_t s(static_cast<unsigned>(__cvta_generic_to_shared(detail::dynamic_smem)));
    int parity = 0;
    for (long long row = blockIdx.x; row < a.rows; row += gridDim.x, parity ^= 1) {
      const where w = locate(a, row);
      tile_t t0;
      s.load(w.in, cols_in_registers, a.cols, w.layout, threadIdx.x);
      t0.load(w.in, 0, a.cols, w.layout, threadIdx.x);
      smem_t::wait();
      const detail::stats mine = detail::combine(t0.local_stats(), s.local_stats(threadIdx.x));
      const detail::stats r = detail::block_reduce<BLOCK_THREADS>(mine, scratch, parity);
      t0.store(w.out, 0, a.cols, w.layout, threadIdx.x, r);
      s.store(w.out, cols_in_registers, a.cols, w.layout, threadIdx.x, r);
    }
  }

  static __device__ void run(const softmax_args& a) {
    __shared__ scratch_t scratch;
    if constexpr (SMEM_CHUNKS > 0) {
      run_with_smem(a, scratch);
      return;
    }
    long long row = blockIdx.x;
    if constexpr (prefetch) {
      tile_t t0, t1;
      where w0, w1;
      if (row < a.rows) {
        w0 = locate(a, row);
        t0.load(w0.in, 0, a.cols, w0.layout, threadIdx.x);
      }
      while (row < a.rows) {
        step(t0, t1, a, w0, row, w1, scratch, 0);
        row += gridDim.x;
        if (row >= a.rows) break;
        step(t1, t0, a, w1, row, w0, scratch, 1);
        row += gridDim.x;
      }
    } else {
      for (int parity = 0; row < a.rows; row += gridDim.x, parity ^= 1) {
        tile_t t0;
        const where w0 = locate(a, row);
        t0.load(w0.in, 0, a.cols, w0.layout, threadIdx.x);
        finish(t0, w0, a.cols, scratch, parity);
      }
    }
  }
};

}  // namespace cuop::kernels::softmax
