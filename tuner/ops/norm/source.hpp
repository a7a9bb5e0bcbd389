// The translation unit that instantiates one normalization configuration as an extern "C" kernel
// named by its instance name: compiled by the tuner with NVRTC, and written by `emit` into the
// library's kernel units for nvcc, so the code that was tuned is the code that ships.
#pragma once

#include <string>
#include <vector>

#include "cuop/kernels/norm/family.hpp"

namespace cuop::ops {

std::string norm_entry_definition(const kernels::norm::norm_config& c);
std::vector<std::string> norm_entry_includes(const kernels::norm::norm_config& c);
std::string norm_entry_source(const kernels::norm::norm_config& c);  // includes + definition

}  // namespace cuop::ops
