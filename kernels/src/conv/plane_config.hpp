// The depthwise family's plane algorithm (NCHW along each channel's plane, depthwise_plane.cuh):
// its geometry for a configuration, and why a configuration is malformed; and the shared-memory
// limit of every algorithm's checks. Used by family.cpp.
#pragma once

#include <string>

#include "cuop/kernels/conv/depthwise_geometry.hpp"
#include "cuop/kernels/conv/family.hpp"

namespace cuop::kernels::conv {

// The largest opt-in shared memory per block of any target (227 KiB): what no configuration may
// exceed, whatever it is built for (family.cpp's checks too).
inline constexpr long long max_smem_any_target = 227 * 1024;

plane_geometry plane_geometry_of(const depthwise_config& c) noexcept;

// Empty when `c` (algo plane) is well formed, else why not.
std::string check_plane_config(const depthwise_config& c);

}  // namespace cuop::kernels::conv
