#include "cuop/kernels/softmax/launch.hpp"

#include "cuop/kernels/common/launch.hpp"

namespace cuop::kernels::softmax {

namespace {

constexpr unsigned max_portable_cluster = 8;

// Clusters of more than 8 blocks need the kernel's opt-in, before the occupancy query and the
// launch alike.
cudaError_t allow_cluster(const void* kernel, unsigned cluster) {
  if (cluster <= max_portable_cluster) return cudaSuccess;
  return cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
}

}  // namespace

cudaError_t query_limits(int device, const void* kernel, int block_threads, device_limits& out,
                         std::size_t dynamic_smem) {
  cudaError_t e = common::query_sm(device, out.sm, out.sm_count);
  if (e != cudaSuccess) return e;
  e = cudaDeviceGetAttribute(&out.max_threads_per_block, cudaDevAttrMaxThreadsPerBlock, device);
  if (e != cudaSuccess) return e;
  int smem = 0;
  e = cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  if (e != cudaSuccess) return e;
  out.max_smem_per_block = smem;
  cudaFuncAttributes attributes{};
  e = cudaFuncGetAttributes(&attributes, kernel);
  if (e != cudaSuccess) return e;
  out.static_smem = static_cast<long long>(attributes.sharedSizeBytes);
  // Over the device's limit plan_launch rejects the configuration; else the kernel must allow
  // the bytes before the occupancy calculator counts them (launch sets the same attribute).
  // The default allowance is 48 KiB for static and dynamic bytes together.
  if (dynamic_smem + attributes.sharedSizeBytes > static_cast<std::size_t>(smem)) dynamic_smem = 0;
  if (needs_smem_opt_in(static_cast<long long>(dynamic_smem), out.static_smem)) {
    e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(dynamic_smem));
    if (e != cudaSuccess) return e;
  }
  int per_sm = 0;
  e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block_threads, dynamic_smem);
  if (e != cudaSuccess) return e;
  out.max_resident_blocks = static_cast<long long>(per_sm) * out.sm_count;
  return cudaSuccess;
}

cudaError_t query_limits(int device, const void* kernel, const softmax_config& c, device_limits& out) {
  const int threads = threads_per_block(c);
  cudaError_t e = query_limits(device, kernel, threads, out, static_cast<std::size_t>(dynamic_smem_bytes(c)));
  if (e != cudaSuccess || c.fam != family::cluster_row) return e;
  if (out.sm < min_sm(c.fam) || c.cluster < 1) {  // plan_launch says why
    out.max_active_clusters = -1;
    return cudaSuccess;
  }
  const auto cluster = static_cast<unsigned>(c.cluster);
  e = allow_cluster(kernel, cluster);
  if (e != cudaSuccess) return e;
  int clusters = 0;
  e = common::max_active_clusters(kernel, static_cast<unsigned>(threads), 0, cluster, clusters);
  if (e != cudaSuccess) return e;
  out.max_active_clusters = clusters > 0 ? clusters : -1;
  return cudaSuccess;
}

cudaError_t launch(const void* kernel, const launch_plan& plan, const softmax_args& args, cudaStream_t stream) {
  if (plan.smem_opt_in) {
    const cudaError_t e =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(plan.smem_bytes));
    if (e != cudaSuccess) return e;
  }
  if (const cudaError_t e = allow_cluster(kernel, plan.cluster_x); e != cudaSuccess) return e;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(plan.grid_x, plan.grid_y, plan.grid_z);
  config.blockDim = dim3(plan.block_x, 1, 1);
  config.dynamicSmemBytes = plan.smem_bytes;
  config.stream = stream;
  cudaLaunchAttribute attributes[2]{};
  unsigned count = 0;
  if (plan.cooperative) {
    attributes[count].id = cudaLaunchAttributeCooperative;
    attributes[count].val.cooperative = 1;
    ++count;
  }
  if (plan.cluster_x > 1) attributes[count++] = common::cluster_attribute(plan.cluster_x);
  config.attrs = count > 0 ? attributes : nullptr;
  config.numAttrs = count;
  softmax_args copy = args;
  void* params[] = {&copy};
  return cudaLaunchKernelExC(&config, kernel, params);
}

}  // namespace cuop::kernels::softmax
