// Launching a GroupNorm configuration: one code path for the tuner (kernels loaded from NVRTC
// cubins) and the library's dispatch (kernels compiled by nvcc). The device's limits are the row
// normalizations' (norm::query_limits).
#pragma once

#include <cuda_runtime_api.h>

#include "cuop/kernels/groupnorm/args.cuh"
#include "cuop/kernels/groupnorm/family.hpp"

namespace cuop::kernels::groupnorm {

// Launches `kernel` (an entry function or a cudaKernel_t cast to const void*) with the plan.
cudaError_t launch(const void* kernel, const launch_plan& plan, const groupnorm_args& args, cudaStream_t stream);

}  // namespace cuop::kernels::groupnorm
