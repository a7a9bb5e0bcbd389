#include "tuner/ops/groupnorm/describe.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "cuop/detail/shape_features.hpp"
#include "tuner/catalog/stored_config.hpp"
#include "tuner/core/error.hpp"
#include "tuner/ops/dims.hpp"
#include "tuner/ops/groupnorm/source.hpp"
#include "tuner/ops/params.hpp"

namespace cuop::ops {

namespace kg = kernels::groupnorm;

namespace {

const auto set_groupnorm_param = [](kg::groupnorm_config& c, const std::string& name, long long v) {
  return kg::set_param(c, name, v);
};

// A stored configuration names its family and parameters; what it computes (layout, SiLU) is
// the problem's, which instance names carry: a results file's trials name their own.
std::string instance_of(const catalog::stored_config& stored, std::string& why) {
  kg::groupnorm_config c;
  if (!kg::parse_family(stored.family, c.fam)) {
    why = fmt::format("unknown groupnorm family \"{}\"", stored.family);
    return {};
  }
  c.type = stored.type;
  c.lay = catalog::value_or(stored.dims, "layout", 0) == static_cast<int>(kg::layout::nchw) ? kg::layout::nchw
                                                                                            : kg::layout::nhwc;
  c.silu = catalog::value_or(stored.dims, "silu", 0) != 0;
  why = set_stored_params(c, stored.family, kg::param_names(c.fam), stored.params, set_groupnorm_param);
  if (!why.empty()) return {};
  if (stored.ran && !(why = kg::check_config(c)).empty()) return {};
  return kg::instance_name(c);
}

// Reads x and writes y; the weight and bias are read once per block and left out.
double bytes_of(const std::string& dtype, const catalog::dim_values& dims) {
  const auto t = parse_dtype(dtype);
  const double elems = static_cast<double>(dim_at(dims, "n")) * static_cast<double>(dim_at(dims, "c")) *
                       static_cast<double>(dim_at(dims, "h")) * static_cast<double>(dim_at(dims, "w"));
  return 2.0 * elems * static_cast<double>(t ? size_of(*t) : 4);
}

std::vector<double> features_of(const catalog::dim_values& dims) {
  const auto s = groupnorm_shape_of(dims);
  std::vector<double> f(detail::groupnorm_feature_count);
  detail::groupnorm_features(s.n * s.groups, s.c / std::max<long long>(1, s.groups), s.hw, f.data());
  return f;
}

// "bf16_nhwc", "f16_nchw_silu": shapes of one group share their kernels.
std::string group_of(const std::string& dtype, const catalog::dim_values& dims) {
  return dtype + "_" + std::string(kg::name_of(groupnorm_layout_of(dims))) + (groupnorm_silu_of(dims) ? "_silu" : "");
}

std::string baseline_of(const std::string& dtype, const catalog::dim_values& dims, int cc) {
  return kg::instance_name(kg::default_config(dtype_of(dtype), groupnorm_layout_of(dims), groupnorm_silu_of(dims),
                                              groupnorm_shape_of(dims), cc));
}

// Channels that divide into the groups, groups and their elements within the kernels' ints.
std::string check_problem(const catalog::dim_values& dims) { return kg::check_shape(groupnorm_shape_of(dims)); }

// "2x320x64x64_g32_nhwc_silu"
std::string key_of(const catalog::dim_values& dims) {
  return fmt::format("{}x{}x{}x{}_g{}_{}{}", dim_at(dims, "n"), dim_at(dims, "c"), dim_at(dims, "h"), dim_at(dims, "w"),
                     dim_at(dims, "groups"), kg::name_of(groupnorm_layout_of(dims)),
                     groupnorm_silu_of(dims) ? "_silu" : "");
}

}  // namespace

kg::groupnorm_shape groupnorm_shape_of(const catalog::dim_values& dims) {
  return {dim_or_zero(dims, "n"), dim_or_zero(dims, "c"), dim_or_zero(dims, "h") * dim_or_zero(dims, "w"),
          dim_or_zero(dims, "groups")};
}

kg::layout groupnorm_layout_of(const catalog::dim_values& dims) {
  return dim_or_zero(dims, "layout") == static_cast<int>(kg::layout::nchw) ? kg::layout::nchw : kg::layout::nhwc;
}

bool groupnorm_silu_of(const catalog::dim_values& dims) { return dim_or_zero(dims, "silu") != 0; }

catalog::op_desc describe_groupnorm() {
  catalog::op_desc op{.name = "groupnorm",
                      .problem_dims = {"n", "c", "h", "w", "groups", "layout", "silu"},
                      .key_of = key_of,
                      .instance_of = instance_of,
                      .features_of = features_of,
                      .group_of = group_of,
                      .baseline_of = baseline_of,
                      .bytes_of = bytes_of,
                      .check_problem = check_problem};
  op.dims = {{"n", 1, {}, {}},
             {"c", 1, {}, {}},
             {"h", 1, {}, {}},
             {"w", 1, {}, {}},
             {"groups", 1, 32, {}},
             {"layout", 0, 0, {std::string(kg::name_of(kg::layout::nhwc)), std::string(kg::name_of(kg::layout::nchw))}},
             {"silu", 0, 0, {}, 1}};
  for (kg::family f : kg::all_families()) {
    catalog::family_desc d{std::string(kg::name_of(f)), {}, "kernel"};
    d.headers = {std::string(kg::header_of(f))};
    for (std::string_view p : kg::param_names(f)) d.params.emplace_back(p);
    op.families.push_back(std::move(d));
  }
  return op;
}

kg::groupnorm_config groupnorm_config_of(const space::point& p, const spec::problem& problem) {
  kg::groupnorm_config c;
  if (!kg::parse_family(p.family, c.fam)) throw error(fmt::format("unknown groupnorm family \"{}\"", p.family));
  const auto t = parse_dtype(problem.dtype);
  if (!t) throw error(fmt::format("unknown dtype \"{}\"", problem.dtype));
  c.type = *t;
  c.lay = groupnorm_layout_of(problem.dims);
  c.silu = groupnorm_silu_of(problem.dims);
  set_point_params(c, p, set_groupnorm_param);
  return c;
}

kernel_candidate groupnorm_kernel_of(const space::point& point, const spec::problem& p) {
  const auto c = groupnorm_config_of(point, p);
  return {kg::instance_name(c), groupnorm_entry_source(c), std::string(name_of(c.type)), c.block_threads, 0,
          kg::check_config(c)};
}

}  // namespace cuop::ops
