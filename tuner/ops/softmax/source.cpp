#include "tuner/ops/softmax/source.hpp"

#include <fmt/format.h>

#include "tuner/ops/entry_source.hpp"

namespace cuop::ops {

namespace ks = kernels::softmax;

std::string softmax_entry_definition(const ks::softmax_config& c) {
  return entry_definition(
      {ks::threads_per_block(c), ks::instance_name(c), "cuop::kernels::softmax::softmax_args", ks::template_name(c)});
}

std::vector<std::string> softmax_entry_includes(const ks::softmax_config& c) {
  return {std::string(ks::header_of(c.fam))};
}

std::string softmax_entry_source(const ks::softmax_config& c) {
  return entry_source(softmax_entry_includes(c), softmax_entry_definition(c));
}

}  // namespace cuop::ops
