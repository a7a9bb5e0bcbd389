#include "tuner/ops/norm/source.hpp"

#include <fmt/format.h>

#include "tuner/ops/entry_source.hpp"

namespace cuop::ops {

namespace kn = kernels::norm;

std::string norm_entry_definition(const kn::norm_config& c) {
  return entry_definition(
      {kn::threads_per_block(c), kn::instance_name(c), "cuop::kernels::norm::norm_args", kn::template_name(c)});
}

std::vector<std::string> norm_entry_includes(const kn::norm_config& c) { return {std::string(kn::header_of(c.fam))}; }

std::string norm_entry_source(const kn::norm_config& c) {
  return entry_source(norm_entry_includes(c), norm_entry_definition(c));
}

}  // namespace cuop::ops
