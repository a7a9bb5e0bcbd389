// The Hopper bulk-copy primitives the TMA-fed kernels share (depthwise stages 4 and 5): an
// mbarrier that counts a copy's bytes, 4-D tensor-map copies into and out of shared memory, and
// the waits on both. Addresses are shared-memory addresses (common::smem_addr). sm_90 and newer:
// compiled for an older device, they are empty (their callers take other paths there).
// Accepted by nvcc and NVRTC alike: no host standard headers.
#pragma once

namespace cuop::kernels::common {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define CUOP_TMA_ASM(...) asm volatile(__VA_ARGS__)
#else
#define CUOP_TMA_ASM(...) ((void)0)
#endif

// An mbarrier for one arriving thread, made visible to the copy engine.
__device__ __forceinline__ void mbarrier_init(unsigned bar) {
  CUOP_TMA_ASM("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
}
__device__ __forceinline__ void mbarrier_init_fence() {
  CUOP_TMA_ASM("fence.mbarrier_init.release.cluster;\n fence.proxy.async.shared::cta;" ::: "memory");
}

// Spins until the mbarrier's phase of that parity has completed.
__device__ __forceinline__ void mbarrier_wait(unsigned bar, unsigned parity) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  for (unsigned done = 0; !done;)
    asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
                 : "=r"(done) : "r"(bar), "r"(parity) : "memory");
#else
  (void)bar, (void)parity;
#endif
}

// The box at (c0, c1, c2, c3) of the tensor `map` (a CUtensorMap's address) into shared memory at
// dst; the mbarrier at bar expects `bytes` and completes when they have landed.
__device__ __forceinline__ void tma_load_4d(unsigned dst, const void* map, int c0, int c1, int c2, int c3,
                                            unsigned bar, unsigned bytes) {
  CUOP_TMA_ASM("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
  CUOP_TMA_ASM(
      "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6];"
      ::"r"(dst), "l"(reinterpret_cast<unsigned long long>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(bar)
      : "memory");
}

// Shared memory at src out to the box at (c0, c1, c2, c3) of `map`, as one bulk group (after a
// fence.proxy.async of the writes it reads).
__device__ __forceinline__ void tma_store_4d(const void* map, int c0, int c1, int c2, int c3, unsigned src) {
  CUOP_TMA_ASM("cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group [%0, {%1, %2, %3, %4}], [%5];" ::"l"(
                   reinterpret_cast<unsigned long long>(map)),
               "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(src)
               : "memory");
  CUOP_TMA_ASM("cp.async.bulk.commit_group;" ::: "memory");
}
// Until every committed store has read its shared memory.
__device__ __forceinline__ void tma_store_wait_read() { CUOP_TMA_ASM("cp.async.bulk.wait_group.read 0;" ::: "memory"); }
// Shared-memory writes made visible to the copy engine.
__device__ __forceinline__ void fence_proxy_async() { CUOP_TMA_ASM("fence.proxy.async.shared::cta;" ::: "memory"); }

#undef CUOP_TMA_ASM

}  // namespace cuop::kernels::common
