// Softmax as the sweep sees it: configurations from space points, bytes a problem must move.
#pragma once

#include <nlohmann/json.hpp>

#include "cuop/kernels/softmax/family.hpp"
#include "tuner/ops/op_adapter.hpp"
#include "tuner/ops/stored_config.hpp"
#include "tuner/space/space.hpp"
#include "tuner/spec/spec.hpp"

namespace cuop::ops {

// Throws cuop::error for an unknown family, parameter or dtype.
kernels::softmax::softmax_config softmax_config_of(const space::point& p, const std::string& dtype);

// The instance name of a stored softmax configuration (op_desc::instance_of): our families' names
// from their parameters; a custom kernel's name (never shipped) only checked to be an identifier.
std::string softmax_instance_of(const stored_config& c, std::string& why);

// One read and one write of the tensor.
double softmax_bytes(const spec::problem& p);

const op_adapter& softmax_adapter();

}  // namespace cuop::ops
