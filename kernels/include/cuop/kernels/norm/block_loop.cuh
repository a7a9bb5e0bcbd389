// Normalization family block_loop: one block of BLOCK_THREADS per row of any length, which it
// walks twice in vectors of VEC elements: the first pass sums (and, with a residual, adds it and
// writes the sum back), the second reads the row again, mostly from L2, and writes it
// normalized. For rows longer than the register families hold. LayerNorm's sums are one pass,
// shifted by the row's first element so that a large mean does not cancel the variance away.
// Grid: 1-D, strided over rows.
#pragma once

#include "cuop/kernels/norm/common.cuh"

namespace cuop::kernels::norm {

template <int KIND, typename T, int VEC, int BLOCK_THREADS>
struct block_loop {
  static constexpr int block_threads = BLOCK_THREADS;
  static_assert(KIND == layernorm_kind || KIND == rmsnorm_kind, "kind: layernorm or rmsnorm");
  static_assert(BLOCK_THREADS % 32 == 0 && BLOCK_THREADS <= 1024, "whole warps, <= 1024 threads");

  using tile_t = detail::row_tile<KIND, T, VEC, BLOCK_THREADS, 1>;
  static constexpr long long unbounded = 1ll << 62;

  // Vectors of the row that thread t walks: t, t + BLOCK_THREADS, ... (tile index j * BLOCK_THREADS + t).
  static __device__ __forceinline__ int vectors(int cols, int head) {
    return (cols + head + VEC - 1) / VEC;
  }

  static __device__ void run(const norm_args& a) {
    __shared__ float scratch[2][BLOCK_THREADS / 32];
    int parity = 0;
    const int t = static_cast<int>(threadIdx.x);
    const int cols = static_cast<int>(a.cols);
    for (long long row = blockIdx.x; row < a.rows; row += gridDim.x) {
      const auto p = detail::row_of<T>(a, row);
      const detail::row_layout<T, VEC> l(p, cols, unbounded);
      const int n = vectors(cols, l.head);
      float shift = 0.f;
      if constexpr (KIND == layernorm_kind) shift = common::elem<T>::to_float(common::load_elem(p.x));
      float s1 = 0.f, s2 = 0.f;
      for (int k = t; k < n; k += BLOCK_THREADS) {
        tile_t x;
        x.load(p, cols, l, k);
        if constexpr (KIND == layernorm_kind) s1 += x.sum() - shift * in_row(k, cols, l.head);
        s2 += x.sum_sq(shift, cols, l, k);
      }
      float center = 0.f, rstd = 0.f;
      const float n_cols = static_cast<float>(cols);
      if constexpr (KIND == layernorm_kind) {
        const float d = detail::block_sum<BLOCK_THREADS>(s1, scratch, parity) / n_cols;
        const float ms = detail::block_sum<BLOCK_THREADS>(s2, scratch, parity) / n_cols;
        center = shift + d;
        rstd = rsqrtf(fmaxf(ms - d * d, 0.f) + a.eps);
      } else {
        rstd = detail::rstd_of(detail::block_sum<BLOCK_THREADS>(s2, scratch, parity), cols, a.eps);
      }
      // The normalized row: x again, or the residual sum this thread wrote in the first pass.
      detail::row_ptrs<T> q = p;
      if (KIND == rmsnorm_kind && p.residual) q.x = p.residual;
      for (int k = t; k < n; k += BLOCK_THREADS) {
        tile_t x;
        const int e = tile_t::first(l.head, k);
        if (KIND == rmsnorm_kind && p.residual) tile_t::template load_one<true>(q.x, e, cols, l.fast, x.v[0]);
        else tile_t::load_one(q.x, e, cols, l.fast, x.v[0]);
        x.store(q, cols, l, k, center, rstd);
      }
      if (t == 0) detail::write_stats<KIND>(a, row, center, rstd);
      // The next row's first pass reuses the scratch slots: block_sum's parity keeps them apart.
    }
  }

  // Elements of vector k inside [0, cols): the padding holds 0, which the shift must not count.
  static __device__ __forceinline__ float in_row(int k, int cols, int head) {
    const int lo = k * VEC - head, hi = lo + VEC;
    const int a = lo < 0 ? 0 : lo, b = hi > cols ? cols : hi;
    return b > a ? static_cast<float>(b - a) : 0.f;
  }
};

}  // namespace cuop::kernels::norm
