// Launching a softmax configuration: one code path for the tuner (kernels loaded from NVRTC
// cubins) and the library's dispatch (kernels compiled by nvcc), so a configuration runs the same
// way when it is measured and when it ships.
#pragma once

#include <cuda_runtime_api.h>

#include "cuop/kernels/softmax/args.cuh"
#include "cuop/kernels/softmax/family.hpp"

namespace cuop::kernels::softmax {

// Device limits for planning `kernel` with `block_threads` threads: SM count, per-block limits and
// (for cooperative families) the number of co-resident blocks from the occupancy calculator.
cudaError_t query_limits(int device, const void* kernel, int block_threads,
                         device_limits& out);

// Launches `kernel` (an entry function or a cudaKernel_t cast to const void*) with the plan.
cudaError_t launch(const void* kernel, const launch_plan& plan, const softmax_args& args,
                   cudaStream_t stream);

}  // namespace cuop::kernels::softmax
