// How an op call chooses what runs (docs/dispatch.md).
#pragma once

namespace cuop {

// tuned: the dispatch model's choice where its validation trusts it, else the baseline.
// baseline: always the baseline the model must beat (softmax: the default rule; GEMM: cuBLASLt's
// heuristic; conv2d: cuDNN's heuristic, or the default rule's kernel where cuDNN is absent), for
// side-by-side comparisons (`scripts/holdout.py`) and as an escape hatch.
enum class choice_policy : unsigned char { tuned, baseline };

// What dispatch chooses for a call of the row ops (softmax_which, layernorm_which, rmsnorm_which,
// groupnorm_which), for logs, tests and benchmarks. A GroupNorm group is a row of its elements.
struct row_op_choice {
  const char* instance = nullptr;  // e.g. "softmax_f16_warp_row_vec8_rowthreads32_blockrows4_chunks1"
  const char* source = nullptr;    // "tuned", "nearest-arch" or "default"
  const char* gpu = nullptr;       // GPU the choice was measured on ("" for defaults)
  bool same_gpu = false;           // measured on a GPU with this device's name
  bool exact_shape = false;        // the call's shape was tuned
  long long tuned_rows = 0, tuned_cols = 0;
  int table_arch = 0;  // 90 for the sm_90a table
};

}  // namespace cuop
