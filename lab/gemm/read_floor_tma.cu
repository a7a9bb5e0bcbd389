// Lab probe: is a TMA bulk-copy stream (cp.async.bulk, global -> shared, completed on an
// mbarrier, one issuing thread per block) a faster way to read a decode GEMM's weights than the
// 16-byte-load streams behind examples/gemm_bench's read floor (cuop::reference::read_stream)? And
// how much of a single launch's time is the launch itself? For the weight sizes of the decode
// shapes of configs/gemm.yaml it times, as gemm_bench does (L2 flushed by a read, CUDA events
// around one launch, median of 15), an empty kernel, the fastest read_stream shape and the fastest
// bulk-copy stream (1 or 2 blocks per SM, 8 to 32 KiB chunks, 2 to 8 in flight per block).
// The mbarriers are the library's (common/tma.cuh); the 1-D bulk copy has no library counterpart.
// Usage: read_floor_tma. The results page is docs/gemm-h200.md.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "cuop/kernels/common/tma.cuh"
#include "cuop/reference/memory.hpp"
#include "probe_timing.hpp"

namespace ref = cuop::reference;
namespace cm = cuop::kernels::common;

__global__ void empty_kernel() {}

__device__ __forceinline__ unsigned smem_u32(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// Block b reads its contiguous slice of `bytes` in `chunk`-byte bulk copies, `stages` in flight.
__global__ void bulk_stream(const unsigned char* data, unsigned long long bytes, int chunk, int stages,
                            unsigned* sink) {
  extern __shared__ __align__(128) unsigned char smem[];
  unsigned long long* bars = reinterpret_cast<unsigned long long*>(smem + static_cast<size_t>(stages) * chunk);
  if (threadIdx.x != 0) return;
  for (int s = 0; s < stages; ++s) cm::mbarrier_init(smem_u32(bars + s));
  cm::mbarrier_init_fence();
  const unsigned long long per = (bytes / gridDim.x + chunk - 1) / chunk * chunk;
  const unsigned long long start = blockIdx.x * per;
  const unsigned long long end = start + per < bytes ? start + per : bytes;
  if (start >= end) return;
  const long long n = static_cast<long long>((end - start + chunk - 1) / chunk);
  auto issue = [&](long long i) {
    const int s = static_cast<int>(i % stages);
    const unsigned long long off = start + static_cast<unsigned long long>(i) * chunk;
    const unsigned size = static_cast<unsigned>(end - off < static_cast<unsigned long long>(chunk) ? end - off : chunk);
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bars + s)), "r"(size)
                 : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     smem_u32(smem + static_cast<size_t>(s) * chunk)),
                 "l"(data + off), "r"(size), "r"(smem_u32(bars + s))
                 : "memory");
  };
  for (long long i = 0; i < stages && i < n; ++i) issue(i);
  unsigned acc = 0;
  for (long long i = 0; i < n; ++i) {
    const int s = static_cast<int>(i % stages);
    const unsigned parity = static_cast<unsigned>((i / stages) & 1);
    cm::mbarrier_wait(smem_u32(bars + s), parity);
    acc ^= *reinterpret_cast<const volatile unsigned*>(smem + static_cast<size_t>(s) * chunk);
    if (i + stages < n) issue(i + stages);
  }
  if (acc == 0x9e3779b9u) *sink = acc;
}

int main() {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const std::size_t max_bytes = 28672ull * 8192 * 2;
  const probe::l2_flush flush(240ull << 20);
  unsigned* sink = flush.sink();
  void* data = nullptr;
  cudaMalloc(&data, max_bytes);
  cudaMemset(data, 3, max_bytes);
  cudaFuncSetAttribute(bulk_stream, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024);
  std::printf(
      "| weights (n x k bf16) | MB | empty kernel us | 16-byte-load stream us (shape) | bulk-copy stream us (shape) "
      "|\n");
  std::printf("| --- | ---: | ---: | ---: | ---: |\n");
  const int nk[][2] = {{1024, 4096}, {4096, 4096}, {6144, 4096}, {14336, 4096}, {8192, 8192}, {28672, 8192}};
  for (const auto& p : nk) {
    const std::size_t bytes = static_cast<std::size_t>(p[0]) * p[1] * 2;
    const float empty = probe::median_us([&] { empty_kernel<<<sms, 256>>>(); }, flush, 15);
    float best_ldg = 1e30f;
    std::string ldg_name;
    for (const auto& shape : ref::read_shapes()) {
      const float us = probe::median_us([&] { ref::read_stream(data, bytes, sink, shape, nullptr); }, flush, 15);
      if (us < best_ldg) best_ldg = us, ldg_name = ref::read_shape_name(shape);
    }
    float best_bulk = 1e30f;
    std::string bulk_name;
    for (int bps : {1, 2})
      for (int chunk : {8192, 16384, 32768})
        for (int stages : {2, 4, 8}) {
          const std::size_t smem = static_cast<std::size_t>(stages) * chunk + 8 * stages;
          if (smem * bps > 227 * 1024) continue;
          const float us = probe::median_us(
              [&] {
                bulk_stream<<<sms * bps, 32, smem>>>(static_cast<const unsigned char*>(data), bytes, chunk, stages,
                                                     sink);
              },
              flush, 15);
          if (us < best_bulk)
            best_bulk = us, bulk_name = "b" + std::to_string(bps) + "_c" + std::to_string(chunk / 1024) + "k_s" +
                                        std::to_string(stages);
        }
    const cudaError_t e = cudaGetLastError();
    std::printf("| %dx%d | %.1f | %.2f | %.2f (%s) | %.2f (%s) |%s\n", p[0], p[1], bytes / 1e6, empty, best_ldg,
                ldg_name.c_str(), best_bulk, bulk_name.c_str(), e == cudaSuccess ? "" : cudaGetErrorString(e));
  }
  return 0;
}
