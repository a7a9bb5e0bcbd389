#include "tuner/emit/dispatch_emit.hpp"

namespace cuop::emit {

model_traits traits_with_desc(model_traits traits, const catalog::op_desc& desc, int feature_count) {
  const auto dims_of = [](const results::result_trial& r) { return catalog::dim_values(r.dims.begin(), r.dims.end()); };
  traits.feature_count = feature_count;
  traits.floor_features = desc.default_floor_features;
  traits.features = [&desc, dims_of](const results::result_trial& r) { return desc.features_of(dims_of(r)); };
  traits.group = [&desc, dims_of](const results::result_trial& r) { return desc.group_of(r.dtype, dims_of(r)); };
  return traits;
}

}  // namespace cuop::emit
