// cuop::gemm: D = alpha * A * B + beta * C, dispatched through the table emitted from tuning
// results (our kernels and cuBLASLt configurations alike; no tuning at run time).
#pragma once

#include <cuda_runtime_api.h>

#include "cuop/dtype.hpp"
#include "cuop/kernels/gemm/family.hpp"
#include "cuop/policy.hpp"
#include "cuop/status.hpp"

namespace cuop {

struct gemm_problem {
  dtype in = dtype::bf16;                                    // A and B: f16 or bf16
  dtype out = dtype::bf16;                                   // C and D: f32 or the input type; accumulation is f32
  kernels::gemm::b_layout b = kernels::gemm::b_layout::col;  // col: B stored n x k (weights)
  int m = 0, n = 0, k = 0;
  long long lda = 0;  // A is m x k row-major; 0 means k
  long long ldb = 0;  // col: elements between columns (0 means k); row: between rows (0 means n)
  long long ldc = 0;  // C and D are m x n row-major; 0 means n
  long long ldd = 0;
  float alpha = 1.f;
  float beta = 0.f;  // C is read only when beta != 0
  choice_policy policy = choice_policy::tuned;
};

// k must be at least 1 (m or n of 0 is a no-op). Asynchronous on `stream`; errors of the launch
// itself are returned. Workspace (split-K partials, packed operands, cuBLASLt's) is the
// library's, kept per device and stream (under CUDA graph capture: the graph's own).
// Pointers must be aligned to their element type; less than 16 bytes is fine (the choice, and
// what cuBLASLt is asked for, follow the pointers' alignment). D must not share a byte with A or
// B, nor with C unless C is D with ldc == ldd (in place); C is not read when beta == 0. Refused
// with invalid_argument before anything is queued: those, bad types or layout, leading
// dimensions below their rows, an operand past 2^48 bytes, a stream of another device. Streams,
// graphs and threads: docs/ARCHITECTURE.md, "Using the library".
status gemm(const gemm_problem& p, const void* a, const void* b, const void* c, void* d, cudaStream_t stream = nullptr);

// What dispatch chooses for `p` on the current device, for logs, tests and benchmarks, for
// pointers aligned as cudaMalloc aligns them (a call with less aligned pointers may choose
// otherwise). Makes the choice's handles and plans, so it also warms a shape up before capture.
struct gemm_choice {
  const char* instance = nullptr;  // "gemm_bf16_bf16_col_mma_...", "gemm_bf16_cublaslt_..."
  const char* kind = nullptr;      // "kernel", "cublaslt" or "cublaslt-heuristic"
  const char* source = nullptr;    // "tuned", "nearest-arch" or "default"
  const char* gpu = nullptr;       // GPU the choice was measured on ("" for defaults)
  bool exact_shape = false;        // the call's shape was tuned
  bool fell_back = false;          // the table's cuBLASLt configuration was rejected here
  int tuned_m = 0, tuned_n = 0, tuned_k = 0;
  int table_arch = 0;
};
status gemm_which(const gemm_problem& p, gemm_choice& out);

}  // namespace cuop
