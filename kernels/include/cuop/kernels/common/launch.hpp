// Launching one of our kernels, whatever the op: the pieces every op's launch.hpp shares.
// CUDA runtime; the nvcc path and the tuner both use it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace cuop::kernels::common {

// The device's threads per block and opt-in shared memory per block.
inline cudaError_t query_block_limits(int device, int& max_threads, long long& max_smem) {
  cudaError_t e = cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerBlock, device);
  if (e != cudaSuccess) return e;
  int smem = 0;
  e = cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  max_smem = smem;
  return e;
}

// The device's compute capability (90 for 9.0) and its count of SMs.
inline cudaError_t query_sm(int device, int& sm, int& sm_count) {
  int major = 0, minor = 0;
  cudaError_t e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  if (e != cudaSuccess) return e;
  e = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
  if (e != cudaSuccess) return e;
  sm = major * 10 + minor;
  return cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device);
}

// The launch attribute of thread-block clusters of cluster_x blocks along x.
inline cudaLaunchAttribute cluster_attribute(unsigned cluster_x) {
  cudaLaunchAttribute a{};
  a.id = cudaLaunchAttributeClusterDimension;
  a.val.clusterDim.x = cluster_x;
  a.val.clusterDim.y = 1;
  a.val.clusterDim.z = 1;
  return a;
}

// How many clusters of cluster_x blocks of `kernel` (block_x threads, smem_bytes of dynamic shared
// memory, whose limit the caller raised first where it needs to) the current device runs at once.
inline cudaError_t max_active_clusters(const void* kernel, unsigned block_x, std::size_t smem_bytes,
                                       unsigned cluster_x, int& out) {
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(cluster_x, 1, 1);
  config.blockDim = dim3(block_x, 1, 1);
  config.dynamicSmemBytes = smem_bytes;
  cudaLaunchAttribute attribute = cluster_attribute(cluster_x);
  config.attrs = &attribute;
  config.numAttrs = 1;
  return cudaOccupancyMaxActiveClusters(&out, kernel, &config);
}

// Launches `kernel` (a __global__ function taking Args... by value, or a cudaKernel_t cast to a
// pointer) on a grid of block_x-thread blocks, in thread-block clusters of cluster_x blocks along
// x when cluster_x > 1; raises its dynamic shared memory limit first when it needs more than the
// default 48 KiB.
template <typename... Args>
cudaError_t launch_clusters(const void* kernel, dim3 grid, unsigned block_x, std::size_t smem_bytes,
                            unsigned cluster_x, cudaStream_t stream, const Args&... args) {
  if (smem_bytes > 48 * 1024) {
    const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               static_cast<int>(smem_bytes));
    if (e != cudaSuccess) return e;
  }
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = dim3(block_x, 1, 1);
  config.dynamicSmemBytes = smem_bytes;
  config.stream = stream;
  cudaLaunchAttribute attribute = cluster_attribute(cluster_x);
  if (cluster_x > 1) {
    config.attrs = &attribute;
    config.numAttrs = 1;
  }
  void* params[] = {const_cast<void*>(static_cast<const void*>(&args))...};
  return cudaLaunchKernelExC(&config, kernel, params);
}

// The same without clusters.
template <typename... Args>
cudaError_t launch(const void* kernel, dim3 grid, unsigned block_x, std::size_t smem_bytes,
                   cudaStream_t stream, const Args&... args) {
  return launch_clusters(kernel, grid, block_x, smem_bytes, 1u, stream, args...);
}

}  // namespace cuop::kernels::common
