#include "cuop/kernels/norm/launch.hpp"

#include "cuop/kernels/common/launch.hpp"

namespace cuop::kernels::norm {

cudaError_t query_limits(int device, device_limits& out) {
  cudaError_t e = common::query_sm(device, out.sm, out.sm_count);
  if (e != cudaSuccess) return e;
  return cudaDeviceGetAttribute(&out.max_threads_per_block, cudaDevAttrMaxThreadsPerBlock, device);
}

cudaError_t launch(const void* kernel, const launch_plan& plan, const norm_args& args, cudaStream_t stream) {
  return common::launch(kernel, dim3(plan.grid_x, 1, 1), plan.block_x, 0, stream, args);
}

}  // namespace cuop::kernels::norm
