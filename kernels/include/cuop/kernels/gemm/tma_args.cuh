// The second kernel argument of GEMM family wgmma: the CUtensorMaps of A and B (their 128 opaque
// bytes each), encoded on the host by make_tma_maps (launch.hpp) and passed as a
// __grid_constant__ parameter, as TMA wants them. Device-safe and NVRTC-safe: built-in types only.
#pragma once

namespace cuop::kernels::gemm {

struct alignas(128) gemm_tma {
  unsigned long long map_a[16];  // A: K x M (innermost first), box 64 x BLOCK_M, 128-byte swizzle
  unsigned long long map_b[16];  // column-major B: K x N, box 64 x BLOCK_N, 128-byte swizzle
};

}  // namespace cuop::kernels::gemm
