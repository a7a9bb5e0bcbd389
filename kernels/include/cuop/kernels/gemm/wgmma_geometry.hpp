// Geometry of GEMM family wgmma (wgmma.cuh), shared by the kernel and the host planner
// (kernels/src/gemm/family.cpp) so that both count threads and shared memory alike.
// Plain constexpr C++: nvcc, NVRTC and the host compiler all accept it.
#pragma once

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define CUOP_WGMMA_CONSTEXPR __host__ __device__ constexpr
#else
#define CUOP_WGMMA_CONSTEXPR constexpr
#endif

namespace cuop::kernels::gemm {

struct wgmma_geometry {
  static constexpr int block_k = 64;  // one 128-byte swizzled row of 16-bit elements
  // One copying warpgroup and the computing ones.
  static CUOP_WGMMA_CONSTEXPR int threads_of(int consumers) { return 128 * (consumers + 1); }
  static CUOP_WGMMA_CONSTEXPR int stage_bytes(int block_m, int block_n) { return (block_m + block_n) * block_k * 2; }
  // The stages, their mbarriers (16 bytes a stage, within one 1024-byte region) and the slack
  // that aligns the buffers to 1024 bytes, as the 128-byte swizzle wants.
  static CUOP_WGMMA_CONSTEXPR long long smem_bytes(int block_m, int block_n, int stages) {
    return static_cast<long long>(stages) * stage_bytes(block_m, block_n) + 1024 + 1024;
  }
  // Accumulators a computing thread holds: N / 2 floats per m64 row block it owns.
  static CUOP_WGMMA_CONSTEXPR int accumulators(int block_m, int block_n, int consumers) {
    return consumers > 0 ? (block_m / consumers / 64) * (block_n / 2) : 0;
  }
};

}  // namespace cuop::kernels::gemm

#undef CUOP_WGMMA_CONSTEXPR
