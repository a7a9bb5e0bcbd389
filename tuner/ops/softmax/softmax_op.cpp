#include "tuner/ops/softmax/softmax_op.hpp"

#include <fmt/format.h>

#include "cuop/detail/shape_features.hpp"
#include "tuner/core/error.hpp"
#include "tuner/ops/dims.hpp"
#include "tuner/ops/params.hpp"
#include "tuner/ops/softmax/custom.hpp"
#include "tuner/ops/softmax/emit.hpp"
#include "tuner/ops/softmax/source.hpp"
#include "tuner/ops/softmax/trial.hpp"

namespace cuop::ops {

namespace ks = kernels::softmax;

ks::softmax_config softmax_config_of(const space::point& p, const std::string& dtype_name) {
  ks::softmax_config c;
  if (!ks::parse_family(p.family, c.fam)) throw error(fmt::format("unknown softmax family \"{}\"", p.family));
  const auto t = parse_dtype(dtype_name);
  if (!t) throw error(fmt::format("unknown dtype \"{}\"", dtype_name));
  c.type = *t;
  set_point_params(c, p, [](auto& cfg, const std::string& name, long long v) { return ks::set_param(cfg, name, v); });
  return c;
}

namespace {

std::string instance_of(const catalog::stored_config& stored, std::string& why) {
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
  why = set_stored_params(c, stored.family, ks::param_names(c.fam), stored.params,
                          [](auto& cfg, const std::string& name, long long v) { return ks::set_param(cfg, name, v); });
  if (!why.empty()) return {};
  if (stored.ran && !(why = ks::check_config(c)).empty()) return {};
  return ks::instance_name(c);
}

// One read and one write of the tensor.
double bytes_of(const std::string& dtype, const catalog::dim_values& dims) {
  const auto t = parse_dtype(dtype);
  const double elems = static_cast<double>(dim_at(dims, "rows")) * static_cast<double>(dim_at(dims, "cols"));
  return 2.0 * elems * static_cast<double>(t ? size_of(*t) : 4);
}

std::vector<double> features_of(const catalog::dim_values& dims) {
  std::vector<double> f(detail::softmax_feature_count);
  detail::softmax_features(dim_at(dims, "rows"), dim_at(dims, "cols"), f.data());
  return f;
}

std::string group_of(const std::string& dtype, const catalog::dim_values&) { return dtype; }

std::string baseline_of(const std::string& dtype, const catalog::dim_values& dims, int) {
  return ks::instance_name(ks::default_config(dtype_of(dtype), dim_at(dims, "rows"), dim_at(dims, "cols")));
}

catalog::op_desc describe() {
  catalog::op_desc op{.name = "softmax",
                      .problem_dims = {"rows", "cols"},
                      .instance_of = instance_of,
                      .features_of = features_of,
                      .group_of = group_of,
                      .baseline_of = baseline_of,
                      .bytes_of = bytes_of};
  for (ks::family f : ks::all_families()) {
    catalog::family_desc d{std::string(ks::name_of(f)), {}, "kernel"};
    d.headers = {std::string(ks::header_of(f))};
    for (std::string_view p : ks::param_names(f)) d.params.emplace_back(p);
    for (std::string_view p : ks::optional_param_names(f)) d.optional_params.emplace_back(p);
    op.families.push_back(std::move(d));
  }
  op.families.push_back({custom_family, {"block_threads"}, "kernel", true});  // custom.hpp
  return op;
}

kernel_candidate kernel_of(const space::point& point, const spec::problem& p) {
  if (point.family == custom_family) return custom_softmax_candidate(point, p.dtype);
  const auto c = softmax_config_of(point, p.dtype);
  return {ks::instance_name(c),     softmax_entry_source(c),   std::string(name_of(c.type)),
          ks::threads_per_block(c), ks::dynamic_smem_bytes(c), ks::check_config(c)};
}

}  // namespace

const op& softmax_op() {
  static const op instance({describe(), kernel_of, make_runner<softmax_trial_runner>, "softmax", emit_softmax});
  return instance;
}

}  // namespace cuop::ops
