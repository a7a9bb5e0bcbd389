// Emit for the row normalizations: the dispatch table of one kind (layernorm_dispatch.hpp or
// rmsnorm_dispatch.hpp) and its kernel units, from results files (softmax's scheme).
#pragma once

#include <string>
#include <vector>

#include "cuop/kernels/norm/family.hpp"
#include "tuner/emit/emit_common.hpp"
#include "tuner/ops/op.hpp"
#include "tuner/results/results_file.hpp"

namespace cuop::ops {

emit::emitted emit_norm(const op& self, kernels::norm::norm_kind kind, const std::vector<results::result_file>& results,
                        const std::vector<std::string>& targets);

}  // namespace cuop::ops
