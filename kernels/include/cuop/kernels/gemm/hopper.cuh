// Hopper's asynchronous tensor-core and copy primitives used by GEMM family wgmma (wgmma.cuh):
// wgmma.mma_async on shared-memory operands described by matrix descriptors, its fences, 2-D
// tensor-map copies whose bytes an mbarrier counts, mbarriers with several arrivals, and the
// register reallocation of warp-specialized kernels. They need sm_90a: compiled for any other
// device they are empty, and the kernel that uses them refuses to compile there (wgmma.cuh).
// Accepted by nvcc and NVRTC alike: no host standard headers.
#pragma once

namespace cuop::kernels::gemm::hopper {

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define CUOP_HOPPER_ASM(...) asm volatile(__VA_ARGS__)
inline constexpr bool enabled = true;
#else
#define CUOP_HOPPER_ASM(...) ((void)0)
inline constexpr bool enabled = false;
#endif

// The descriptor of a K-major tile in shared memory as a 2-D tensor-map copy with 128-byte swizzle
// writes it: rows of 128 bytes (64 16-bit elements of K), eight rows (1024 bytes) a swizzle atom,
// atoms one after another. `addr` is the shared-memory address of the tile's first element at the
// K offset wanted; the tile itself starts 1024-byte aligned, and an offset along K within the
// 128-byte row is a plain address offset (the swizzle is applied to the full address).
__device__ __forceinline__ unsigned long long smem_desc_k128(unsigned addr) {
  constexpr unsigned long long leading = 1;          // unused by swizzled K-major layouts
  constexpr unsigned long long stride = 1024 >> 4;   // from one 8-row atom to the next
  constexpr unsigned long long swizzle_128b = 1;     // layout type, bits 62-63
  return static_cast<unsigned long long>((addr & 0x3FFFF) >> 4) | (leading << 16) | (stride << 32) |
         (swizzle_128b << 62);
}

// Orders the warpgroup's register and shared-memory accesses before the wgmma that follow.
__device__ __forceinline__ void fence() { CUOP_HOPPER_ASM("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void commit_group() { CUOP_HOPPER_ASM("wgmma.commit_group.sync.aligned;" ::: "memory"); }
// Until at most N of this warp's committed wgmma groups are pending.
template <int N>
__device__ __forceinline__ void wait_group() {
  CUOP_HOPPER_ASM("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}
// Keeps the compiler from moving accesses of an accumulator across an asynchronous wgmma.
__device__ __forceinline__ void fence_operand(float& r) { CUOP_HOPPER_ASM("" : "+f"(r)::"memory"); }

// Operand lists of wgmma.mma_async m64nNk16 (f32 accumulators d[0 .. N/2)).
#define CUOP_WGMMA_D8(o)                                                                             \
  "+f"(d[(o) + 0]), "+f"(d[(o) + 1]), "+f"(d[(o) + 2]), "+f"(d[(o) + 3]), "+f"(d[(o) + 4]), "+f"(d[(o) + 5]), \
      "+f"(d[(o) + 6]), "+f"(d[(o) + 7])
#define CUOP_WGMMA_D32(o) CUOP_WGMMA_D8(o), CUOP_WGMMA_D8((o) + 8), CUOP_WGMMA_D8((o) + 16), CUOP_WGMMA_D8((o) + 24)
#define CUOP_WGMMA_REGS_N64 \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, " \
  "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define CUOP_WGMMA_A_N64 "%32"
#define CUOP_WGMMA_B_N64 "%33"
#define CUOP_WGMMA_S_N64 "%34"
#define CUOP_WGMMA_OUT_N64 CUOP_WGMMA_D32(0)
#define CUOP_WGMMA_REGS_N128 \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, " \
  "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, " \
  "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, " \
  "%56, %57, %58, %59, %60, %61, %62, %63"
#define CUOP_WGMMA_A_N128 "%64"
#define CUOP_WGMMA_B_N128 "%65"
#define CUOP_WGMMA_S_N128 "%66"
#define CUOP_WGMMA_OUT_N128 CUOP_WGMMA_D32(0), CUOP_WGMMA_D32(32)
#define CUOP_WGMMA_REGS_N256 \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, " \
  "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, " \
  "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, " \
  "%56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, " \
  "%74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, " \
  "%92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, " \
  "%108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, " \
  "%123, %124, %125, %126, %127"
#define CUOP_WGMMA_A_N256 "%128"
#define CUOP_WGMMA_B_N256 "%129"
#define CUOP_WGMMA_S_N256 "%130"
#define CUOP_WGMMA_OUT_N256 CUOP_WGMMA_D32(0), CUOP_WGMMA_D32(32), CUOP_WGMMA_D32(64), CUOP_WGMMA_D32(96)
#define CUOP_WGMMA_ISSUE(N, AB)                                                                       \
  CUOP_HOPPER_ASM("{\n .reg .pred p;\n setp.ne.b32 p, " CUOP_WGMMA_S_N##N ", 0;\n"                    \
                  " wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." AB "." AB " {" CUOP_WGMMA_REGS_N##N \
                  "}, " CUOP_WGMMA_A_N##N ", " CUOP_WGMMA_B_N##N ", p, 1, 1, 0, 0;\n}\n"                 \
                  : CUOP_WGMMA_OUT_N##N                                                               \
                  : "l"(desc_a), "l"(desc_b), "r"(scale_d))

// d (+)= A * B^T for one m64nNk16 step of a warpgroup, A (64 x 16) and B (N x 16) K-major in shared
// memory; scale_d 0 overwrites d. Accumulator j of a thread (warp w of the warpgroup, lane l):
// row 16 w + l / 4 (+ 8 when j % 4 >= 2), column 8 (j / 4) + 2 (l % 4) + j % 2.
template <int N, bool BF16>
__device__ __forceinline__ void mma_async(float (&d)[N / 2], unsigned long long desc_a, unsigned long long desc_b,
                                          int scale_d) {
  static_assert(N == 64 || N == 128 || N == 256, "wgmma n is 64, 128 or 256 here");
  if constexpr (N == 64) {
    if constexpr (BF16) CUOP_WGMMA_ISSUE(64, "bf16"); else CUOP_WGMMA_ISSUE(64, "f16");
  } else if constexpr (N == 128) {
    if constexpr (BF16) CUOP_WGMMA_ISSUE(128, "bf16"); else CUOP_WGMMA_ISSUE(128, "f16");
  } else {
    if constexpr (BF16) CUOP_WGMMA_ISSUE(256, "bf16"); else CUOP_WGMMA_ISSUE(256, "f16");
  }
  (void)desc_a, (void)desc_b, (void)scale_d, (void)d;
}

// An mbarrier that completes a phase after `count` arrivals (and the bytes it was told to expect).
__device__ __forceinline__ void mbarrier_init(unsigned bar, unsigned count) {
  CUOP_HOPPER_ASM("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count));
}
__device__ __forceinline__ void mbarrier_arrive(unsigned bar) {
  CUOP_HOPPER_ASM("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
// One arrival that also tells the barrier to wait for `bytes` of copies.
__device__ __forceinline__ void mbarrier_arrive_expect_tx(unsigned bar, unsigned bytes) {
  CUOP_HOPPER_ASM("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}

// The box at (c0, c1) (innermost first) of the 2-D tensor `map` into shared memory at dst; its
// bytes count towards the mbarrier at bar. Coordinates outside the tensor read as zeros.
__device__ __forceinline__ void tma_load_2d(unsigned dst, const void* map, int c0, int c1, unsigned bar) {
  CUOP_HOPPER_ASM(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::
          "r"(dst),
      "l"(reinterpret_cast<unsigned long long>(map)), "r"(c0), "r"(c1), "r"(bar)
      : "memory");
}

// The same box, written at the same offset of the shared memory of every block of the cluster in
// `mask` (bit r: the block of rank r), its bytes counted by the mbarrier at bar's offset in each.
__device__ __forceinline__ void tma_load_2d_multicast(unsigned dst, const void* map, int c0, int c1, unsigned bar,
                                                      unsigned short mask) {
  CUOP_HOPPER_ASM(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(dst),
      "l"(reinterpret_cast<unsigned long long>(map)), "r"(c0), "r"(c1), "r"(bar), "h"(mask)
      : "memory");
}

// One arrival on the mbarrier at `bar`, a shared::cluster address (common::map_shared): this
// block's or a peer's. The default semantics (release at CTA scope), not release at cluster
// scope: what an arrival announces is that wgmma's reads of a stage are done (wait_group saw to
// that), and this thread wrote nothing that a peer must see; a cluster-scope release would make
// the warp wait until its earlier memory operations are visible to the whole cluster.
__device__ __forceinline__ void mbarrier_arrive_cluster(unsigned bar) {
  CUOP_HOPPER_ASM("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(bar) : "memory");
}

// The cluster's barrier for threads that may have diverged (no .aligned): every thread of every
// block arrives, then waits for all.
__device__ __forceinline__ void cluster_sync_diverged() {
  CUOP_HOPPER_ASM("barrier.cluster.arrive.release;\n barrier.cluster.wait.acquire;" ::: "memory");
}

// Register reallocation between the warpgroups of a warp-specialized block (every warp of a
// warpgroup executes it): the copying warpgroup gives registers up, the computing ones take them.
template <int REGS>
__device__ __forceinline__ void release_registers() {
  CUOP_HOPPER_ASM("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(REGS));
}
template <int REGS>
__device__ __forceinline__ void claim_registers() {
  CUOP_HOPPER_ASM("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(REGS));
}

#undef CUOP_WGMMA_ISSUE
#undef CUOP_HOPPER_ASM

}  // namespace cuop::kernels::gemm::hopper
