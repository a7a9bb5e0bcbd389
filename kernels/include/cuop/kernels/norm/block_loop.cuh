// Normalization family block_loop: one block of BLOCK_THREADS per row of any length, which it
// walks twice in vectors of VEC elements: the first pass takes the statistics (and, with a
// residual, adds it and writes the sum back), the second reads the row again, mostly from L2, and
// writes it normalized. For rows longer than the register families hold. LayerNorm's statistics
// are one pass of per-thread means and squared deviations merged exactly (Chan et al.), stable
// whatever the row's mean and outliers.
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
      const detail::row_layout<T, VEC> l(p, cols, unbounded, false);
      const int n = vectors(cols, l.head);
      float center = 0.f, rstd = 0.f;
      if constexpr (KIND == layernorm_kind) {
        // Each thread's count, mean and sum of squared deviations, each vector merged in with
        // Chan's update; then the row's mean, and its squared deviations as the sum of each
        // thread's own and its mean's offset: no sum is shifted by a value that may lie far
        // from the mean (an outlier in the first column), so nothing cancels.
        float count = 0.f, mean = 0.f, m2 = 0.f;
        for (int k = t; k < n; k += BLOCK_THREADS) {
          tile_t x;
          x.load(p, cols, l, k);
          const float c = in_row(k, cols, l.head);
          if (c == 0.f) continue;
          const float vmean = x.sum() / c;
          const float delta = vmean - mean, total = count + c;
          m2 += x.sum_sq(vmean, cols, l, k) + delta * delta * (count * c / total);
          mean += delta * (c / total);
          count = total;
        }
        const float n_cols = static_cast<float>(cols);
        center = detail::block_sum<BLOCK_THREADS>(count * mean, scratch, parity) / n_cols;
        const float offset = mean - center;
        const float m2_row = detail::block_sum<BLOCK_THREADS>(m2 + count * offset * offset, scratch, parity);
        rstd = detail::rstd_of(m2_row, cols, a.eps);
      } else {
        float s2 = 0.f;
        for (int k = t; k < n; k += BLOCK_THREADS) {
          tile_t x;
          x.load(p, cols, l, k);
          s2 += x.sum_sq(0.f, cols, l, k);
        }
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

  // Elements of vector k inside [0, cols) (the padding holds 0 and is no element).
  static __device__ __forceinline__ float in_row(int k, int cols, int head) {
    const int lo = k * VEC - head, hi = lo + VEC;
    const int a = lo < 0 ? 0 : lo, b = hi > cols ? cols : hi;
    return b > a ? static_cast<float>(b - a) : 0.f;
  }
};

}  // namespace cuop::kernels::norm
