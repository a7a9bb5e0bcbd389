// The ops of this build, looked up by name: what a sweep file's or a results file's `op:` may say.
// The table is the op registry's (tuner/ops/registry.cpp, from CUOP_OPS in tuner/ops/registry.cmake), which every tuner build
// links; declaring the lookup here lets the parsers below the ops (spec, space, results) check an
// op by its description without depending on the ops' trial runners and emitters.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tuner/catalog/op_desc.hpp"

namespace cuop::catalog {

const op_desc* find_op(std::string_view name) noexcept;  // null for an op this build does not have
std::vector<std::string> op_names();                     // in the registry's order

}  // namespace cuop::catalog
