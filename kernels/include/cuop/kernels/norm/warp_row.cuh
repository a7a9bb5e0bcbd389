// Normalization family warp_row: THREADS_PER_ROW lanes (a power of two up to 32) own a row and
// keep it in registers, CHUNKS vectors of VEC elements each; a block holds ROWS_PER_BLOCK rows.
// One read and one write per element; the statistics are two passes over the registers
// (LayerNorm: the mean, then the squared deviations from it), reduced with shuffles alone.
// Grid: 1-D, strided over groups of ROWS_PER_BLOCK rows.
#pragma once

#include "cuop/kernels/norm/common.cuh"

namespace cuop::kernels::norm {

template <int KIND, typename T, int VEC, int THREADS_PER_ROW, int ROWS_PER_BLOCK, int CHUNKS>
struct warp_row {
  static constexpr int block_threads = THREADS_PER_ROW * ROWS_PER_BLOCK;
  static constexpr long long cols_per_row = static_cast<long long>(VEC) * THREADS_PER_ROW * CHUNKS;
  static_assert(KIND == layernorm_kind || KIND == rmsnorm_kind, "kind: layernorm or rmsnorm");
  static_assert(THREADS_PER_ROW >= 1 && THREADS_PER_ROW <= 32 && (THREADS_PER_ROW & (THREADS_PER_ROW - 1)) == 0,
                "threads per row: a power of two up to 32");
  static_assert(block_threads % 32 == 0 && block_threads <= 1024, "whole warps, <= 1024 threads");
  static_assert(CHUNKS >= 1, "chunks >= 1");

  using tile_t = detail::row_tile<KIND, T, VEC, THREADS_PER_ROW, CHUNKS>;

  static __device__ void run(const norm_args& a) {
    const int lane = static_cast<int>(threadIdx.x) % THREADS_PER_ROW;
    const int cols = static_cast<int>(a.cols);
    const long long groups = (a.rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK;
    // Every lane of a warp stays in the loop (the shuffles need them all); rows past the end
    // load nothing and write nothing.
    for (long long g = blockIdx.x; g < groups; g += gridDim.x) {
      const long long row = g * ROWS_PER_BLOCK + threadIdx.x / THREADS_PER_ROW;
      const bool live = row < a.rows;
      const auto p = detail::row_of<T>(a, live ? row : 0);
      const detail::row_layout<T, VEC> l(p, a.cols, cols_per_row);
      tile_t x;
      if (live) {
        x.load(p, cols, l, lane);
      } else {
#pragma unroll
        for (int c = 0; c < CHUNKS; ++c) x.v[c].clear();
      }
      float center = 0.f;
      if constexpr (KIND == layernorm_kind)
        center = detail::lane_sum<THREADS_PER_ROW>(x.sum()) / static_cast<float>(a.cols);
      const float ss = detail::lane_sum<THREADS_PER_ROW>(x.sum_sq(center, cols, l, lane));
      const float rstd = detail::rstd_of(ss, a.cols, a.eps);
      if (!live) continue;
      x.store(p, cols, l, lane, center, rstd);
      if (lane == 0) detail::write_stats<KIND>(a, row, center, rstd);
    }
  }
};

}  // namespace cuop::kernels::norm
