// Launching a planned convolution configuration (CUDA runtime; the nvcc path and the tuner share it).
#pragma once

#include <cuda_runtime_api.h>

#include "cuop/kernels/conv/args.cuh"
#include "cuop/kernels/conv/family.hpp"

namespace cuop::kernels::conv {

// Fills the device's limits (threads and opt-in shared memory per block, compute capability).
cudaError_t query_limits(int device, device_limits& out);

// The tensor maps of mma_tma and mma_seg for configuration `c` (mma_tma: x, its box block_c channels x
// the patch; mma_seg: x and y, boxes of block_c channels, depthwise_seg.cuh), encoded through the
// driver's cuTensorMapEncodeTiled (found at run time: no link to libcuda). out.valid is 0 where TMA
// cannot be used: another algorithm, C not a multiple of 8, x or y not 16-byte aligned, or the driver
// refuses a map. mma_tma then loads with plain accesses; mma_seg cannot run (launch() refuses it
// with cudaErrorInvalidValue; conv2d() copies such tensors into aligned buffers first).
void make_tma_input(const depthwise_config& c, const conv_args& args, tma_input& out);

// Launches `kernel` (a __global__ function taking conv_args, or a cudaKernel_t cast to a pointer)
// as planned; raises its dynamic shared memory limit first when the plan needs more than 48 KiB.
cudaError_t launch(const void* kernel, const launch_plan& plan, const conv_args& args,
                   cudaStream_t stream);
// The same for an mma_tma or mma_seg kernel, which takes a tma_input after conv_args.
cudaError_t launch(const void* kernel, const launch_plan& plan, const conv_args& args, const tma_input& in,
                   cudaStream_t stream);
// Launches configuration c's kernel: with its tma_input (made here) for mma_tma and mma_seg.
cudaError_t launch(const depthwise_config& c, const void* kernel, const launch_plan& plan, const conv_args& args,
                   cudaStream_t stream);
// The same for any configuration, via_nhwc included: `kernel` is kernel_config(c)'s and `plan`
// plan_launch's for c; `workspace` holds workspace_bytes(c, shape) bytes, 16-byte aligned (unused,
// and may be null, where that is 0). via_nhwc queues x (and with beta != 0, y) into the workspace
// as NHWC, the kernel on the workspace, and its y back into y as NCHW.
cudaError_t launch(const depthwise_config& c, const void* kernel, const launch_plan& plan, const conv_args& args,
                   void* workspace, cudaStream_t stream);

}  // namespace cuop::kernels::conv
