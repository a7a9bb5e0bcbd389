#include "tuner/ops/softmax/source.hpp"

#include <fmt/format.h>

namespace cuop::ops {

namespace ks = kernels::softmax;

std::string softmax_entry_definition(const ks::softmax_config& c) {
  return fmt::format(
      "extern \"C\" __global__ void __launch_bounds__({}) {}(cuop::kernels::softmax::softmax_args a) {{\n"
      "  {}::run(a);\n"
      "}}\n",
      ks::threads_per_block(c), ks::instance_name(c), ks::template_name(c));
}

std::vector<std::string> softmax_entry_includes(const ks::softmax_config& c) {
  return {std::string(ks::header_of(c.fam))};
}

std::string softmax_entry_source(const ks::softmax_config& c) {
  std::string out;
  for (const auto& inc : softmax_entry_includes(c)) out += fmt::format("#include <{}>\n", inc);
  out += softmax_entry_definition(c);
  return out;
}

}  // namespace cuop::ops
