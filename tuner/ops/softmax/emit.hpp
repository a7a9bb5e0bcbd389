// Emits the softmax dispatch table (header) and the instantiation unit (.cu) from results files.
// Deterministic: the same results and targets give byte-identical files.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tuner/emit/emit_common.hpp"
#include "tuner/results/results_file.hpp"

namespace cuop::ops {

// targets: "80", "90a", "sm_100a", "90a-real"... (CMake's CUDA_ARCHITECTURES spellings accepted).
emit::emitted emit_softmax(const std::vector<results::result_file>& results, const std::vector<std::string>& targets);

}  // namespace cuop::ops
