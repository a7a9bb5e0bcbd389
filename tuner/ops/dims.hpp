// Reading a problem's dimensions and dtype by name, for any op's description functions.
#pragma once

#include <cstdint>
#include <string>

#include "cuop/dtype.hpp"
#include "tuner/catalog/op_desc.hpp"

namespace cuop::ops {

// The dimension's value; throws cuop::error naming a dimension the problem does not have.
std::int64_t dim_at(const catalog::dim_values& dims, const char* name);
// The dimension's value, or 0 when the problem does not have it (a shape's checks then refuse it).
std::int64_t dim_or_zero(const catalog::dim_values& dims, const char* name) noexcept;
// The dtype named; throws cuop::error for a name that is none.
dtype dtype_of(const std::string& name);

}  // namespace cuop::ops
