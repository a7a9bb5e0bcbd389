// Lab probe of the mma family's operand packing (kernels/src/gemm/pack.cu): times, with CUDA
// events after a 240 MB read flush, the pack launch alone, the kernel alone on packed operands,
// the whole pack: 1 launch, and a second packing kernel (one launch per operand, one block row per
// packed row, 32-bit index math) against which the library's is judged. Prints one line per shape.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "cuop/kernels/gemm/family.hpp"
#include "cuop/kernels/gemm/launch.hpp"
#include "cuop/kernels/gemm/mma.cuh"
#include "cuop/kernels/gemm/pack.hpp"
#include "probe_timing.hpp"

namespace kg = cuop::kernels::gemm;

template <typename K>
__global__ void __launch_bounds__(K::block_threads) entry(kg::gemm_args a) {
  K::run(a);
}

// Reference packing kernel: grid (chunks of a row / 256, rows), one operand per launch.
__global__ void pack_rows(const unsigned short* src, long long ld, int rows, int cols, unsigned short* dst,
                          int dst_cols) {
  const int c0 = (blockIdx.x * blockDim.x + threadIdx.x) * 8;
  const int r = blockIdx.y;
  if (c0 >= dst_cols) return;
  unsigned w[4] = {0, 0, 0, 0};
  if (r < rows)
    for (int i = 0; i < 8; ++i)
      if (c0 + i < cols) w[i / 2] |= static_cast<unsigned>(__ldg(src + r * ld + c0 + i)) << (16 * (i % 2));
  reinterpret_cast<uint4*>(dst + static_cast<long long>(r) * dst_cols)[c0 / 8] = make_uint4(w[0], w[1], w[2], w[3]);
}

// 20 samples after 5 discarded.
template <typename F>
float median_us(F&& f, const probe::l2_flush& flush) {
  return probe::median_us(f, flush, 20, 5);
}

template <typename K>
void run(int m, int n, int k, kg::gemm_config c, const probe::l2_flush& flush) {
  kg::device_limits dev;
  kg::query_limits(0, dev);
  kg::launch_plan plan;
  c.pack = 1;
  if (auto why = kg::plan_launch(c, m, n, k, dev, plan); !why.empty()) {
    std::printf("plan: %s\n", why.c_str());
    return;
  }
  void *a, *b, *d, *ws;
  cudaMalloc(&a, 2ll * m * k);
  cudaMalloc(&b, 2ll * n * k);
  cudaMalloc(&d, 2ll * m * n);
  cudaMalloc(&ws, plan.workspace_bytes);
  cudaMemset(a, 0x3c, 2ll * m * k);
  cudaMemset(b, 0x3c, 2ll * n * k);
  cudaMemset(ws, 0, plan.workspace_bytes);
  const kg::gemm_args args{a, b, nullptr, d, m, n, k, k, k, n, n, 1.f, 0.f, ws};
  const void* kern = reinterpret_cast<const void*>(&entry<K>);
  kg::gemm_args packed;
  const float pack = median_us([&] { kg::pack_operands(plan.pack, args, packed, nullptr); }, flush);
  kg::launch_plan bare = plan;
  bare.pack.on = false;
  const float gemm = median_us([&] { kg::launch(kern, bare, packed, nullptr); }, flush);
  const float both = median_us([&] { kg::launch(kern, plan, args, nullptr); }, flush);
  auto* wsb = static_cast<unsigned char*>(ws);
  const float ref = median_us(
      [&] {
        pack_rows<<<dim3((plan.pack.k / 8 + 255) / 256, m), 256>>>(
            static_cast<const unsigned short*>(a), k, m, k, reinterpret_cast<unsigned short*>(wsb + plan.pack.a_offset),
            plan.pack.k);
        pack_rows<<<dim3((plan.pack.k / 8 + 255) / 256, n), 256>>>(
            static_cast<const unsigned short*>(b), k, n, k, reinterpret_cast<unsigned short*>(wsb + plan.pack.b_offset),
            plan.pack.k);
      },
      flush);
  const double bytes = 2.0 * 2.0 * (double(m) + n) * k;  // read + write
  std::printf(
      "%dx%dx%d %s: pack %.1f us (%.0f GB/s), kernel on packed %.1f us, pack+kernel %.1f us, "
      "reference pack (element loads, 2 launches) %.1f us (%.0f GB/s); err %s\n",
      m, n, k, kg::instance_name(c).c_str(), pack, bytes / pack / 1e3, gemm, both, ref, bytes / ref / 1e3,
      cudaGetErrorString(cudaDeviceSynchronize()));
  cudaFree(a);
  cudaFree(b);
  cudaFree(d);
  cudaFree(ws);
}

kg::gemm_config cfg(int bm, int bn, int bk, int wm, int wn, int s, int g, int sk) {
  kg::gemm_config c;
  c.fam = kg::family::mma;
  c.in = cuop::dtype::bf16;
  c.out = cuop::dtype::bf16;
  c.b = kg::b_layout::col;
  c.block_m = bm;
  c.block_n = bn;
  c.block_k = bk;
  c.warp_m = wm;
  c.warp_n = wn;
  c.stages = s;
  c.group_m = g;
  c.split_k = sk;
  return c;
}

int main() {
  const probe::l2_flush flush(240ull << 20);
  using bf = __nv_bfloat16;
  run<kg::mma<bf, bf, true, 64, 32, 64, 32, 16, 16, 1, 2>>(127, 1031, 4093, cfg(64, 32, 64, 32, 16, 16, 1, 2), flush);
  run<kg::mma<bf, bf, true, 64, 32, 64, 32, 16, 16, 1, 2>>(128, 1024, 4096, cfg(64, 32, 64, 32, 16, 16, 1, 2), flush);
  run<kg::mma<bf, bf, true, 256, 128, 32, 64, 64, 4, 8, 1>>(4097, 4097, 4097, cfg(256, 128, 32, 64, 64, 4, 8, 1),
                                                            flush);
  return 0;
}
