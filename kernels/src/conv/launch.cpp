#include "cuop/kernels/conv/launch.hpp"

#include <cuda.h>
#include <cudaTypedefs.h>

#include <cstdint>
#include <cstring>

#include "cuop/kernels/common/launch.hpp"

namespace cuop::kernels::conv {

namespace {

static_assert(sizeof(CUtensorMap) == sizeof(tma_input::map) && alignof(tma_input) >= alignof(CUtensorMap),
              "tma_input holds a CUtensorMap");

// cuTensorMapEncodeTiled from the driver the runtime loaded, looked up once.
PFN_cuTensorMapEncodeTiled_v12000 encode_tiled() {
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &found) !=
            cudaSuccess ||
        found != cudaDriverEntryPointSuccess)
      p = nullptr;
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}

}  // namespace

cudaError_t query_limits(int device, device_limits& out) {
  if (cudaError_t e = common::query_block_limits(device, out.max_threads_per_block, out.max_smem_per_block);
      e != cudaSuccess)
    return e;
  int major = 0, minor = 0;
  if (cudaError_t e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device); e != cudaSuccess)
    return e;
  if (cudaError_t e = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device); e != cudaSuccess)
    return e;
  out.cc = 10 * major + minor;
  return cudaSuccess;
}

void make_tma_input(const depthwise_config& c, const conv_args& args, tma_input& out) {
  std::memset(&out, 0, sizeof out);
  if (c.stage != 4 || args.c % 8 != 0 || reinterpret_cast<std::uintptr_t>(args.x) % 16 != 0 ||
      reinterpret_cast<std::uintptr_t>(args.y) % 16 != 0)
    return;
  const auto encode = encode_tiled();
  if (!encode) return;
  // NHWC x as a 4-D tensor of 2-byte elements, innermost first: C, W, H, N. Its box is the
  // block's channels of the tile's patch; coordinates outside the tensor read as zeros.
  const auto elem = static_cast<cuuint64_t>(size_of(c.t));
  const cuuint64_t dims[4] = {static_cast<cuuint64_t>(args.c), static_cast<cuuint64_t>(args.w_),
                              static_cast<cuuint64_t>(args.h), static_cast<cuuint64_t>(args.n)};
  const cuuint64_t strides[3] = {dims[0] * elem, dims[0] * dims[1] * elem, dims[0] * dims[1] * dims[2] * elem};
  const cuuint32_t box[4] = {static_cast<cuuint32_t>(c.block_c), static_cast<cuuint32_t>(c.tile_w + c.s - 1),
                             static_cast<cuuint32_t>(c.tile_h + c.r - 1), 1};
  const cuuint32_t element_strides[4] = {1, 1, 1, 1};
  CUtensorMap map;
  if (encode(&map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 4, const_cast<void*>(args.x), dims, strides, box,
             element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
             CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS)
    return;
  std::memcpy(out.map, &map, sizeof map);
  out.valid = 1;
}

cudaError_t launch(const void* kernel, const launch_plan& plan, const conv_args& args,
                   cudaStream_t stream) {
  return common::launch(kernel, dim3(plan.grid_x, plan.grid_y, plan.grid_z), plan.block_x,
                        plan.smem_bytes, stream, args);
}

cudaError_t launch(const void* kernel, const launch_plan& plan, const conv_args& args, const tma_input& in,
                   cudaStream_t stream) {
  return common::launch(kernel, dim3(plan.grid_x, plan.grid_y, plan.grid_z), plan.block_x,
                        plan.smem_bytes, stream, args, in);
}

cudaError_t launch(const depthwise_config& c, const void* kernel, const launch_plan& plan, const conv_args& args,
                   cudaStream_t stream) {
  if (c.stage != 4) return launch(kernel, plan, args, stream);
  tma_input in;
  make_tma_input(c, args, in);
  return launch(kernel, plan, args, in, stream);
}

}  // namespace cuop::kernels::conv
