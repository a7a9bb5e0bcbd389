// The shape of the emitted GEMM dispatch table (generated/cuop/generated/gemm_dispatch.hpp).
// Written by `cuop-tune emit`, read by the library's dispatch.
#pragma once

#include "cuop/detail/dispatch_model.hpp"
#include "cuop/detail/shape_features.hpp"
#include "cuop/dtype.hpp"
#include "cuop/kernels/gemm/family.hpp"

namespace cuop::detail {

enum class gemm_kind : int {
  kernel = 0,              // one of our kernels: `config`, instantiated as gemm_kernels[kernel]
  cublaslt = 1,            // a cuBLASLt configuration rebuilt from `lt_id` at the first call
  cublaslt_heuristic = 2,  // whatever cuBLASLt's heuristic answers first for the call's shape
};

struct gemm_entry {
  int arch;         // compute capability of the table: 80, 90, 100
  const char* gpu;  // GPU the timing comes from ("" for defaults)
  dtype in, out;
  kernels::gemm::b_layout b;
  int m, n, k;  // tuned shape (0 for defaults)
  gemm_kind kind;
  kernels::gemm::gemm_config config;  // kind == kernel
  const char* lt_id;                  // kind == cublaslt: the configuration's identifier, else ""
  int kernel;                         // kind == kernel: index into gemm_kernels, else -1
  entry_source source;
  double median_us;  // measured time of this choice on `gpu` (0 for defaults)
  const char* instance;
};

// A GEMM dispatch model: its shapes share the types, B's layout and whether any of A's, B's or
// D's rows miss 16-byte alignment (the libraries' kernels differ most there: docs/dispatch.md).
struct gemm_model {
  dispatch_model m;
  dtype in, out;
  kernels::gemm::b_layout b;
  bool misaligned;
};

}  // namespace cuop::detail
