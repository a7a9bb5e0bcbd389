// Launching a planned GEMM configuration (CUDA runtime; the nvcc path and the tuner share it).
#pragma once

#include <cuda_runtime_api.h>

#include "cuop/kernels/gemm/args.cuh"
#include "cuop/kernels/gemm/family.hpp"
#include "cuop/kernels/gemm/tma_args.cuh"

namespace cuop::kernels::gemm {

// Fills the device's limits (SMs, threads and opt-in shared memory per block).
cudaError_t query_limits(int device, device_limits& out);

// Launches `kernel` (a __global__ function or a cudaKernel_t cast to a pointer) as planned; raises
// its dynamic shared memory limit first when the plan needs more than 48 KiB. A packing plan
// (plan.pack.on) first copies A and B into the workspace (pack.hpp): two launches on `stream`.
cudaError_t launch(const void* kernel, const launch_plan& plan, const gemm_args& args,
                   cudaStream_t stream);

// Whether TMA can read these operands as wgmma's tensor maps want them: column-major B, both
// base pointers 16-byte aligned and both leading dimensions multiples of 8 elements.
bool tma_operands_ok(const gemm_config& c, const gemm_args& args);

// The tensor maps of wgmma configuration `c` for these operands (A: k x m, B: k x n, innermost
// first; boxes of 64 x block_m and 64 x block_n / cluster with 128-byte swizzle), encoded through the
// driver's cuTensorMapEncodeTiled. False where tma_operands_ok is, or the driver refuses a map.
bool make_tma_maps(const gemm_config& c, const gemm_args& args, gemm_tma& out);

// Launches configuration c's kernel as planned: a wgmma kernel with its tensor maps (made here;
// cudaErrorInvalidValue, nothing launched, where they cannot be) and on clusters of
// plan.cluster_x blocks, the others as launch() above.
cudaError_t launch(const gemm_config& c, const void* kernel, const launch_plan& plan, const gemm_args& args,
                   cudaStream_t stream);

}  // namespace cuop::kernels::gemm
