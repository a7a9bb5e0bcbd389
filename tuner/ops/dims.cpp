#include "tuner/ops/dims.hpp"

#include <fmt/format.h>

#include "tuner/core/error.hpp"

namespace cuop::ops {

std::int64_t dim_at(const catalog::dim_values& dims, const char* name) {
  const auto it = dims.find(name);
  if (it == dims.end()) throw error(fmt::format("problem has no dimension \"{}\"", name));
  return it->second;
}

std::int64_t dim_or_zero(const catalog::dim_values& dims, const char* name) noexcept {
  const auto it = dims.find(name);
  return it == dims.end() ? 0 : it->second;
}

dtype dtype_of(const std::string& name) {
  const auto d = parse_dtype(name);
  if (!d) throw error(fmt::format("unknown dtype \"{}\"", name));
  return *d;
}

}  // namespace cuop::ops
