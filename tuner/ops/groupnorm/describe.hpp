// The groupnorm op as the tuner sees it: its description, a configuration from a sweep's point,
// and the kernel to compile.
#pragma once

#include <string>

#include "cuop/kernels/groupnorm/family.hpp"
#include "tuner/catalog/op_desc.hpp"
#include "tuner/ops/op.hpp"
#include "tuner/space/space.hpp"
#include "tuner/spec/spec.hpp"

namespace cuop::ops {

// Problem dimensions n, c, h, w, groups (32 when omitted), layout (nhwc or nchw; nhwc when
// omitted) and silu (0 or 1; 0 when omitted); the group_loop family and its parameters; features
// (log2 of the groups of a call and of a group's elements), groups (the dtype, layout and SiLU)
// and the baseline (the default rule's configuration).
catalog::op_desc describe_groupnorm();

// The problem's shape and what its kernels compute.
kernels::groupnorm::groupnorm_shape groupnorm_shape_of(const catalog::dim_values& dims);
kernels::groupnorm::layout groupnorm_layout_of(const catalog::dim_values& dims);
bool groupnorm_silu_of(const catalog::dim_values& dims);

// Throws cuop::error for an unknown family, parameter or dtype.
kernels::groupnorm::groupnorm_config groupnorm_config_of(const space::point& p, const spec::problem& problem);

kernel_candidate groupnorm_kernel_of(const space::point& point, const spec::problem& p);

}  // namespace cuop::ops
