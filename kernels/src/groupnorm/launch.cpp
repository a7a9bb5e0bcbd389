#include "cuop/kernels/groupnorm/launch.hpp"

#include "cuop/kernels/common/launch.hpp"

namespace cuop::kernels::groupnorm {

namespace {

constexpr unsigned max_portable_cluster = 8;

}  // namespace

cudaError_t launch(const void* kernel, const launch_plan& plan, const groupnorm_args& args, cudaStream_t stream) {
  // Clusters of more than 8 blocks need the kernel's opt-in.
  if (plan.cluster_x > max_portable_cluster) {
    const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    if (e != cudaSuccess) return e;
  }
  return common::launch_clusters(kernel, dim3(plan.grid_x, 1, 1), plan.block_x, 0, plan.cluster_x, stream, args);
}

}  // namespace cuop::kernels::groupnorm
