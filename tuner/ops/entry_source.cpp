#include "tuner/ops/entry_source.hpp"

#include <fmt/format.h>

namespace cuop::ops {

std::string entry_definition(const entry_kernel& k) {
  return fmt::format(
      "extern \"C\" __global__ void __launch_bounds__({}) {}({} a) {{\n"
      "  {}::run(a);\n"
      "}}\n",
      k.threads, k.name, k.args_type, k.template_name);
}

std::string entry_source(const std::vector<std::string>& includes, const std::string& definition) {
  std::string out;
  for (const auto& inc : includes) out += fmt::format("#include <{}>\n", inc);
  return out + definition;
}

}  // namespace cuop::ops
