// Tiled transposes between NCHW and NHWC: each image is a c x hw matrix one way and hw x c the
// other. A block moves a 32 x 32 tile through shared memory, so that both the reads and the writes
// of a warp are runs of consecutive elements.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "cuop/kernels/conv/layout_transpose.hpp"

namespace cuop::kernels::conv {

namespace {

constexpr int tile = 32;
constexpr int rows_per_pass = 8;  // the block is tile x rows_per_pass threads

__device__ inline float to_float(float v) { return v; }
__device__ inline float to_float(__half v) { return __half2float(v); }
__device__ inline float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T>
__device__ inline T from_float(float v);
template <>
__device__ inline float from_float<float>(float v) {
  return v;
}
template <>
__device__ inline __half from_float<__half>(float v) {
  return __float2half_rn(v);
}
template <>
__device__ inline __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}

// Transposes each image's rows x cols matrix (blockIdx.z the image): dst[col][row] = src[row][col],
// or with `accumulate` dst[col][row] = src[row][col] + beta * dst[col][row].
template <typename T, bool accumulate>
__global__ void __launch_bounds__(tile* rows_per_pass)
    transpose_images(const T* __restrict__ src, T* __restrict__ dst, long long rows, long long cols, float beta) {
  __shared__ T staged[tile][tile + 1];  // one column of padding: the column reads hit 32 banks
  const long long image = static_cast<long long>(blockIdx.z) * rows * cols;
  const long long row0 = static_cast<long long>(blockIdx.y) * tile, col0 = static_cast<long long>(blockIdx.x) * tile;
  for (int i = threadIdx.y; i < tile; i += rows_per_pass) {
    const long long row = row0 + i, col = col0 + threadIdx.x;
    if (row < rows && col < cols) staged[i][threadIdx.x] = src[image + row * cols + col];
  }
  __syncthreads();
  for (int i = threadIdx.y; i < tile; i += rows_per_pass) {
    const long long col = col0 + i, row = row0 + threadIdx.x;
    if (row >= rows || col >= cols) continue;
    T* out = dst + image + col * rows + row;
    if constexpr (accumulate) *out = from_float<T>(to_float(staged[threadIdx.x][i]) + beta * to_float(*out));
    else *out = staged[threadIdx.x][i];
  }
}

template <typename T>
cudaError_t transpose(const void* src, void* dst, int n, long long rows, long long cols, float beta,
                      cudaStream_t stream) {
  if (n < 1 || rows < 1 || cols < 1) return cudaErrorInvalidValue;
  const long long gx = (cols + tile - 1) / tile, gy = (rows + tile - 1) / tile;
  if (gx > 0x7fffffffLL || gy > 65535 || n > 65535) return cudaErrorInvalidConfiguration;
  const dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(gy), static_cast<unsigned>(n));
  const dim3 block(tile, rows_per_pass);
  const auto* s = static_cast<const T*>(src);
  auto* d = static_cast<T*>(dst);
  if (beta != 0.f) transpose_images<T, true><<<grid, block, 0, stream>>>(s, d, rows, cols, beta);
  else transpose_images<T, false><<<grid, block, 0, stream>>>(s, d, rows, cols, beta);
  return cudaGetLastError();
}

cudaError_t transpose(dtype t, const void* src, void* dst, int n, long long rows, long long cols, float beta,
                      cudaStream_t stream) {
  switch (t) {
    case dtype::f32: return transpose<float>(src, dst, n, rows, cols, beta, stream);
    case dtype::f16: return transpose<__half>(src, dst, n, rows, cols, beta, stream);
    case dtype::bf16: return transpose<__nv_bfloat16>(src, dst, n, rows, cols, beta, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t nchw_to_nhwc(dtype t, const void* src, void* dst, int n, int c, long long hw, cudaStream_t stream) {
  return transpose(t, src, dst, n, c, hw, 0.f, stream);
}

cudaError_t nhwc_to_nchw(dtype t, const void* src, void* dst, int n, int c, long long hw, float beta,
                         cudaStream_t stream) {
  return transpose(t, src, dst, n, hw, c, beta, stream);
}

}  // namespace cuop::kernels::conv
