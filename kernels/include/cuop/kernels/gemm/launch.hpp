// Launching a planned GEMM configuration (CUDA runtime; the nvcc path and the tuner share it).
#pragma once

#include <cuda_runtime_api.h>

#include "cuop/kernels/gemm/args.cuh"
#include "cuop/kernels/gemm/family.hpp"

namespace cuop::kernels::gemm {

// Fills the device's limits (SMs, threads and opt-in shared memory per block).
cudaError_t query_limits(int device, device_limits& out);

// Launches `kernel` (a __global__ function or a cudaKernel_t cast to a pointer) as planned; raises
// its dynamic shared memory limit first when the plan needs more than 48 KiB. A packing plan
// (plan.pack.on) first copies A and B into the workspace (pack.hpp): two launches on `stream`.
cudaError_t launch(const void* kernel, const launch_plan& plan, const gemm_args& args,
                   cudaStream_t stream);

}  // namespace cuop::kernels::gemm
