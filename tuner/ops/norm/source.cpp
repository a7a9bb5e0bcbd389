#include "tuner/ops/norm/source.hpp"

#include <fmt/format.h>

namespace cuop::ops {

namespace kn = kernels::norm;

std::string norm_entry_definition(const kn::norm_config& c) {
  return fmt::format(
      "extern \"C\" __global__ void __launch_bounds__({}) {}(cuop::kernels::norm::norm_args a) {{\n"
      "  {}::run(a);\n"
      "}}\n",
      kn::threads_per_block(c), kn::instance_name(c), kn::template_name(c));
}

std::vector<std::string> norm_entry_includes(const kn::norm_config& c) { return {std::string(kn::header_of(c.fam))}; }

std::string norm_entry_source(const kn::norm_config& c) {
  std::string out;
  for (const auto& inc : norm_entry_includes(c)) out += fmt::format("#include <{}>\n", inc);
  out += norm_entry_definition(c);
  return out;
}

}  // namespace cuop::ops
