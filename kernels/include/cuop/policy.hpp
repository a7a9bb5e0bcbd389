// How an op call chooses what runs (docs/dispatch.md).
#pragma once

namespace cuop {

// tuned: the dispatch model's choice where its validation trusts it, else the baseline.
// baseline: always the baseline the model must beat (softmax: the default rule; GEMM: cuBLASLt's
// heuristic; conv2d: cuDNN's heuristic, or the default rule's kernel where cuDNN is absent), for
// side-by-side comparisons (`scripts/holdout.py`) and as an escape hatch.
enum class choice_policy : unsigned char { tuned, baseline };

}  // namespace cuop
