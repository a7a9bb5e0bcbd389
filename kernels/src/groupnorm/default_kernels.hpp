// The GroupNorm kernels the library ships: the default rule's configuration of every dtype,
// layout and SiLU, compiled by nvcc (default_kernels.cu).
#pragma once

#include "cuop/kernels/groupnorm/family.hpp"

namespace cuop::kernels::groupnorm {

struct default_kernel {
  groupnorm_config config;
  const void* kernel;  // the entry function
};

extern const default_kernel default_kernels[];
extern const int default_kernel_count;

}  // namespace cuop::kernels::groupnorm
