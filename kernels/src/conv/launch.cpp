#include "cuop/kernels/conv/launch.hpp"

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "cuop/kernels/common/launch.hpp"
#include "cuop/kernels/common/tensor_map.hpp"
#include "cuop/kernels/conv/layout_transpose.hpp"

namespace cuop::kernels::conv {

namespace {

static_assert(sizeof(CUtensorMap) == sizeof(tma_input::map) && sizeof(CUtensorMap) == sizeof(tma_input::map_y) &&
                  alignof(tma_input) >= alignof(CUtensorMap) && offsetof(tma_input, map_y) % alignof(CUtensorMap) == 0,
              "tma_input holds two CUtensorMaps");

}  // namespace

cudaError_t query_limits(int device, device_limits& out) {
  if (cudaError_t e = common::query_block_limits(device, out.max_threads_per_block, out.max_smem_per_block);
      e != cudaSuccess)
    return e;
  if (cudaError_t e = common::query_sm(device, out.cc, out.sms); e != cudaSuccess) return e;
  int smem_per_sm = 0;
  if (cudaError_t e = cudaDeviceGetAttribute(&smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device);
      e != cudaSuccess)
    return e;
  out.smem_per_sm = smem_per_sm;
  return cudaSuccess;
}

namespace {

// An NHWC tensor of `c` x `w` x `h` x `n` 2-byte elements as a 4-D map (innermost first: C, W, H, N),
// box bc x bw x bh x 1; coordinates outside it read as zeros and are not written.
bool encode_nhwc(CUtensorMap& map, const void* base, int c, int w, int h, int n, int bc, int bw, int bh,
                 CUtensorMapSwizzle swizzle) {
  const auto encode = common::tensor_map_encoder();
  if (!encode) return false;
  const cuuint64_t dims[4] = {static_cast<cuuint64_t>(c), static_cast<cuuint64_t>(w), static_cast<cuuint64_t>(h),
                              static_cast<cuuint64_t>(n)};
  const cuuint64_t strides[3] = {dims[0] * 2, dims[0] * dims[1] * 2, dims[0] * dims[1] * dims[2] * 2};
  const cuuint32_t box[4] = {static_cast<cuuint32_t>(bc), static_cast<cuuint32_t>(bw), static_cast<cuuint32_t>(bh), 1};
  const cuuint32_t element_strides[4] = {1, 1, 1, 1};
  return encode(&map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 4, const_cast<void*>(base), dims, strides, box, element_strides,
                CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// Whether TMA can move these tensors: C a multiple of 8 (16-byte pixel strides), x and y 16-byte
// aligned.
bool tma_tensors_ok(const conv_args& args) {
  return args.c % 8 == 0 && reinterpret_cast<std::uintptr_t>(args.x) % 16 == 0 &&
         reinterpret_cast<std::uintptr_t>(args.y) % 16 == 0;
}

}  // namespace

void make_tma_input(const depthwise_config& c, const conv_args& args, tma_input& out) {
  std::memset(&out, 0, sizeof out);
  if (!uses_tma(c.algo) || !tma_tensors_ok(args) || size_of(c.t) != 2) return;
  CUtensorMap map;
  if (c.algo == depthwise_algo::mma_tma) {
    // Its box is the block's channels of the tile's patch.
    if (!encode_nhwc(map, args.x, args.c, args.w_, args.h, args.n, c.block_c, c.tile_w + c.s - 1, c.tile_h + c.r - 1,
                     CU_TENSOR_MAP_SWIZZLE_NONE))
      return;
    std::memcpy(out.map, &map, sizeof map);
  } else {
    // mma_seg (depthwise_seg.cuh): block_c channels of (tile_h + r - 1) x (tile_w + 7) input pixels,
    // and of tile_h x tile_w output pixels, both swizzled by a pixel's bytes (32 or 64).
    CUtensorMap map_y;
    const auto swizzle = c.block_c == 32 ? CU_TENSOR_MAP_SWIZZLE_64B : CU_TENSOR_MAP_SWIZZLE_32B;
    if (!encode_nhwc(map, args.x, args.c, args.w_, args.h, args.n, c.block_c, c.tile_w + 7, c.tile_h + c.r - 1,
                     swizzle) ||
        !encode_nhwc(map_y, args.y, args.k, args.q, args.p, args.n, c.block_c, c.tile_w, c.tile_h, swizzle))
      return;
    std::memcpy(out.map, &map, sizeof map);
    std::memcpy(out.map_y, &map_y, sizeof map_y);
  }
  out.valid = 1;
}

cudaError_t launch(const void* kernel, const launch_plan& plan, const conv_args& args, cudaStream_t stream) {
  return common::launch(kernel, dim3(plan.grid_x, plan.grid_y, plan.grid_z), plan.block_x, plan.smem_bytes, stream,
                        args);
}

cudaError_t launch(const void* kernel, const launch_plan& plan, const conv_args& args, const tma_input& in,
                   cudaStream_t stream) {
  return common::launch(kernel, dim3(plan.grid_x, plan.grid_y, plan.grid_z), plan.block_x, plan.smem_bytes, stream,
                        args, in);
}

cudaError_t launch(const depthwise_config& c, const void* kernel, const launch_plan& plan, const conv_args& args,
                   cudaStream_t stream) {
  if (!uses_tma(c.algo)) return launch(kernel, plan, args, stream);
  tma_input in;
  make_tma_input(c, args, in);
  // mma_seg has no path without TMA (depthwise_seg.cuh): refused here, not started.
  if (c.algo == depthwise_algo::mma_seg && !in.valid) return cudaErrorInvalidValue;
  return launch(kernel, plan, args, in, stream);
}

cudaError_t launch(const depthwise_config& c, const void* kernel, const launch_plan& plan, const conv_args& args,
                   void* workspace, cudaStream_t stream) {
  if (!c.via_nhwc) return launch(c, kernel, plan, args, stream);
  if (workspace == nullptr) return cudaErrorInvalidValue;
  const conv_shape x_shape{.n = args.n, .c = args.c, .h = args.h, .w = args.w_};  // what the offset reads
  auto* x_nhwc = static_cast<unsigned char*>(workspace);
  auto* y_nhwc = x_nhwc + workspace_y_offset(c, x_shape);
  if (auto e = nchw_to_nhwc(c.t, args.x, x_nhwc, args.n, args.c, 1LL * args.h * args.w_, stream); e != cudaSuccess)
    return e;
  conv_args inner = args;
  inner.x = x_nhwc;
  inner.y = y_nhwc;
  const long long pixels_out = 1LL * args.p * args.q;
  // With beta, the kernel reads y too: given as NHWC, so that y is rounded once, as by the kernel
  // on an NHWC problem.
  if (args.beta != 0.f)
    if (auto e = nchw_to_nhwc(c.t, args.y, y_nhwc, args.n, args.k, pixels_out, stream); e != cudaSuccess) return e;
  if (auto e = launch(kernel_config(c), kernel, plan, inner, stream); e != cudaSuccess) return e;
  return nhwc_to_nchw(c.t, y_nhwc, args.y, args.n, args.k, pixels_out, stream);
}

}  // namespace cuop::kernels::conv
