// The algorithms of the depthwise family: a kernel template argument and a tunable, named so that
// keys, sweep files and generated code say which algorithm runs. Plain C++ without headers, read
// by nvcc, NVRTC and the host compiler alike. The values are the family's stored parameter values
// (databases and results files keep the index), so the order never changes.
#pragma once

namespace cuop::kernels::conv {

enum class depthwise_algo : int {
  direct = 0,    // inputs read through L1 (NHWC only; depthwise.cuh)
  smem = 1,      // the input patch staged in shared memory as the dtype (depthwise.cuh)
  smem_f32 = 2,  // the patch staged already converted to f32 (16-bit dtypes; depthwise.cuh)
  mma = 3,       // tensor cores, a Toeplitz MMA per tap row (depthwise_mma.cuh)
  mma_tma = 4,   // mma with the patch brought in by one TMA copy (sm_90 and newer; depthwise_mma.cuh)
  mma_seg = 5,   // tensor cores on row segments, persistent, through TMA (sm_90 and newer; depthwise_seg.cuh)
  plane = 6,     // NCHW along each channel's plane, outputs adjacent along W (depthwise_plane.cuh)
};

inline constexpr int depthwise_algo_count = 7;

}  // namespace cuop::kernels::conv
