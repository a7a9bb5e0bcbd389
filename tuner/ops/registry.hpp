// The ops of this build (CUOP_OPS in tuner/ops/registry.cmake). Everything that works for any op (the
// sweep, the worker, emit, the gate, the CLI) loops over all_ops() or looks one up by name.
#pragma once

#include <string_view>
#include <vector>

#include "tuner/ops/op.hpp"

namespace cuop::ops {

const std::vector<const op*>& all_ops();
const op* find(std::string_view name) noexcept;  // null for an op this build does not have
const op& named(std::string_view name);          // throws cuop::error naming the ops there are

}  // namespace cuop::ops
