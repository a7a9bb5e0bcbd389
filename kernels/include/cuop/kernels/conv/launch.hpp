// Launching a planned convolution configuration (CUDA runtime; the nvcc path and the tuner share it).
#pragma once

#include <cuda_runtime_api.h>

#include "cuop/kernels/conv/args.cuh"
#include "cuop/kernels/conv/family.hpp"

namespace cuop::kernels::conv {

// Fills the device's limits (threads and opt-in shared memory per block, compute capability).
cudaError_t query_limits(int device, device_limits& out);

// Stage 4's tensor map of x for configuration `c` (its box: block_c channels x the patch), encoded
// through the driver's cuTensorMapEncodeTiled (found at run time: no link to libcuda). out.valid
// is 0, and the kernel loads with plain loads, where TMA cannot read x or 16-byte accesses cannot
// be taken for granted: another stage, C not a multiple of 8, x or y not 16-byte aligned, or the
// driver refuses the map.
void make_tma_input(const depthwise_config& c, const conv_args& args, tma_input& out);

// Launches `kernel` (a __global__ function taking conv_args, or a cudaKernel_t cast to a pointer)
// as planned; raises its dynamic shared memory limit first when the plan needs more than 48 KiB.
cudaError_t launch(const void* kernel, const launch_plan& plan, const conv_args& args,
                   cudaStream_t stream);
// The same for a stage 4 kernel, which takes a tma_input after conv_args.
cudaError_t launch(const void* kernel, const launch_plan& plan, const conv_args& args, const tma_input& in,
                   cudaStream_t stream);
// Launches configuration c's kernel: with its tma_input (made here) for stage 4.
cudaError_t launch(const depthwise_config& c, const void* kernel, const launch_plan& plan, const conv_args& args,
                   cudaStream_t stream);

}  // namespace cuop::kernels::conv
