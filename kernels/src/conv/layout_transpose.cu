// Tiled transposes between NCHW and NHWC: each image is a c x hw matrix one way and hw x c the
// other. A block moves a 32 x 32 tile through shared memory, so that both the reads and the writes
// of a warp are runs of consecutive elements. The elements are moved as bits (2 or 4 bytes).
#include "cuop/kernels/conv/layout_transpose.hpp"

#include <cstdint>

#include "cuop/kernels/conv/family.hpp"  // via_nhwc_max_rows: the y dimension of the grid

namespace cuop::kernels::conv {

namespace {

constexpr int tile = 32;
constexpr int rows_per_pass = 8;  // the block is tile x rows_per_pass threads

// Transposes each image's rows x cols matrix (blockIdx.z the image): dst[col][row] = src[row][col].
template <typename T>
__global__ void __launch_bounds__(tile* rows_per_pass)
    transpose_images(const T* __restrict__ src, T* __restrict__ dst, long long rows, long long cols) {
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
    if (row < rows && col < cols) dst[image + col * rows + row] = staged[threadIdx.x][i];
  }
}

template <typename T>
cudaError_t transpose(const void* src, void* dst, int n, long long rows, long long cols, cudaStream_t stream) {
  if (n < 1 || rows < 1 || cols < 1) return cudaErrorInvalidValue;
  const long long gx = (cols + tile - 1) / tile, gy = (rows + tile - 1) / tile;
  if (gx > 0x7fffffffLL || rows > via_nhwc_max_rows || n > 65535) return cudaErrorInvalidConfiguration;
  const dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(gy), static_cast<unsigned>(n));
  transpose_images<T>
      <<<grid, dim3(tile, rows_per_pass), 0, stream>>>(static_cast<const T*>(src), static_cast<T*>(dst), rows, cols);
  return cudaGetLastError();
}

cudaError_t transpose(dtype t, const void* src, void* dst, int n, long long rows, long long cols, cudaStream_t stream) {
  if (size_of(t) == 4) return transpose<std::uint32_t>(src, dst, n, rows, cols, stream);
  if (size_of(t) == 2) return transpose<std::uint16_t>(src, dst, n, rows, cols, stream);
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t nchw_to_nhwc(dtype t, const void* src, void* dst, int n, int c, long long hw, cudaStream_t stream) {
  return transpose(t, src, dst, n, c, hw, stream);
}

cudaError_t nhwc_to_nchw(dtype t, const void* src, void* dst, int n, int c, long long hw, cudaStream_t stream) {
  return transpose(t, src, dst, n, hw, c, stream);
}

}  // namespace cuop::kernels::conv
