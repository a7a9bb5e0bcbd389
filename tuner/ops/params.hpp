// A kernel family's configuration from parameters by name, for every op's families: from a space
// point (the sweep), a stored configuration (results files, databases) or a trial request (the
// worker). `set` is the
// family's set_param: false for a name it does not have or a value it does not take.
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "tuner/catalog/stored_config.hpp"
#include "tuner/core/error.hpp"
#include "tuner/space/space.hpp"

namespace cuop::ops {

// Sets every parameter of `p` on `c`; throws cuop::error naming the first one the family does not have.
template <class Config, class Set>
void set_point_params(Config& c, const space::point& p, Set set) {
  for (const auto& [name, value] : p.params)
    if (!set(c, name, value)) throw error(fmt::format("unknown parameter \"{}\" of family \"{}\"", name, p.family));
}

// Sets the stored parameters on `c`: "" when every required one is there and each is the family's,
// else why not.
template <class Config, class Names, class Set>
std::string set_stored_params(Config& c, std::string_view family, const Names& required,
                              const catalog::stored_values& params, Set set) {
  for (const auto name : required)
    if (!params.contains(std::string(name)))
      return fmt::format("missing parameter \"{}\" of family \"{}\"", name, family);
  for (const auto& [name, value] : params)
    if (!set(c, name, value))
      return fmt::format("parameter \"{}\" = {} is not one of family \"{}\"", name, value, family);
  return {};
}

// Sets the parameters of a trial request's configuration (its "params" object); false and
// `message` naming the first one the family does not have.
template <class Config, class Set>
bool set_request_params(Config& c, const nlohmann::json& params, Set set, std::string& message) {
  for (const auto& [name, value] : params.items())
    if (!set(c, name, value.template get<long long>())) {
      message = fmt::format("unknown parameter \"{}\"", name);
      return false;
    }
  return true;
}

}  // namespace cuop::ops
