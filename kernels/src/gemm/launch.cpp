#include "cuop/kernels/gemm/launch.hpp"

#include "cuop/kernels/common/launch.hpp"
#include "cuop/kernels/gemm/pack.hpp"

namespace cuop::kernels::gemm {

cudaError_t query_limits(int device, device_limits& out) {
  const cudaError_t e = cudaDeviceGetAttribute(&out.sm_count, cudaDevAttrMultiProcessorCount, device);
  if (e != cudaSuccess) return e;
  return common::query_block_limits(device, out.max_threads_per_block, out.max_smem_per_block);
}

cudaError_t launch(const void* kernel, const launch_plan& plan, const gemm_args& args, cudaStream_t stream) {
  gemm_args run = args;
  if (plan.pack.on)
    if (const cudaError_t e = pack_operands(plan.pack, args, run, stream); e != cudaSuccess) return e;
  return common::launch(kernel, dim3(plan.grid_x, plan.grid_y, plan.grid_z), plan.block_x, plan.smem_bytes, stream,
                        run);
}

}  // namespace cuop::kernels::gemm
