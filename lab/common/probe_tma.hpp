// Tensor maps of boxes the library does not make (lab/conv/dw_seg.cu's copy schedules: boxes of
// 16, 32 or 64 channels of any tile): cuTensorMapEncodeTiled from the driver the runtime loaded, and
// an NHWC tensor as a 4-D map. Include after depthwise_layers.hpp (struct layer), once per binary.
#pragma once

#include <cuda.h>
#include <cudaTypedefs.h>

#include <cstdio>

namespace probe {

inline PFN_cuTensorMapEncodeTiled_v12000 encode_fn() {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult found{};
  cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &found);
  return found == cudaDriverEntryPointSuccess ? reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p) : nullptr;
}

// The swizzle whose span is a pixel of `bytes` (32, 64 or 128), none otherwise.
inline CUtensorMapSwizzle swizzle_for(int bytes) {
  return bytes == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
         : bytes == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
         : bytes == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                       : CU_TENSOR_MAP_SWIZZLE_NONE;
}

// The layer's NHWC tensor at `base` as C, W, H, N (innermost first) of 2-byte elements, box
// cb x bw x bh x 1; coordinates outside the tensor read as zeros and are not written.
inline bool encode_nhwc(CUtensorMap* map, void* base, const layer& l, int cb, int bw, int bh, CUtensorMapSwizzle sw) {
  const auto encode = encode_fn();
  if (!encode) {
    std::printf("no cuTensorMapEncodeTiled in this driver\n");
    return false;
  }
  const cuuint64_t dims[4] = {static_cast<cuuint64_t>(l.c), static_cast<cuuint64_t>(l.hw),
                              static_cast<cuuint64_t>(l.hw), static_cast<cuuint64_t>(l.n)};
  const cuuint64_t strides[3] = {dims[0] * 2, dims[0] * dims[1] * 2, dims[0] * dims[1] * dims[2] * 2};
  const cuuint32_t box[4] = {static_cast<cuuint32_t>(cb), static_cast<cuuint32_t>(bw), static_cast<cuuint32_t>(bh), 1};
  const cuuint32_t element_strides[4] = {1, 1, 1, 1};
  const CUresult res =
      encode(map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 4, base, dims, strides, box, element_strides,
             CU_TENSOR_MAP_INTERLEAVE_NONE, sw, CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (res != CUDA_SUCCESS) std::printf("encode failed: %d (box %d x %d x %d)\n", static_cast<int>(res), cb, bw, bh);
  return res == CUDA_SUCCESS;
}

}  // namespace probe
