// Softmax as the sweep sees it: configurations from space points, bytes a problem must move.
#pragma once

#include <nlohmann/json.hpp>

#include "cuop/kernels/softmax/family.hpp"
#include "tuner/space/space.hpp"
#include "tuner/ops/op_adapter.hpp"
#include "tuner/spec/spec.hpp"

namespace cuop::ops {

// Throws cuop::error for an unknown family, parameter or dtype.
kernels::softmax::softmax_config softmax_config_of(const space::point& p, const std::string& dtype);

// One read and one write of the tensor.
double softmax_bytes(const spec::problem& p);

const op_adapter& softmax_adapter();

}  // namespace cuop::ops
