// The translation unit of one kernel instance: an extern "C" entry, named by the instance name,
// that runs the family's template on the op's argument struct. The tuner compiles it with NVRTC
// and `emit` writes it into the library's kernel units for nvcc, so the code that was tuned is
// the code that ships. Each op's source.cpp says what its entries are made of.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cuop::ops {

struct entry_kernel {
  int threads = 0;             // __launch_bounds__
  std::string name;            // the instance name
  std::string_view args_type;  // "cuop::kernels::norm::norm_args"
  std::string template_name;   // "cuop::kernels::norm::block_row<...>": has a static run(args)
};

std::string entry_definition(const entry_kernel& k);

// An #include line for each header, then the definition.
std::string entry_source(const std::vector<std::string>& includes, const std::string& definition);

}  // namespace cuop::ops
