#include "tuner/ops/norm/describe.hpp"

#include <fmt/format.h>

#include "cuop/detail/shape_features.hpp"
#include "tuner/core/error.hpp"
#include "tuner/ops/dims.hpp"
#include "tuner/ops/norm/source.hpp"
#include "tuner/ops/params.hpp"

namespace cuop::ops {

namespace kn = kernels::norm;

namespace {

const auto set_norm_param = [](kn::norm_config& c, const std::string& name, long long v) {
  return kn::set_param(c, name, v);
};

// Each op's description holds plain function pointers: one instantiation per kind.
template <kn::norm_kind K>
std::string instance_of(const catalog::stored_config& stored, std::string& why) {
  kn::norm_config c{.kind = K};
  if (!kn::parse_family(stored.family, c.fam)) {
    why = fmt::format("unknown {} family \"{}\"", kn::name_of(K), stored.family);
    return {};
  }
  c.type = stored.type;
  why = set_stored_params(c, stored.family, kn::param_names(c.fam), stored.params, set_norm_param);
  if (!why.empty()) return {};
  if (stored.ran && !(why = kn::check_config(c)).empty()) return {};
  return kn::instance_name(c);
}

// Reads x (and the residual) and writes y (and the residual): the weight and bias are read
// once per block and left out.
template <kn::norm_kind K>
double bytes_of(const std::string& dtype, const catalog::dim_values& dims) {
  const auto t = parse_dtype(dtype);
  const double elems = static_cast<double>(dim_at(dims, "rows")) * static_cast<double>(dim_at(dims, "cols"));
  const double passes = K == kn::norm_kind::rmsnorm && fuses_residual(dims) ? 4.0 : 2.0;
  return passes * elems * static_cast<double>(t ? size_of(*t) : 4);
}

std::vector<double> features_of(const catalog::dim_values& dims) {
  std::vector<double> f(detail::norm_feature_count);
  detail::norm_features(dim_at(dims, "rows"), dim_at(dims, "cols"), f.data());
  return f;
}

std::string group_of(const std::string& dtype, const catalog::dim_values& dims) {
  return fuses_residual(dims) ? dtype + "_residual" : dtype;
}

template <kn::norm_kind K>
std::string baseline_of(const std::string& dtype, const catalog::dim_values& dims, int) {
  return kn::instance_name(
      kn::default_config(K, dtype_of(dtype), dim_at(dims, "rows"), dim_at(dims, "cols"), fuses_residual(dims)));
}

std::string key_of(const catalog::dim_values& dims) {
  return fmt::format("{}x{}{}", dim_at(dims, "rows"), dim_at(dims, "cols"), fuses_residual(dims) ? "_residual" : "");
}

template <kn::norm_kind K>
catalog::op_desc describe() {
  catalog::op_desc op{.name = std::string(kn::name_of(K)),
                      .problem_dims = {"rows", "cols"},
                      .key_of = key_of,
                      .instance_of = instance_of<K>,
                      .features_of = features_of,
                      .group_of = group_of,
                      .baseline_of = baseline_of<K>,
                      .bytes_of = bytes_of<K>};
  if (K == kn::norm_kind::rmsnorm) {
    op.problem_dims.emplace_back("residual");
    op.dims = {{"rows", 1, {}, {}}, {"cols", 1, {}, {}}, {"residual", 0, 0, {}, 1}};
  }
  for (kn::family f : kn::all_families()) {
    catalog::family_desc d{std::string(kn::name_of(f)), {}, "kernel"};
    d.headers = {std::string(kn::header_of(f))};
    for (std::string_view p : kn::param_names(f)) d.params.emplace_back(p);
    op.families.push_back(std::move(d));
  }
  return op;
}

}  // namespace

catalog::op_desc describe_norm(kn::norm_kind kind) {
  return kind == kn::norm_kind::layernorm ? describe<kn::norm_kind::layernorm>() : describe<kn::norm_kind::rmsnorm>();
}

kn::norm_config norm_config_of(kn::norm_kind kind, const space::point& p, const std::string& dtype_name) {
  kn::norm_config c{.kind = kind};
  if (!kn::parse_family(p.family, c.fam))
    throw error(fmt::format("unknown {} family \"{}\"", kn::name_of(kind), p.family));
  const auto t = parse_dtype(dtype_name);
  if (!t) throw error(fmt::format("unknown dtype \"{}\"", dtype_name));
  c.type = *t;
  set_point_params(c, p, set_norm_param);
  return c;
}

kernel_candidate norm_kernel_of(kn::norm_kind kind, const space::point& point, const spec::problem& p) {
  const auto c = norm_config_of(kind, point, p.dtype);
  return {kn::instance_name(c), norm_entry_source(c), std::string(name_of(c.type)), kn::threads_per_block(c), 0,
          kn::check_config(c)};
}

}  // namespace cuop::ops
