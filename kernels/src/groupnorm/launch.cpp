#include "cuop/kernels/groupnorm/launch.hpp"

#include "cuop/kernels/common/launch.hpp"

namespace cuop::kernels::groupnorm {

cudaError_t launch(const void* kernel, const launch_plan& plan, const groupnorm_args& args, cudaStream_t stream) {
  return common::launch(kernel, dim3(plan.grid_x, 1, 1), plan.block_x, 0, stream, args);
}

}  // namespace cuop::kernels::groupnorm
