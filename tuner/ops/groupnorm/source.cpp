#include "tuner/ops/groupnorm/source.hpp"

#include <fmt/format.h>

#include "tuner/ops/entry_source.hpp"

namespace cuop::ops {

namespace kg = kernels::groupnorm;

std::string groupnorm_entry_definition(const kg::groupnorm_config& c) {
  return entry_definition(
      {c.block_threads, kg::instance_name(c), "cuop::kernels::groupnorm::groupnorm_args", kg::template_name(c)});
}

std::vector<std::string> groupnorm_entry_includes(const kg::groupnorm_config& c) {
  return {std::string(kg::header_of(c.fam))};
}

std::string groupnorm_entry_source(const kg::groupnorm_config& c) {
  return entry_source(groupnorm_entry_includes(c), groupnorm_entry_definition(c));
}

}  // namespace cuop::ops
