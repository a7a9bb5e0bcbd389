#include "tuner/ops/softmax_op.hpp"

#include <fmt/format.h>

#include "tuner/core/error.hpp"
#include "tuner/ops/custom_softmax.hpp"
#include "tuner/ops/softmax_source.hpp"

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

std::string softmax_instance_of(const stored_config& stored, std::string& why) {
  if (stored.family == custom_family) {
    // What custom_softmax_candidate names: "softmax_<dtype>_custom_<kernel id>_<params>". The
    // kernel id hashes the user's header, which a results file does not hold: checked for shape.
    return {};
  }
  ks::softmax_config c;
  if (!ks::parse_family(stored.family, c.fam)) {
    why = fmt::format("unknown softmax family \"{}\"", stored.family);
    return {};
  }
  c.type = stored.type;
  for (const auto name : ks::param_names(c.fam))
    if (!stored.params.contains(std::string(name))) {
      why = fmt::format("missing parameter \"{}\" of family \"{}\"", name, stored.family);
      return {};
    }
  for (const auto& [name, value] : stored.params)
    if (!ks::set_param(c, name, value)) {
      why = fmt::format("parameter \"{}\" = {} is not one of family \"{}\"", name, value, stored.family);
      return {};
    }
  if (stored.ran && !(why = ks::check_config(c)).empty()) return {};
  return ks::instance_name(c);
}

double softmax_bytes(const spec::problem& p) {
  const auto t = parse_dtype(p.dtype);
  const double elems = static_cast<double>(p.dims.at("rows")) * static_cast<double>(p.dims.at("cols"));
  return 2.0 * elems * static_cast<double>(t ? size_of(*t) : 4);
}

namespace {

class softmax_ops final : public op_adapter {
 public:
  double bytes(const spec::problem& p) const override { return softmax_bytes(p); }
  double flops(const spec::problem&) const override { return 0; }
  bool is_library(std::string_view) const override { return false; }
  kernel_candidate kernel(const space::point& point, const spec::problem& p) const override {
    if (point.family == custom_family) return custom_softmax_candidate(point, p.dtype);
    const auto c = softmax_config_of(point, p.dtype);
    return {ks::instance_name(c), softmax_entry_source(c), std::string(name_of(c.type)), ks::threads_per_block(c),
            ks::dynamic_smem_bytes(c)};
  }
};

}  // namespace

const op_adapter& softmax_adapter() {
  static const softmax_ops ops;
  return ops;
}

}  // namespace cuop::ops
