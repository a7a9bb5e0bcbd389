// The `measure:` keys of a sweep file (docs/configs.md, docs/measurement.md): warm-up, samples,
// stopping, L2 flushing, timeouts, the environment check and racing, each within its limits.
#pragma once

#include "tuner/measure/settings.hpp"
#include "tuner/spec/yaml_reader.hpp"

namespace cuop::spec::detail {

// Every bad key or value is added to `errors` at its place; the others are read.
measure::settings parse_measure(const yaml_reader& r, const YAML::Node& n, error_collector& errors);

}  // namespace cuop::spec::detail
