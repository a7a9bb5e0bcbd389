// The shape of the emitted softmax dispatch table (build/.../generated/cuop/generated/
// softmax_dispatch.hpp). Written by `cuop-tune emit`, read by the library's dispatch.
#pragma once

#include "cuop/detail/dispatch_model.hpp"
#include "cuop/detail/shape_features.hpp"
#include "cuop/dtype.hpp"
#include "cuop/kernels/softmax/family.hpp"

namespace cuop::detail {

struct softmax_entry {
  int arch;         // compute capability of the table: 80, 90, 100
  const char* gpu;  // GPU the timing comes from ("" for defaults)
  dtype type;
  long long rows, cols;  // tuned shape (0 for defaults)
  kernels::softmax::softmax_config config;
  int kernel;  // index into the instantiation unit's kernel array
  entry_source source;
  double median_us;  // measured time of this choice on `gpu` (0 for defaults)
  const char* instance;
};

// A softmax dispatch model: its shapes share the dtype.
struct softmax_model {
  dispatch_model m;
  dtype type;
};

}  // namespace cuop::detail
