// Which trial of a problem is the baseline the dispatch model must beat (docs/dispatch.md): the
// softmax default rule's configuration, cuBLASLt's heuristic choice, cuDNN's heuristic plan.
#pragma once

#include "tuner/store/store.hpp"

namespace cuop::ops {

bool is_baseline(const store::problem_record& problem, const store::config_record& config);

}  // namespace cuop::ops
