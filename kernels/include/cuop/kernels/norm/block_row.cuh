// Normalization family block_row: one block of BLOCK_THREADS owns a row and keeps it in
// registers, CHUNKS vectors of VEC elements per thread. One read and one write per element; the
// statistics are two passes over the registers (LayerNorm: the mean, then the squared
// deviations from it), each one block-wide sum with a single __syncthreads.
// Grid: 1-D, strided over rows.
#pragma once

#include "cuop/kernels/norm/common.cuh"

namespace cuop::kernels::norm {

template <int KIND, typename T, int VEC, int BLOCK_THREADS, int CHUNKS>
struct block_row {
  static constexpr int block_threads = BLOCK_THREADS;
  static constexpr long long cols_per_row = static_cast<long long>(VEC) * BLOCK_THREADS * CHUNKS;
  static_assert(KIND == layernorm_kind || KIND == rmsnorm_kind, "kind: layernorm or rmsnorm");
  static_assert(BLOCK_THREADS % 32 == 0 && BLOCK_THREADS <= 1024, "whole warps, <= 1024 threads");
  static_assert(CHUNKS >= 1, "chunks >= 1");

  using tile_t = detail::row_tile<KIND, T, VEC, BLOCK_THREADS, CHUNKS>;

  static __device__ void run(const norm_args& a) {
    __shared__ float scratch[2][BLOCK_THREADS / 32];
    int parity = 0;
    const int t = static_cast<int>(threadIdx.x);
    const int cols = static_cast<int>(a.cols);
    for (long long row = blockIdx.x; row < a.rows; row += gridDim.x) {
      const auto p = detail::row_of<T>(a, row);
      const detail::row_layout<T, VEC> l(p, a.cols, cols_per_row);
      tile_t x;
      x.load(p, cols, l, t);
      float center = 0.f;
      if constexpr (KIND == layernorm_kind)
        center = detail::block_sum<BLOCK_THREADS>(x.sum(), scratch, parity) / static_cast<float>(a.cols);
      const float ss = detail::block_sum<BLOCK_THREADS>(x.sum_sq(center, cols, l, t), scratch, parity);
      const float rstd = detail::rstd_of(ss, a.cols, a.eps);
      x.store(p, cols, l, t, center, rstd);
      if (t == 0) detail::write_stats<KIND>(a, row, center, rstd);
    }
  }
};

}  // namespace cuop::kernels::norm
