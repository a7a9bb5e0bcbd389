#include "tuner/ops/softmax_op.hpp"

#include <fmt/format.h>

#include "tuner/core/error.hpp"

namespace cuop::ops {

namespace ks = kernels::softmax;

ks::softmax_config softmax_config_of(const space::point& p, const std::string& dtype_name) {
  ks::softmax_config c;
  if (!ks::parse_family(p.family, c.fam)) throw error(fmt::format("unknown softmax family \"{}\"", p.family));
  const auto t = parse_dtype(dtype_name);
  if (!t) throw error(fmt::format("unknown dtype \"{}\"", dtype_name));
  c.type = *t;
  for (const auto& [name, value] : p.params)
    if (!ks::set_param(c, name, value))
      throw error(fmt::format("unknown parameter \"{}\" of family \"{}\"", name, p.family));
  return c;
}

nlohmann::json config_json(const space::point& p) {
  nlohmann::json params = nlohmann::json::object();
  for (const auto& [name, value] : p.params) params[name] = value;
  return {{"family", p.family}, {"params", params}};
}

double softmax_bytes(const spec::problem& p) {
  const auto t = parse_dtype(p.dtype);
  const double elems = static_cast<double>(p.dims.at("rows")) * static_cast<double>(p.dims.at("cols"));
  return 2.0 * elems * static_cast<double>(t ? size_of(*t) : 4);
}

}  // namespace cuop::ops
