// Validity and launch planning of the skinny GEMM family, which family.cpp delegates to
// (implemented in kernels/src/gemm/skinny_plan.cpp). Plain C++.
#pragma once

#include <string>

#include "cuop/kernels/gemm/family.hpp"

namespace cuop::kernels::gemm::detail {
std::string check_dtypes(const gemm_config& c);            // family.cpp: the operand types and B layout
std::string check_skinny(const gemm_config& c);            // empty if well formed
std::string plan_skinny(const gemm_config& c, int m, int n, int k, const device_limits& dev, launch_plan& out);
}  // namespace cuop::kernels::gemm::detail
