// The `candidates:` and `constraints:` of a sweep file (docs/configs.md): each candidate's family,
// its parameters' values (lists, ranges, powers of two) and constraints, and a custom kernel's
// source. Kept apart from spec.cpp's problems and top-level keys.
#pragma once

#include <vector>

#include "tuner/catalog/op_desc.hpp"
#include "tuner/spec/spec.hpp"
#include "tuner/spec/yaml_reader.hpp"

namespace cuop::spec::detail {

// Each candidate on its own, and within one each parameter: a bad one is added to `errors` and
// the parser goes on. A candidate with an error is left out of the result, so the checks that
// follow (constraints, the size of the space) see only what parsed.
std::vector<candidate> parse_candidates(const yaml_reader& r, const YAML::Node& n, const catalog::op_desc& op,
                                        error_collector& errors);
std::vector<constraint> parse_constraints(const yaml_reader& r, const YAML::Node& n, error_collector& errors);

}  // namespace cuop::spec::detail
