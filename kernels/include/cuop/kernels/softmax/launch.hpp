// Launching a softmax configuration: one code path for the tuner (kernels loaded from NVRTC
// cubins) and the library's dispatch (kernels compiled by nvcc), so a configuration runs the same
// way when it is measured and when it ships.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "cuop/kernels/softmax/args.cuh"
#include "cuop/kernels/softmax/family.hpp"

namespace cuop::kernels::softmax {

// Device limits for planning `kernel` with `block_threads` threads and `dynamic_smem` bytes of
// dynamic shared memory: compute capability, SM count, per-block limits, the kernel's static
// shared memory and (for cooperative families) the number of co-resident blocks from the
// occupancy calculator (the dynamic limit raised first when static + dynamic bytes pass 48 KiB).
// Leaves
// max_active_clusters at 0 (unknown).
cudaError_t query_limits(int device, const void* kernel, int block_threads,
                         device_limits& out, std::size_t dynamic_smem = 0);

// The same for configuration `c` (its dynamic_smem_bytes counted); for cluster_row also the clusters of c.cluster blocks that can
// be resident (cudaOccupancyMaxActiveClusters; -1 on a device without clusters, below sm_90).
cudaError_t query_limits(int device, const void* kernel, const softmax_config& c,
                         device_limits& out);

// Launches `kernel` (an entry function or a cudaKernel_t cast to const void*) with the plan:
// cooperative and cluster attributes as the plan says (clusters of more than 8 blocks are
// allowed on the kernel first: cudaFuncAttributeNonPortableClusterSizeAllowed).
cudaError_t launch(const void* kernel, const launch_plan& plan, const softmax_args& args,
                   cudaStream_t stream);

}  // namespace cuop::kernels::softmax
