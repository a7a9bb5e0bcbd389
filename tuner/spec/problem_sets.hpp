// Problem sets: items of a sweep file's `problems:` that stand for many problems, a `grid` (the
// cartesian product of each dimension's values) or a `sample` (n seeded random problems drawn
// from each dimension's law, optionally kept to a `where` expression). Expanded when the file is
// loaded; afterwards their problems are like any listed one (docs/configs.md, "Problem sets:
// grids and samples").
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "tuner/catalog/catalog.hpp"
#include "tuner/spec/spec.hpp"
#include "tuner/spec/yaml_reader.hpp"

namespace cuop::spec::detail {

// "grid" or "sample" when `item` is a map with that key (a problem set), "" for a problem.
std::string problem_set_kind(const YAML::Node& item);

// The problems of the set `item` (problem_set_kind is not ""), in its order, each located at the
// set. Its errors are added to `errors` (every bad field said, like a problem's) and then it has
// no problems. A set past max_set_problems, or past max_problems with the `before` problems
// ahead of it in the file, is an error (thrown, like an error in its own map).
std::vector<problem> expand_problem_set(const yaml_reader& r, const YAML::Node& item, const catalog::op_desc& op,
                                        const std::optional<std::vector<std::string>>& default_dtypes,
                                        std::size_t before, error_collector& errors);

}  // namespace cuop::spec::detail
