#include "cuop/kernels/gemm/launch.hpp"

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>

#include "cuop/kernels/common/launch.hpp"
#include "cuop/kernels/common/tensor_map.hpp"
#include "cuop/kernels/gemm/pack.hpp"
#include "cuop/kernels/gemm/wgmma_geometry.hpp"

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

namespace {

static_assert(sizeof(CUtensorMap) == sizeof(gemm_tma::map_a) && sizeof(CUtensorMap) == sizeof(gemm_tma::map_b) &&
                  alignof(gemm_tma) >= alignof(CUtensorMap) && offsetof(gemm_tma, map_b) % alignof(CUtensorMap) == 0,
              "gemm_tma holds two CUtensorMaps");

// Rows x cols (cols contiguous, `ld` elements apart) of 16-bit elements as a 2-D map, box
// 64 x box_rows with 128-byte swizzle; coordinates outside it read as zeros.
bool encode_k_major(CUtensorMap& map, const void* base, int rows, int cols, long long ld, int box_rows) {
  const auto encode = common::tensor_map_encoder();
  if (!encode) return false;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(ld) * 2};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(wgmma_geometry::block_k), static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t element_strides[2] = {1, 1};
  return encode(&map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, const_cast<void*>(base), dims, strides, box, element_strides,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

bool aligned16(const void* p, long long ld) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && ld % 8 == 0; }

}  // namespace

bool tma_operands_ok(const gemm_config& c, const gemm_args& args) {
  return c.b == b_layout::col && aligned16(args.a, args.lda) && aligned16(args.b, args.ldb);
}

bool make_tma_maps(const gemm_config& c, const gemm_args& args, gemm_tma& out) {
  std::memset(&out, 0, sizeof out);
  if (!tma_operands_ok(c, args)) return false;
  CUtensorMap map_a, map_b;
  // With clusters, each block of a cluster copies its part of the B tile for all of them.
  const int b_rows = c.cluster > 1 ? c.block_n / c.cluster : c.block_n;
  if (!encode_k_major(map_a, args.a, args.m, args.k, args.lda, c.block_m) ||
      !encode_k_major(map_b, args.b, args.n, args.k, args.ldb, b_rows))
    return false;
  std::memcpy(out.map_a, &map_a, sizeof map_a);
  std::memcpy(out.map_b, &map_b, sizeof map_b);
  return true;
}

namespace {

// How many clusters of the planned kernel the current device runs at once (0: not known). The
// plan's persistent grid assumes half the SMs; where the GPCs leave some SMs without a partner,
// fewer fit, and the clusters past them would run as a second wave. Asked once per device,
// kernel and shared memory size.
unsigned resident_clusters(const void* kernel, const launch_plan& plan) {
  static std::mutex mutex;
  static std::map<std::tuple<int, const void*, std::size_t, unsigned>, unsigned> known;
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return 0;
  const auto key = std::make_tuple(device, kernel, plan.smem_bytes, plan.cluster_x);
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto it = known.find(key); it != known.end()) return it->second;
  if (plan.smem_bytes > 48 * 1024 && cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                          static_cast<int>(plan.smem_bytes)) != cudaSuccess) {
    (void)cudaGetLastError();  // launch_clusters sets it again and reports the failure
    return 0;
  }
  int clusters = 0;
  if (common::max_active_clusters(kernel, plan.block_x, plan.smem_bytes, plan.cluster_x, clusters) != cudaSuccess) {
    (void)cudaGetLastError();  // a cap not known is no cap, and no error left for the caller's next check
    clusters = 0;
  }
  if (clusters < 0) clusters = 0;
  known[key] = static_cast<unsigned>(clusters);
  return static_cast<unsigned>(clusters);
}

}  // namespace

cudaError_t launch(const gemm_config& c, const void* kernel, const launch_plan& plan, const gemm_args& args,
                   cudaStream_t stream) {
  if (c.fam != family::wgmma) return launch(kernel, plan, args, stream);
  gemm_tma maps;
  if (!make_tma_maps(c, args, maps)) return cudaErrorInvalidValue;
  // A persistent grid: any number of whole clusters computes every tile.
  unsigned grid_x = plan.grid_x;
  if (plan.cluster_x > 1)
    if (const unsigned most = resident_clusters(kernel, plan); most > 0 && grid_x > most * plan.cluster_x)
      grid_x = most * plan.cluster_x;
  return common::launch_clusters(kernel, dim3(grid_x, plan.grid_y, plan.grid_z), plan.block_x, plan.smem_bytes,
                                 plan.cluster_x, stream, args, maps);
}

}  // namespace cuop::kernels::gemm
