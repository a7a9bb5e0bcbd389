// Softmax over the last dimension: a problem is {rows, cols} with one dtype for input and output
// (f32 accumulation). Candidates are our kernel families (cuop/kernels/softmax/family.hpp) and
// kernels from the sweep file's own source (family "custom", custom.hpp).
#pragma once

#include <string>

#include "cuop/kernels/softmax/family.hpp"
#include "tuner/ops/op.hpp"

namespace cuop::ops {

const op& softmax_op();

// Throws cuop::error for an unknown family, parameter or dtype.
kernels::softmax::softmax_config softmax_config_of(const space::point& p, const std::string& dtype);

}  // namespace cuop::ops
