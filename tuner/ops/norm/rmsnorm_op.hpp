// The rmsnorm op (kernels::norm::norm_kind::rmsnorm): its parts are the row normalizations'
// (tuner/ops/norm/), with the kind fixed.
#pragma once

#include "tuner/ops/op.hpp"

namespace cuop::ops {

const op& rmsnorm_op();

}  // namespace cuop::ops
