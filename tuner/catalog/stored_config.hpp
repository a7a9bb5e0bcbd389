// A configuration as results files and databases store it: its family, dtype, problem and
// parameters. Its instance name follows from these alone (op_desc::instance_of): a stored
// instance that differs from it was not written by cuop-tune, and emit refuses it.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "cuop/dtype.hpp"

namespace cuop::catalog {

using stored_values = std::map<std::string, long long>;

struct stored_config {
  std::string_view family;
  dtype type = dtype::f32;
  const stored_values& dims;
  const stored_values& params;
  // It ran (a verified trial): it must then also be well formed (the family's check_config), as
  // everything emit ships is. A configuration that could not run may be any the space held.
  bool ran = false;
};

// The value of `name` in `values`, or `fallback` when absent.
inline long long value_or(const stored_values& values, const std::string& name, long long fallback) {
  const auto it = values.find(name);
  return it == values.end() ? fallback : it->second;
}

}  // namespace cuop::catalog
