// What the row-normalization ops (layernorm, rmsnorm) share as the tuner sees them: their
// description, a configuration from a sweep's point, and the kernel to compile. Each op's folder
// fixes the kind (kernels::norm::norm_kind).
#pragma once

#include <string>

#include "cuop/kernels/norm/family.hpp"
#include "tuner/catalog/op_desc.hpp"
#include "tuner/ops/op.hpp"
#include "tuner/space/space.hpp"
#include "tuner/spec/spec.hpp"

namespace cuop::ops {

// The op's description: problem dimensions rows and cols (rmsnorm also `residual`, 0 or 1: the
// residual add fused), the kernel families with their parameters, the features, groups (the
// dtype; rmsnorm's with "_residual" when fused) and baseline (the default rule's configuration).
catalog::op_desc describe_norm(kernels::norm::norm_kind kind);

// Throws cuop::error for an unknown family, parameter or dtype.
kernels::norm::norm_config norm_config_of(kernels::norm::norm_kind kind, const space::point& p,
                                          const std::string& dtype_name);

kernel_candidate norm_kernel_of(kernels::norm::norm_kind kind, const space::point& point, const spec::problem& p);

// Whether the problem fuses the residual add (rmsnorm's `residual` dimension; layernorm: never),
// from a sweep's dimensions or a stored trial's (maps of a name to its value).
template <typename Dims>
bool fuses_residual(const Dims& dims) noexcept {
  const auto it = dims.find("residual");
  return it != dims.end() && it->second != 0;
}

}  // namespace cuop::ops
