#include "tuner/ops/shape_traits.hpp"

#include <fmt/format.h>

#include "cuop/detail/shape_features.hpp"
#include "cuop/dtype.hpp"
#include "cuop/kernels/softmax/family.hpp"
#include "tuner/core/error.hpp"
#include "tuner/ops/conv_library.hpp"
#include "tuner/ops/conv_op.hpp"
#include "tuner/ops/gemm_library.hpp"

namespace cuop::ops {

namespace {

std::int64_t dim_at(const dim_values& dims, const char* name) {
  const auto it = dims.find(name);
  if (it == dims.end()) throw error(fmt::format("problem has no dimension \"{}\"", name));
  return it->second;
}

dtype dtype_of(const std::string& name) {
  const auto d = parse_dtype(name);
  if (!d) throw error(fmt::format("unknown dtype \"{}\"", name));
  return *d;
}

const char* grouping_name(detail::conv_grouping g) {
  switch (g) {
    case detail::conv_grouping::dense: return "dense";
    case detail::conv_grouping::depthwise: return "depthwise";
    case detail::conv_grouping::grouped: return "grouped";
  }
  return "?";
}

}  // namespace

std::vector<double> softmax_shape_features(const dim_values& dims) {
  std::vector<double> f(detail::softmax_feature_count);
  detail::softmax_features(dim_at(dims, "rows"), dim_at(dims, "cols"), f.data());
  return f;
}

std::string softmax_shape_group(const std::string& dtype, const dim_values&) { return dtype; }

std::string softmax_baseline(const std::string& dtype, const dim_values& dims) {
  namespace ks = kernels::softmax;
  return ks::instance_name(ks::default_config(dtype_of(dtype), dim_at(dims, "cols")));
}

std::vector<double> gemm_shape_features(const dim_values& dims) {
  std::vector<double> f(detail::gemm_feature_count);
  detail::gemm_features(dim_at(dims, "m"), dim_at(dims, "n"), dim_at(dims, "k"), f.data());
  return f;
}

std::string gemm_shape_group(const std::string& dtype, const dim_values&) { return dtype; }

std::string gemm_baseline(const std::string& dtype, const dim_values&) {
  return library_instance(dtype_of(dtype), "heuristic");
}

std::vector<double> conv_shape_features(const dim_values& dims) {
  std::vector<double> f(detail::conv_feature_count);
  detail::conv_features(conv_shape_of(dims), f.data());
  return f;
}

std::string conv_shape_group(const std::string& dtype, const dim_values& dims) {
  const auto g = detail::group_of(conv_shape_of(dims));
  return fmt::format("{}_{}_filter{}x{}_stride{}_pad{}_dil{}_{}{}", dtype, kernels::conv::name_of(g.lay), g.r, g.s,
                     g.stride, g.pad, g.dilation, grouping_name(g.grouping), g.tf32 ? "_tf32" : "");
}

std::string conv_baseline(const std::string& dtype, const dim_values&) {
  return conv_library_instance(dtype_of(dtype), "heuristic");
}

}  // namespace cuop::ops
