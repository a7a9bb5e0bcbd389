// The search strategy's keys of a sweep file (docs/configs.md): `strategy`, and for
// `strategy: transfer` its `budget`, `transfer_neighbours` and `transfer_seed`. Kept apart from
// spec.cpp's problems and candidates.
#pragma once

#include <vector>

#include "tuner/spec/spec.hpp"
#include "tuner/spec/yaml_reader.hpp"

namespace cuop::spec::detail {

// Reads the strategy keys among the top-level entries `es` of `root` into `s`; every bad value,
// and a key given without the strategy that reads it, is added to `errors` at its place.
void parse_strategy_keys(const yaml_reader& r, const YAML::Node& root, const std::vector<entry>& es, sweep& s,
                         error_collector& errors);

}  // namespace cuop::spec::detail
