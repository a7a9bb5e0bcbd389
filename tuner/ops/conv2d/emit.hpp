// Emits the conv2d dispatch table (header) and the instantiation unit (.cu) from results files.
// Deterministic: the same results and targets give byte-identical files.
#pragma once

#include <string>
#include <vector>

#include "tuner/emit/emit_common.hpp"  // emitted
#include "tuner/results/results_file.hpp"

namespace cuop::ops {

// targets as emit_softmax takes them. Our depthwise kernels are emitted for a target only when
// they compiled and fit there; a cuDNN configuration only for the architecture it was measured on
// (elsewhere the entry asks cuDNN's heuristic instead); an FFT configuration everywhere.
emit::emitted emit_conv(const std::vector<results::result_file>& results, const std::vector<std::string>& targets);

}  // namespace cuop::ops
