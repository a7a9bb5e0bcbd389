// The plane algorithm's checks and geometry (depthwise_plane.cuh), apart from family.cpp's other
// algorithms: the kernel's shared memory, threads and launch bounds come from the same
// plane_geometry_of (depthwise_geometry.hpp).
#include "plane_config.hpp"

#include <string>

namespace cuop::kernels::conv {

namespace {

std::string str(long long v) { return std::to_string(v); }

}  // namespace

plane_geometry plane_geometry_of(const depthwise_config& c) noexcept {
  return plane_geometry_of(c.r, c.s, c.stride, c.block_c, c.tile_h, c.tile_w, c.ph, c.pw);
}

// plane (depthwise_plane.cuh): NCHW, a thread's outputs along W.
std::string check_plane_config(const depthwise_config& c) {
  const std::string what = "algo plane";
  if (c.lay != layout::nchw) return what + " is NCHW only";
  if (c.vec != 1 || c.cvecs != 1)
    return what + " takes vec 1 and cvecs 1 (got vec " + str(c.vec) + ", cvecs " + str(c.cvecs) + ")";
  if (c.block_c < 1) return "block_c " + str(c.block_c) + " < 1";
  if (c.ph < 1 || c.tile_h < c.ph || c.tile_h % c.ph != 0)
    return "tile_h " + str(c.tile_h) + " is not a multiple of ph " + str(c.ph);
  if (c.pw < 1 || c.tile_w < c.pw || c.tile_w % c.pw != 0)
    return "tile_w " + str(c.tile_w) + " is not a multiple of pw " + str(c.pw);
  if (c.pw * c.stride % 4 != 0)
    return what + ": pw x stride = " + str(static_cast<long long>(c.pw) * c.stride) +
           " is not a multiple of 4 (a thread's input columns start on a 16-byte boundary)";
  if (const long long acc = static_cast<long long>(c.ph) * c.pw; acc > 64)
    return what + ": ph x pw = " + str(acc) + " accumulators per thread > 64";
  const long long threads = plane_geometry_of(c).block_threads;
  if (threads < 32 || threads > 1024)
    return "block of " + str(threads) + " threads (block_c x (tile_h / ph) x (tile_w / pw)) outside 32..1024";
  if (const long long smem = smem_bytes(c); smem > max_smem_any_target)
    return "shared memory of " + str(smem) + " bytes > " + str(max_smem_any_target) +
           " (227 KiB, the largest opt-in shared memory per block of any target)";
  return {};
}

}  // namespace cuop::kernels::conv
