// What the kernel families' configuration functions share: enum values looked up by name, and
// the int fields of a configuration set and read by parameter name (sweep files, results files
// and the tuner name parameters; the kernels take the fields).
#pragma once

#include <initializer_list>
#include <limits>
#include <string_view>

namespace cuop::detail {

// The value among `values` whose name_of (declared beside the enum) is s; false when none is.
template <typename Enum, typename Values>
bool parse_named(std::string_view s, const Values& values, Enum& out) noexcept {
  for (const Enum v : values) {
    if (s == name_of(v)) {
      out = v;
      return true;
    }
  }
  return false;
}

template <typename Enum>
bool parse_named(std::string_view s, std::initializer_list<Enum> values, Enum& out) noexcept {
  return parse_named<Enum, std::initializer_list<Enum>>(s, values, out);
}

// Sets the int field that `field(config, name)` finds (null: the family has no such parameter).
// False for an unknown name or a value outside 0..INT_MAX, leaving the configuration as it was.
template <typename Config, typename Field>
bool set_int_param(Config& c, std::string_view name, long long value, Field&& field) noexcept {
  int* p = field(c, name);
  if (p == nullptr || value < 0 || value > std::numeric_limits<int>::max()) return false;
  *p = static_cast<int>(value);
  return true;
}

// The int field that `field(config, name)` finds, or -1 for an unknown name.
template <typename Config, typename Field>
long long get_int_param(const Config& c, std::string_view name, Field&& field) noexcept {
  Config copy = c;
  const int* p = field(copy, name);
  return p == nullptr ? -1 : *p;
}

}  // namespace cuop::detail
