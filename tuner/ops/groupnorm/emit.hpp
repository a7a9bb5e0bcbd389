// Emit for GroupNorm: its dispatch table (groupnorm_dispatch.hpp) and kernel units, from results
// files (softmax's scheme: a model per dtype, layout and SiLU; the default rule where it is not
// confident).
#pragma once

#include <string>
#include <vector>

#include "tuner/emit/emit_common.hpp"
#include "tuner/ops/op.hpp"
#include "tuner/results/results_file.hpp"

namespace cuop::ops {

emit::emitted emit_groupnorm(const op& self, const std::vector<results::result_file>& results,
                             const std::vector<std::string>& targets);

}  // namespace cuop::ops
