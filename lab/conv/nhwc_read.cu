// Lab probe: how fast the input of a depthwise layer can be read when each block owns a slice
// of the channels (mma reads 64 of each pixel's 1024 bytes on 32x28x28x512). A block reads its
// W-byte slice of a run of pixels of one image (all 784 at W = 64, as mma's blocks; 784 / P
// at wider W, so that there are 512 blocks whatever W, except 1024 blocks at W = 32), 16 bytes a
// load, UNROLL loads in flight a thread, nothing written: the same 25.7 MB each time. Run at the
// occupancy the registers allow and with shared memory padded to two blocks per SM (mma's).
// The same slices are also written (25.7 MB of stores, nothing read) and copied (read and written
// at the same offsets of a second tensor): the memory floor of a kernel that takes mma's slices
// of the input and output and does nothing else. CUDA events after a 256 MB L2 flush, median of 30.
#include <cuda_runtime.h>

#include <cstdio>

#include "probe_timing.hpp"

constexpr int n_images = 32, pixels = 28 * 28, pixel_bytes = 512 * 2;

// Pixel runs a slice is split into: 512 blocks in all (1024 at W = 32).
template <int W>
constexpr int parts = W <= 64 ? 1 : W / 64;

enum mode : int { read_only, write_only, copy };

template <int W, int UNROLL, int MODE>
__global__ void __launch_bounds__(256) slices(const uint4* x, uint4* y, unsigned* sink) {
  constexpr int chunks = W / 16, run_pixels = (pixels + parts<W> - 1) / parts<W>;
  const int slice = static_cast<int>(blockIdx.x) % (pixel_bytes / W),
            part = static_cast<int>(blockIdx.x) / (pixel_bytes / W);
  const int image = static_cast<int>(blockIdx.y), first = part * run_pixels;
  const int count = (first + run_pixels < pixels ? run_pixels : pixels - first) * chunks;
  const long long base = ((static_cast<long long>(image) * pixels + first) * pixel_bytes + slice * W) / 16;
  unsigned acc = 0;
  for (int t0 = static_cast<int>(threadIdx.x); t0 < count; t0 += 256 * UNROLL) {
    uint4 v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const int t = t0 + u * 256;
      const long long at = base + (t / chunks) * (pixel_bytes / 16) + t % chunks;
      v[u] = MODE != write_only && t < count ? x[at] : make_uint4(t, t0, 0, 1);
    }
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const int t = t0 + u * 256;
      if (MODE != read_only && t < count) y[base + (t / chunks) * (pixel_bytes / 16) + t % chunks] = v[u];
      acc ^= v[u].x ^ v[u].w;
    }
  }
  if (MODE == read_only && acc == 0x9e3779b9u) *sink = acc;
}

template <int W, int UNROLL, int MODE = read_only>
void run(const void* x, void* y, const probe::l2_flush& flush) {
  const dim3 grid(pixel_bytes / W * parts<W>, n_images);
  const auto kernel = &slices<W, UNROLL, MODE>;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 92 * 1024);
  const auto* p = static_cast<const uint4*>(x);
  auto* q = static_cast<uint4*>(y);
  const float free_us = probe::median_us([&] { kernel<<<grid, 256>>>(p, q, flush.sink()); }, flush, 30);
  const float two_us = probe::median_us([&] { kernel<<<grid, 256, 92 * 1024>>>(p, q, flush.sink()); }, flush, 30);
  const double mb = double(n_images) * pixels * pixel_bytes / 1e6 * (MODE == copy ? 2 : 1);  // MB per us is TB/s
  std::printf("| %s | %d | %d | %d | %.2f (%.2f TB/s) | %.2f (%.2f TB/s) |%s\n",
              MODE == read_only    ? "read"
              : MODE == write_only ? "write"
                                   : "copy",
              W, UNROLL, grid.x * grid.y, free_us, mb / free_us, two_us, mb / two_us,
              cudaGetLastError() == cudaSuccess ? "" : " ERROR");
}

int main() {
  const probe::l2_flush flush(256ull << 20);
  const std::size_t bytes = static_cast<std::size_t>(n_images) * pixels * pixel_bytes;
  void *x = nullptr, *y = nullptr;
  cudaMalloc(&x, bytes);
  cudaMalloc(&y, bytes);
  cudaMemset(x, 1, bytes);
  std::printf(
      "| access | slice bytes a pixel (W) | loads in flight a thread | blocks | us, free occupancy | us, 2 blocks per "
      "SM |\n");
  std::printf("| --- | ---: | ---: | ---: | ---: | ---: |\n");
  run<32, 8>(x, y, flush);
  run<64, 4>(x, y, flush);
  run<64, 8>(x, y, flush);
  run<128, 8>(x, y, flush);
  run<256, 8>(x, y, flush);
  run<1024, 8>(x, y, flush);
  run<64, 4, write_only>(x, y, flush);
  run<1024, 8, write_only>(x, y, flush);
  run<64, 4, copy>(x, y, flush);
  run<64, 8, copy>(x, y, flush);
  run<1024, 8, copy>(x, y, flush);
  return 0;
}
