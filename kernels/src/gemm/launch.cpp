#include "cuop/kernels/gemm/launch.hpp"

namespace cuop::kernels::gemm {

cudaError_t query_limits(int device, device_limits& out) {
  cudaError_t e = cudaDeviceGetAttribute(&out.sm_count, cudaDevAttrMultiProcessorCount, device);
  if (e != cudaSuccess) return e;
  e = cudaDeviceGetAttribute(&out.max_threads_per_block, cudaDevAttrMaxThreadsPerBlock, device);
  if (e != cudaSuccess) return e;
  int smem = 0;
  e = cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  out.max_smem_per_block = smem;
  return e;
}

cudaError_t launch(const void* kernel, const launch_plan& plan, const gemm_args& args,
                   cudaStream_t stream) {
  if (plan.smem_bytes > 48 * 1024) {
    const cudaError_t e = cudaFuncSetAttribute(
        kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(plan.smem_bytes));
    if (e != cudaSuccess) return e;
  }
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(plan.grid_x, plan.grid_y, plan.grid_z);
  config.blockDim = dim3(plan.block_x, 1, 1);
  config.dynamicSmemBytes = plan.smem_bytes;
  config.stream = stream;
  gemm_args copy = args;
  void* params[] = {&copy};
  return cudaLaunchKernelExC(&config, kernel, params);
}

}  // namespace cuop::kernels::gemm
