// The shape of the emitted dispatch tables of the row normalizations (build/.../generated/cuop/
// generated/layernorm_dispatch.hpp and rmsnorm_dispatch.hpp). Written by `cuop-tune emit`, read
// by the library's dispatch.
#pragma once

#include "cuop/detail/dispatch_model.hpp"
#include "cuop/detail/shape_features.hpp"
#include "cuop/dtype.hpp"
#include "cuop/kernels/norm/family.hpp"

namespace cuop::detail {

struct norm_entry {
  int arch;         // compute capability of the table: 80, 90, 100
  const char* gpu;  // GPU the timing comes from ("" for defaults)
  dtype type;
  long long rows, cols;  // tuned shape (0 for defaults)
  bool residual;         // tuned with the residual add fused (rmsnorm)
  kernels::norm::norm_config config;
  int kernel;  // index into the instantiation unit's kernel array
  entry_source source;
  double median_us;  // measured time of this choice on `gpu` (0 for defaults)
  const char* instance;
};

// A dispatch model: its shapes share the dtype and whether the residual add is fused.
struct norm_model {
  dispatch_model m;
  dtype type;
  bool residual;
};

// The names emit writes for each op's table (<stem>_entry, <stem>_model).
using layernorm_entry = norm_entry;
using rmsnorm_entry = norm_entry;
using layernorm_model = norm_model;
using rmsnorm_model = norm_model;

}  // namespace cuop::detail
