// Softmax family cluster_row (sm_90+), for long rows: the CLUSTER blocks of a thread-block
// cluster share a row, each holding its segment of VEC * BLOCK_THREADS * CHUNKS columns in
// registers. Each block reduces its segment to (max, sum), publishes it in its own shared memory
// and arrives at the cluster barrier; after the wait, every warp reads the CLUSTER partials
// through distributed shared memory (mapa + ld.shared::cluster), combines them, and the block
// normalizes its registers and writes: one read and one write of the data, one cluster barrier
// per row, no global workspace and no cooperative launch.
// Grid: clusters * CLUSTER blocks launched with a cluster dimension of CLUSTER; cluster c handles
// rows c, c + clusters, ... (the host caps the clusters at the resident count, so the grid is
// persistent), with the next row's segment loaded while the cluster meets when registers allow.
// Below sm_90 the kernel compiles but traps: the family is not offered there (min_sm).
#pragma once

#include "cuop/kernels/common/cluster.cuh"
#include "cuop/kernels/softmax/common.cuh"

namespace cuop::kernels::softmax {

namespace detail {

// The cluster primitives (common/cluster.cuh), by the names this family's code uses.
using common::cluster_arrive;
using common::cluster_count;
using common::cluster_index;
using common::cluster_rank;
using common::cluster_wait;
using common::map_shared;

// 32-bit shared addresses throughout: no generic pointer into shared memory (the NVRTC / nvcc
// register parity trap of docs/ARCHITECTURE.md).
__device__ __forceinline__ void st_shared_stats(unsigned addr, stats v) {
  asm volatile("st.shared.v2.f32 [%0], {%1, %2};" :: "r"(addr), "f"(v.m), "f"(v.s) : "memory");
}
__device__ __forceinline__ stats ld_cluster_stats(unsigned addr) {
  stats v;
  asm volatile("ld.shared::cluster.v2.f32 {%0, %1}, [%2];" : "=f"(v.m), "=f"(v.s) : "r"(addr) : "memory");
  return v;
}

}  // namespace detail

template <typename T, int VEC, int BLOCK_THREADS, int CHUNKS, int CLUSTER>
struct cluster_row {
  static constexpr int block_threads = BLOCK_THREADS;
  static constexpr int cluster = CLUSTER;
  static constexpr long long cols_per_block = static_cast<long long>(VEC) * BLOCK_THREADS * CHUNKS;
  static constexpr long long cols_per_row = cols_per_block * CLUSTER;
  static_assert(BLOCK_THREADS % 32 == 0 && BLOCK_THREADS <= 1024, "whole warps, <= 1024 threads");
  static_assert(CHUNKS >= 1, "chunks >= 1");
  static_assert(CLUSTER == 2 || CLUSTER == 4 || CLUSTER == 8 || CLUSTER == 16,
                "cluster of 2, 4, 8 or 16 blocks");

  using tile_t = detail::tile<T, VEC, BLOCK_THREADS, CHUNKS>;
  using scratch_t = float2[2][BLOCK_THREADS / 32];
  static constexpr bool prefetch = detail::prefetch_fits<T, VEC, CHUNKS, BLOCK_THREADS>;

  // This block's place in its cluster.
  struct member {
    long long begin;   // first column of its segment
    long long stride;  // clusters in the grid: rows between two rows of one cluster
    unsigned own;      // shared address of this block's partials[0] (partials[1] is 8 bytes on)
    unsigned peer[2];  // cluster address of partials[parity] of block (lane % CLUSTER)
  };

  struct where {
    const T* in;
    T* out;
    detail::row_layout<T, VEC> layout;
  };

  static __device__ __forceinline__ where locate(const softmax_args& a, long long row) {
    const T* in = detail::row_ptr<T>(a.in, row, a.in_stride);
    T* out = detail::row_ptr<T>(a.out, row, a.out_stride);
    return {in, out, detail::row_layout<T, VEC>(in, out, a.cols, cols_per_row)};
  }

  // The block's (max, sum) goes to its own partials[parity]; then the block arrives. Partials
  // alternate by parity: a block writes partials[parity] again two rows later, after the
  // barrier of the row between, which every peer passes only once it has read this row's.
  static __device__ __forceinline__ void publish(tile_t& x, const member& m, scratch_t& scratch,
                                                 int parity) {
    const detail::stats mine = detail::block_reduce<BLOCK_THREADS>(x.local_stats(), scratch, parity);
    if (threadIdx.x == 0) detail::st_shared_stats(m.own + 8u * static_cast<unsigned>(parity), mine);
    detail::cluster_arrive();
  }

  // Waits for the cluster, combines its partials (lane l reads block l % CLUSTER: every group of
  // CLUSTER lanes holds them all), normalizes and writes this block's segment.
  static __device__ __forceinline__ void complete(tile_t& x, const softmax_args& a, const where& w,
                                                  const member& m, int parity) {
    detail::cluster_wait();
    const detail::stats r =
        detail::warp_reduce<CLUSTER>(detail::ld_cluster_stats(parity ? m.peer[1] : m.peer[0]));
    x.store(w.out, m.begin, a.cols, w.layout, threadIdx.x, r);
  }

  static __device__ __forceinline__ void step(tile_t& cur, tile_t& next, const softmax_args& a,
                                              const where& w, const member& m, long long row,
                                              where& w_next, scratch_t& scratch, int parity) {
    const long long r = row + m.stride;
    if (r < a.rows) {  // in flight while the cluster meets
      w_next = locate(a, r);
      next.load(w_next.in, m.begin, a.cols, w_next.layout, threadIdx.x);
    }
    publish(cur, m, scratch, parity);
    complete(cur, a, w, m, parity);
  }

  static __device__ void run(const softmax_args& a) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    __trap();  // no clusters before sm_90; never launched there (min_sm)
#else
    __shared__ scratch_t scratch;
    __shared__ __align__(8) float2 partials[2];
    member m;
    m.begin = static_cast<long long>(detail::cluster_rank()) * cols_per_block;
    m.stride = detail::cluster_count();
    m.own = static_cast<unsigned>(__cvta_generic_to_shared(partials));
    const unsigned peer = threadIdx.x % CLUSTER;
    m.peer[0] = detail::map_shared(m.own, peer);
    m.peer[1] = detail::map_shared(m.own + 8u, peer);

    long long row = detail::cluster_index();
    if constexpr (prefetch) {
      tile_t t0, t1;
      where w0, w1;
      if (row < a.rows) {
        w0 = locate(a, row);
        t0.load(w0.in, m.begin, a.cols, w0.layout, threadIdx.x);
      }
      while (row < a.rows) {
        step(t0, t1, a, w0, m, row, w1, scratch, 0);
        row += m.stride;
        if (row >= a.rows) break;
        step(t1, t0, a, w1, m, row, w0, scratch, 1);
        row += m.stride;
      }
    } else {
      for (int parity = 0; row < a.rows; row += m.stride, parity ^= 1) {
        tile_t t0;
        const where w0 = locate(a, row);
        t0.load(w0.in, m.begin, a.cols, w0.layout, threadIdx.x);
        publish(t0, m, scratch, parity);
        complete(t0, a, w0, m, parity);
      }
    }
    // No block leaves while a peer may still read its partials.
    detail::cluster_arrive();
    detail::cluster_wait();
#endif
  }
};

}  // namespace cuop::kernels::softmax
