#include "cuop/kernels/conv/launch.hpp"

#include "cuop/kernels/common/launch.hpp"

namespace cuop::kernels::conv {

cudaError_t query_limits(int device, device_limits& out) {
  return common::query_block_limits(device, out.max_threads_per_block, out.max_smem_per_block);
}

cudaError_t launch(const void* kernel, const launch_plan& plan, const conv_args& args,
                   cudaStream_t stream) {
  return common::launch(kernel, dim3(plan.grid_x, plan.grid_y, plan.grid_z), plan.block_x,
                        plan.smem_bytes, args, stream);
}

}  // namespace cuop::kernels::conv
