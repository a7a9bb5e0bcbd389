// Launching a planned convolution configuration (CUDA runtime; the nvcc path and the tuner share it).
#pragma once

#include <cuda_runtime_api.h>

#include "cuop/kernels/conv/args.cuh"
#include "cuop/kernels/conv/family.hpp"

namespace cuop::kernels::conv {

// Fills the device's limits (threads and opt-in shared memory per block).
cudaError_t query_limits(int device, device_limits& out);

// Launches `kernel` (a __global__ function taking conv_args, or a cudaKernel_t cast to a pointer)
// as planned; raises its dynamic shared memory limit first when the plan needs more than 48 KiB.
cudaError_t launch(const void* kernel, const launch_plan& plan, const conv_args& args,
                   cudaStream_t stream);

}  // namespace cuop::kernels::conv
