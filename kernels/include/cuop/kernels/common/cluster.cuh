// Thread-block cluster primitives (sm_90+) for 1-D grids with clusters along x: the block's rank
// and the cluster's index, the split arrive / wait barrier, and shared memory read across the
// cluster through 32-bit shared-window addresses (no generic pointers into shared memory: NVRTC
// and nvcc lower those differently, docs/ARCHITECTURE.md). Compiles for every target; callers
// keep it off devices below sm_90 (their family's min_sm).
// Accepted by nvcc and NVRTC alike: no host standard headers.
#pragma once

namespace cuop::kernels::common {

__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r;
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ unsigned cluster_index() {
  unsigned r;
  asm("mov.u32 %0, %%clusterid.x;" : "=r"(r));
  return r;
}
__device__ __forceinline__ unsigned cluster_count() {
  unsigned r;
  asm("mov.u32 %0, %%nclusterid.x;" : "=r"(r));
  return r;
}

// Every thread of the cluster arrives (release: its earlier accesses, reads of the peers' shared
// memory included, are ordered before the barrier) and waits (acquire: what the peers wrote
// before arriving is visible). Executed by all threads of a warp together.
__device__ __forceinline__ void cluster_arrive() { asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory"); }
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory"); }

// This block's shared-window address of `p`.
__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// The shared-window address `addr` of this block mapped to the same variable in block `rank`.
__device__ __forceinline__ unsigned map_shared(unsigned addr, unsigned rank) {
  unsigned r;
  asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(addr), "r"(rank));
  return r;
}

__device__ __forceinline__ void st_shared_f32x4(unsigned addr, float a, float b, float c, float d) {
  asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};" ::"r"(addr), "f"(a), "f"(b), "f"(c), "f"(d) : "memory");
}
__device__ __forceinline__ void ld_cluster_f32x4(unsigned addr, float& a, float& b, float& c, float& d) {
  asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(a), "=f"(b), "=f"(c), "=f"(d)
               : "r"(addr)
               : "memory");
}

}  // namespace cuop::kernels::common
