// The shape of the emitted softmax dispatch table (build/.../generated/cuop/generated/
// softmax_dispatch.hpp). Written by `cuop-tune emit`, read by the library's dispatch.
#pragma once

#include "cuop/dtype.hpp"
#include "cuop/kernels/softmax/family.hpp"

namespace cuop::detail {

// Which link of the fallback chain an entry comes from (DESIGN.md, Targets).
enum class entry_source : int {
  tuned = 0,         // measured on a GPU of this architecture (the entry names the GPU)
  nearest_arch = 1,  // measured on the nearest architecture, legal on this one
  fallback = 2,      // conservative default, not tuned
};

constexpr const char* name_of(entry_source s) noexcept {
  switch (s) {
    case entry_source::tuned: return "tuned";
    case entry_source::nearest_arch: return "nearest-arch";
    case entry_source::fallback: return "default";
  }
  return "?";
}

struct softmax_entry {
  int arch;                 // compute capability of the table: 80, 90, 100
  const char* gpu;          // GPU the timing comes from ("" for defaults)
  dtype type;
  long long rows, cols;     // tuned shape (0 for defaults)
  kernels::softmax::softmax_config config;
  int kernel;               // index into the instantiation unit's kernel array
  entry_source source;
  double median_us;         // measured time of this choice on `gpu` (0 for defaults)
  const char* instance;
};

}  // namespace cuop::detail
