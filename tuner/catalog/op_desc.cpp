#include "tuner/catalog/op_desc.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace cuop::catalog {

const family_desc* op_desc::find_family(std::string_view family) const noexcept {
  for (const auto& f : families)
    if (f.name == family) return &f;
  return nullptr;
}

dim_desc op_desc::dim(std::string_view name) const {
  for (const auto& d : dims)
    if (d.name == name) return d;
  return {std::string(name), 1, {}, {}};
}

std::vector<std::string> op_desc::family_names() const {
  std::vector<std::string> out;
  for (const auto& f : families) out.push_back(f.name);
  return out;
}

std::string check_param_names(const family_desc& fam, const stored_values& params) {
  for (const auto& name : fam.params)
    if (!params.contains(name)) return fmt::format("missing parameter \"{}\" of family \"{}\"", name, fam.name);
  for (const auto& entry : params) {
    const std::string& name = entry.first;  // not a structured binding: clang 14 cannot capture one
    const auto known = [&](const std::vector<std::string>& names) {
      return std::find(names.begin(), names.end(), name) != names.end();
    };
    if (!known(fam.params) && !known(fam.optional_params))
      return fmt::format("unknown parameter \"{}\" of family \"{}\"", name, fam.name);
  }
  return {};
}

}  // namespace cuop::catalog
