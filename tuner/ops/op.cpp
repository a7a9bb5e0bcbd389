#include "tuner/ops/op.hpp"

#include <fmt/format.h>

namespace cuop::ops {

nlohmann::json trial_runner::list_library(const trial::trial_request& request) {
  return {{"status", "error"}, {"message", fmt::format("op \"{}\" has no library back end", request.op)}};
}

bool op::is_library(std::string_view family) const {
  const catalog::family_desc* f = desc().find_family(family);
  return f && f->kind == "library";
}

double op::bytes(const spec::problem& p) const { return desc().bytes_of(p.dtype, p.dims); }

double op::flops(const spec::problem& p) const { return desc().flops_of ? desc().flops_of(p.dtype, p.dims) : 0; }

nlohmann::json config_json(const space::point& p) {
  nlohmann::json params = nlohmann::json::object();
  for (const auto& [name, value] : p.params) params[name] = value;
  return {{"family", p.family}, {"params", params}};
}

}  // namespace cuop::ops
