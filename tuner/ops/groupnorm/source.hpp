// A GroupNorm configuration as source: the entry kernel both compilers build (NVRTC for the
// tuner's trials, nvcc for the library's emitted units), so that they run the same code.
#pragma once

#include <string>
#include <vector>

#include "cuop/kernels/groupnorm/family.hpp"

namespace cuop::ops {

std::string groupnorm_entry_definition(const kernels::groupnorm::groupnorm_config& c);
std::vector<std::string> groupnorm_entry_includes(const kernels::groupnorm::groupnorm_config& c);
// Includes and definition: a complete translation unit.
std::string groupnorm_entry_source(const kernels::groupnorm::groupnorm_config& c);

}  // namespace cuop::ops
