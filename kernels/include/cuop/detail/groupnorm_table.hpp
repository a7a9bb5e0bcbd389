// The shape of GroupNorm's emitted dispatch table (build/.../generated/cuop/generated/
// groupnorm_dispatch.hpp). Written by `cuop-tune emit`, read by the library's dispatch.
#pragma once

#include "cuop/detail/dispatch_model.hpp"
#include "cuop/detail/shape_features.hpp"
#include "cuop/dtype.hpp"
#include "cuop/kernels/groupnorm/family.hpp"

namespace cuop::detail {

struct groupnorm_entry {
  int arch;         // compute capability of the table: 80, 90, 100
  const char* gpu;  // GPU the timing comes from ("" for defaults)
  dtype type;
  kernels::groupnorm::layout lay;
  bool silu;
  long long n, c, hw, groups;  // tuned shape (0 for defaults)
  kernels::groupnorm::groupnorm_config config;
  int kernel;  // index into the instantiation unit's kernel array
  entry_source source;
  double median_us;  // measured time of this choice on `gpu` (0 for defaults)
  const char* instance;
};

// A dispatch model: its shapes share the dtype, layout and SiLU.
struct groupnorm_model {
  dispatch_model m;
  dtype type;
  kernels::groupnorm::layout lay;
  bool silu;
};

}  // namespace cuop::detail
