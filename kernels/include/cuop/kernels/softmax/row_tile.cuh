// Softmax family row_tile: a block stages ROWS_PER_BLOCK whole rows in shared memory, computes
// each row there with THREADS_PER_ROW lanes (CHUNKS elements a lane in registers), and writes
// the tile back. For short rows whose length is not a multiple of the vector width: consecutive
// rows of a contiguous tensor are one contiguous range, so the tile moves through global memory
// in whole aligned VEC-element vectors (only its two edge vectors element by element), where
// warp_row must go element by element wherever a row starts off the vector grid.
// Handles cols <= THREADS_PER_ROW * CHUNKS. Grid: one block per tile (ceil(rows /
// ROWS_PER_BLOCK)). Rows that are not contiguous (a stride other than cols) or an input and output
// misaligned against each other take the same tile element by element.
// Static shared memory: ROWS_PER_BLOCK * THREADS_PER_ROW * CHUNKS elements and one vector of
// slack at each end.
#pragma once

#include "cuop/kernels/softmax/common.cuh"
#include "cuop/kernels/softmax/smem_tile.cuh"

namespace cuop::kernels::softmax {

template <typename T, int VEC, int THREADS_PER_ROW, int ROWS_PER_BLOCK, int CHUNKS>
struct row_tile {
  static constexpr int block_threads = THREADS_PER_ROW * ROWS_PER_BLOCK;
  static constexpr int cols_per_row = THREADS_PER_ROW * CHUNKS;
  static constexpr int vec_bytes = VEC * static_cast<int>(sizeof(T));
  static constexpr int tile_elems = ROWS_PER_BLOCK * cols_per_row + 2 * VEC;
  static_assert(THREADS_PER_ROW >= 1 && THREADS_PER_ROW <= 32 &&
                (THREADS_PER_ROW & (THREADS_PER_ROW - 1)) == 0, "threads_per_row: 1, 2, 4 .. 32");
  static_assert(block_threads % 32 == 0 && block_threads <= 1024, "whole warps, <= 1024 threads");
  static_assert(CHUNKS >= 1, "chunks >= 1");
  static_assert(vec_bytes == 4 || vec_bytes == 8 || vec_bytes == 16, "vectors of 4, 8 or 16 bytes");
  static_assert(tile_elems * sizeof(T) <= 48 * 1024, "the tile fits 48 KiB of static shared memory");

  using vec_t = detail::packed<T, VEC>;

  // Shared addresses are 32-bit (the NVRTC / nvcc parity note of docs/ARCHITECTURE.md).
  static __device__ __forceinline__ unsigned smem_at(unsigned base, long long i) {
    return base + static_cast<unsigned>(i) * static_cast<unsigned>(sizeof(T));
  }
  // One element through shared memory: smem_tile.cuh's vector accesses at one element.
  using elem_t = detail::packed<T, 1>;
  static __device__ __forceinline__ unsigned ld_shared_elem(unsigned a) {
    return detail::ld_shared_vec<elem_t>(a).w[0];
  }
  static __device__ __forceinline__ void st_shared_elem(unsigned a, unsigned v) {
    elem_t e;
    e.w[0] = v;
    detail::st_shared_vec(a, e);
  }

  // Where the tile lies in global memory. contiguous: element j of the tile (row j / cols,
  // column j % cols) is in[first + j] and out[first + j], and both share the offset `head` of
  // `first` from the vector grid; the shared copy then keeps element j at slot head + j, so that
  // whole vectors line up on both sides. Otherwise element (r, c) sits at slot r * cols + c.
  struct span {
    long long first;  // global element index of the tile's first element (contiguous)
    long long count;  // elements in the tile
    int head;         // slots before element 0
    bool contiguous;
  };

  static __device__ __forceinline__ span locate(const softmax_args& a, long long row0, int rows) {
    span s;
    s.count = static_cast<long long>(rows) * a.cols;
    s.first = row0 * a.cols;
    const auto in = reinterpret_cast<unsigned long long>(static_cast<const T*>(a.in) + s.first);
    const auto out = reinterpret_cast<unsigned long long>(static_cast<const T*>(a.out) + s.first);
    s.contiguous = a.in_stride == a.cols && a.out_stride == a.cols && in % vec_bytes == out % vec_bytes &&
                   in % sizeof(T) == 0;
    s.head = s.contiguous ? static_cast<int>(in % vec_bytes / sizeof(T)) : 0;
    return s;
  }

  // Global memory -> shared: whole vectors where they lie inside the tile, its edges element by element.
  static __device__ __forceinline__ void stage_in(const softmax_args& a, const span& s, long long row0, int rows,
                                                  unsigned base) {
    const T* in = static_cast<const T*>(a.in);
    if (s.contiguous) {
      const T* start = in + s.first - s.head;  // on the vector grid
      const long long vectors = (s.head + s.count + VEC - 1) / VEC;
      for (long long v = threadIdx.x; v < vectors; v += block_threads) {
        const long long slot = v * VEC;
        if (slot >= s.head && slot + VEC <= s.head + s.count) {
          vec_t x;
          common::load_vec<vec_bytes>(start + slot, x.w);
          detail::st_shared_vec(smem_at(base, slot), x);
        } else {
#pragma unroll
          for (int i = 0; i < VEC; ++i)
            if (slot + i >= s.head && slot + i < s.head + s.count)
              st_shared_elem(smem_at(base, slot + i), common::load_elem(start + slot + i));
        }
      }
      return;
    }
    for (long long j = threadIdx.x; j < s.count; j += block_threads) {
      const long long r = j / a.cols, c = j - r * a.cols;
      st_shared_elem(smem_at(base, j), common::load_elem(in + (row0 + r) * a.in_stride + c));
    }
  }

  // Shared -> global memory, the same way.
  static __device__ __forceinline__ void stage_out(const softmax_args& a, const span& s, long long row0,
                                                   unsigned base) {
    T* out = static_cast<T*>(a.out);
    if (s.contiguous) {
      T* start = out + s.first - s.head;
      const long long vectors = (s.head + s.count + VEC - 1) / VEC;
      for (long long v = threadIdx.x; v < vectors; v += block_threads) {
        const long long slot = v * VEC;
        if (slot >= s.head && slot + VEC <= s.head + s.count) {
          const vec_t x = detail::ld_shared_vec<vec_t>(smem_at(base, slot));
          common::store_vec<vec_bytes>(start + slot, x.w);
        } else {
#pragma unroll
          for (int i = 0; i < VEC; ++i)
            if (slot + i >= s.head && slot + i < s.head + s.count)
              common::store_elem(start + slot + i, ld_shared_elem(smem_at(base, slot + i)));
        }
      }
      return;
    }
    for (long long j = threadIdx.x; j < s.count; j += block_threads) {
      const long long r = j / a.cols, c = j - r * a.cols;
      common::store_elem(out + (row0 + r) * a.out_stride + c, ld_shared_elem(smem_at(base, j)));
    }
  }

  // One row in shared memory, in place: lane t holds columns t, t + THREADS_PER_ROW, ...
  static __device__ __forceinline__ void softmax_row(unsigned row_base, int cols, bool valid) {
    const int lane = threadIdx.x % THREADS_PER_ROW;
    float x[CHUNKS];
    float m = detail::neg_inf();
#pragma unroll
    for (int k = 0; k < CHUNKS; ++k) {
      const int c = lane + k * THREADS_PER_ROW;
      x[k] = valid && c < cols ? detail::elem<T>::to_float(ld_shared_elem(smem_at(row_base, c))) : detail::neg_inf();
      m = fmaxf(m, x[k]);
    }
    m *= detail::log2e;
    const float ms = m == detail::neg_inf() ? 0.f : m;
    float s = 0.f;
#pragma unroll
    for (int k = 0; k < CHUNKS; ++k) {
      x[k] = detail::fast_exp2(fmaf(x[k], detail::log2e, -ms));
      s += x[k];
    }
    const detail::stats r = detail::warp_reduce<THREADS_PER_ROW>({m, s});
    // x holds exp2(x*log2e - ms); the row's result is exp2(x*log2e - r.m) / r.s. An all -inf
    // lane has m = -inf and x = 0; an all -inf row divides 0 by 0 (NaN), as the other families.
    const float scale = (m == detail::neg_inf() ? 0.f : detail::fast_exp2(ms - r.m)) / r.s;
#pragma unroll
    for (int k = 0; k < CHUNKS; ++k) {
      const int c = lane + k * THREADS_PER_ROW;
      if (valid && c < cols) st_shared_elem(smem_at(row_base, c), detail::elem<T>::from_float(x[k] * scale));
    }
  }

  static __device__ void run(const softmax_args& a) {
    __shared__ __align__(16) T tile[tile_elems];
    const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(tile));
    const long long row0 = static_cast<long long>(blockIdx.x) * ROWS_PER_BLOCK;
    if (row0 >= a.rows) return;
    const int rows = static_cast<int>(a.rows - row0 < ROWS_PER_BLOCK ? a.rows - row0 : ROWS_PER_BLOCK);
    const span s = locate(a, row0, rows);
    stage_in(a, s, row0, rows, base);
    __syncthreads();
    const int r = static_cast<int>(threadIdx.x / THREADS_PER_ROW);
    const int cols = static_cast<int>(a.cols);
    softmax_row(smem_at(base, s.head + static_cast<long long>(r) * cols), cols, r < rows);
    __syncthreads();
    stage_out(a, s, row0, base);
  }
};

}  // namespace cuop::kernels::softmax
