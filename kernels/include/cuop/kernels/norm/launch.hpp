// Launching a normalization configuration: one code path for the tuner (kernels loaded from
// NVRTC cubins) and the library's dispatch (kernels compiled by nvcc).
#pragma once

#include <cuda_runtime_api.h>

#include "cuop/kernels/norm/args.cuh"
#include "cuop/kernels/norm/family.hpp"

namespace cuop::kernels::norm {

// The device's compute capability, SM count and threads per block.
cudaError_t query_limits(int device, device_limits& out);

// Launches `kernel` (an entry function or a cudaKernel_t cast to const void*) with the plan.
cudaError_t launch(const void* kernel, const launch_plan& plan, const norm_args& args, cudaStream_t stream);

}  // namespace cuop::kernels::norm
