// The values a problem dimension takes in a sweep file: one value (a listed problem), every value
// of a grid's forms (a list, range, pow2, log2) or the law a sample draws from (a list, choice,
// uniform, log_uniform). Each value is checked against the dimension's rules (catalog::dim_desc: min,
// max, named choices) at its place in the file.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tuner/catalog/catalog.hpp"
#include "tuner/core/seeded_random.hpp"
#include "tuner/spec/yaml_reader.hpp"

namespace cuop::spec::detail {

// The dtypes as a dimension with named choices, so sets read `dtype` like `layout`.
catalog::dim_desc dtype_dim();

// One value of `dim` at `n`: an integer within [min, max], or the index of a named choice.
// `what` names it in messages ("\"rows\"", "\"range\" of \"rows\"").
std::int64_t read_dimension(const yaml_reader& r, const YAML::Node& n, const catalog::dim_desc& dim,
                            const std::string& what);

// A grid's values of `dim`, in order, without repeats: a value, a list, {range: [lo, hi(,
// step)]}, {pow2: [lo, hi]} or {log2: [lo_exp, hi_exp(, step)]} (names: one or a list). More
// than `limit` values is an error.
std::vector<std::int64_t> grid_values(const yaml_reader& r, const YAML::Node& n, const catalog::dim_desc& dim,
                                      std::size_t limit);

// How a sample draws one dimension.
struct draw_law {
  enum class form { fixed, choice, uniform, log_uniform };
  form kind = form::fixed;
  std::vector<std::int64_t> values;  // fixed: its value; choice: the listed ones (a repeat weighs more)
  std::int64_t lo = 0, hi = 0;       // uniform, log_uniform: the bounds, both included
  // Draws one value; a fixed one draws nothing from `rng`, every other form one draw.
  std::int64_t draw(core::seeded_random& rng) const;
};

// A sample's law of `dim`: a value, a list or {choice: [...]} (names for a named dimension), or
// {uniform: [lo, hi]} or {log_uniform: [lo, hi]} (integers).
draw_law sample_law(const yaml_reader& r, const YAML::Node& n, const catalog::dim_desc& dim);

}  // namespace cuop::spec::detail
