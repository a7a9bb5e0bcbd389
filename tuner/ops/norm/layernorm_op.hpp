// The layernorm op (kernels::norm::norm_kind::layernorm): its parts are the row normalizations'
// (tuner/ops/norm/), with the kind fixed.
#pragma once

#include "tuner/ops/op.hpp"

namespace cuop::ops {

const op& layernorm_op();

}  // namespace cuop::ops
