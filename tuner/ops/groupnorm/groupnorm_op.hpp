// The groupnorm op: GroupNorm over NCHW or NHWC tensors, SiLU fused or not (docs/norm.md).
#pragma once

#include "tuner/ops/op.hpp"

namespace cuop::ops {

const op& groupnorm_op();

}  // namespace cuop::ops
