#include "cuop/kernels/groupnorm/launch.hpp"

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
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(plan.grid_x, 1, 1);
  config.blockDim = dim3(plan.block_x, 1, 1);
  config.stream = stream;
  cudaLaunchAttribute attribute{};
  if (plan.cluster_x > 1) {
    attribute.id = cudaLaunchAttributeClusterDimension;
    attribute.val.clusterDim.x = plan.cluster_x;
    attribute.val.clusterDim.y = 1;
    attribute.val.clusterDim.z = 1;
    config.attrs = &attribute;
    config.numAttrs = 1;
  }
  groupnorm_args copy = args;
  void* params[] = {&copy};
  return cudaLaunchKernelExC(&config, kernel, params);
}

}  // namespace cuop::kernels::groupnorm
