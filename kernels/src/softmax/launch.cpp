#include "cuop/kernels/softmax/launch.hpp"

namespace cuop::kernels::softmax {

cudaError_t query_limits(int device, const void* kernel, int block_threads, device_limits& out) {
  cudaError_t e = cudaDeviceGetAttribute(&out.sm_count, cudaDevAttrMultiProcessorCount, device);
  if (e != cudaSuccess) return e;
  e = cudaDeviceGetAttribute(&out.max_threads_per_block, cudaDevAttrMaxThreadsPerBlock, device);
  if (e != cudaSuccess) return e;
  int smem = 0;
  e = cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  if (e != cudaSuccess) return e;
  out.max_smem_per_block = smem;
  int per_sm = 0;
  e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block_threads, 0);
  if (e != cudaSuccess) return e;
  out.max_resident_blocks = static_cast<long long>(per_sm) * out.sm_count;
  return cudaSuccess;
}

cudaError_t launch(const void* kernel, const launch_plan& plan, const softmax_args& args,
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
  cudaLaunchAttribute attribute{};
  if (plan.cooperative) {
    attribute.id = cudaLaunchAttributeCooperative;
    attribute.val.cooperative = 1;
    config.attrs = &attribute;
    config.numAttrs = 1;
  }
  softmax_args copy = args;
  void* params[] = {&copy};
  return cudaLaunchKernelExC(&config, kernel, params);
}

}  // namespace cuop::kernels::softmax
