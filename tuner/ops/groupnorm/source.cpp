#include "tuner/ops/groupnorm/source.hpp"

#include <fmt/format.h>

namespace cuop::ops {

namespace kg = kernels::groupnorm;

std::string groupnorm_entry_definition(const kg::groupnorm_config& c) {
  return fmt::format(
      "extern \"C\" __global__ void __launch_bounds__({}) {}(cuop::kernels::groupnorm::groupnorm_args a) {{\n"
      "  {}::run(a);\n"
      "}}\n",
      c.block_threads, kg::instance_name(c), kg::template_name(c));
}

std::vector<std::string> groupnorm_entry_includes(const kg::groupnorm_config& c) {
  return {std::string(kg::header_of(c.fam))};
}

std::string groupnorm_entry_source(const kg::groupnorm_config& c) {
  std::string out;
  for (const auto& inc : groupnorm_entry_includes(c)) out += fmt::format("#include <{}>\n", inc);
  out += groupnorm_entry_definition(c);
  return out;
}

}  // namespace cuop::ops
