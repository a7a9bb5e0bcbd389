// GroupNorm family group_cluster (sm_90+), for few groups: the CLUSTER blocks of a thread-block
// cluster share a group, each walking every CLUSTER-th batch of its vectors (group_loop's passes),
// so that a batch of one or two samples still occupies the GPU. Each block reduces its share to
// (count, mean, squared deviations), publishes the triple in its own shared memory and arrives at
// the cluster barrier; after the wait every thread reads the CLUSTER triples through distributed
// shared memory and merges them in rank order (Chan), so every block holds the same statistics
// without a global workspace. The second pass reads the block's share again, mostly from L2.
// Grid: clusters * CLUSTER blocks with a cluster dimension of CLUSTER; cluster k handles groups
// k, k + clusters, ...; the triples are double-buffered, so one barrier per group suffices, and
// a last one keeps every block's shared memory alive until its peers have read it.
// Below sm_90 the kernel compiles but traps: the family is not offered there (min_sm).
#pragma once

#include "cuop/kernels/common/cluster.cuh"
#include "cuop/kernels/groupnorm/group_loop.cuh"

namespace cuop::kernels::groupnorm {

template <typename T, int VEC, int BLOCK_THREADS, int LAYOUT, int SILU, int CLUSTER>
struct group_cluster {
  static constexpr int block_threads = BLOCK_THREADS;
  static constexpr int cluster = CLUSTER;
  static_assert(BLOCK_THREADS % 32 == 0 && BLOCK_THREADS <= 1024, "whole warps, <= 1024 threads");
  static_assert(LAYOUT == nhwc_layout || LAYOUT == nchw_layout, "layout: nhwc_layout or nchw_layout");
  static_assert(CLUSTER == 2 || CLUSTER == 4 || CLUSTER == 8 || CLUSTER == 16, "cluster of 2, 4, 8 or 16 blocks");

  static __device__ void run(const groupnorm_args& a) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    __trap();  // no clusters before sm_90; never launched there (min_sm)
#else
    if (detail::vectors_fit<T, VEC, LAYOUT>(a)) walk<VEC>(a);
    else walk<1>(a);
#endif
  }

 private:
  using passes = detail::group_passes<T, LAYOUT, SILU>;

  template <int U>
  static __device__ void walk(const groupnorm_args& a) {
    __shared__ float scratch[2][BLOCK_THREADS / 32];
    __shared__ __align__(16) float published[2][4];  // (count, mean, m2, -) per parity
    int parity = 0, slot = 0;
    const int t = static_cast<int>(threadIdx.x);
    const int rank = static_cast<int>(common::cluster_rank());
    const int first = rank * BLOCK_THREADS + t, step = CLUSTER * BLOCK_THREADS;
    const int groups = static_cast<int>(a.n * a.groups);  // < 2^31 (check_shape)
    const int clusters = static_cast<int>(common::cluster_count());
    for (int group = static_cast<int>(common::cluster_index()); group < groups; group += clusters) {
      const detail::group_view<LAYOUT> v(a, group);
      const detail::covering<LAYOUT, U> cover(v);
      float count, mean, m2;
      passes::template thread_stats<U>(a, v, cover, first, step, count, mean, m2);
      // The block's share: its count and mean, then its squared deviations about that mean.
      const float block_count = norm::detail::block_sum<BLOCK_THREADS>(count, scratch, parity);
      const float block_mean =
          norm::detail::block_sum<BLOCK_THREADS>(count * mean, scratch, parity) / fmaxf(block_count, 1.f);
      const float offset = mean - block_mean;
      const float block_m2 = norm::detail::block_sum<BLOCK_THREADS>(m2 + count * offset * offset, scratch, parity);
      const unsigned mine = common::shared_address(&published[slot][0]);
      if (t == 0) common::st_shared_f32x4(mine, block_count, block_mean, block_m2, 0.f);
      common::cluster_arrive();
      common::cluster_wait();
      float n_all = 0.f, center = 0.f, m2_all = 0.f;
#pragma unroll
      for (int r = 0; r < CLUSTER; ++r) {
        float n_r, mean_r, m2_r, unused;
        common::ld_cluster_f32x4(common::map_shared(mine, static_cast<unsigned>(r)), n_r, mean_r, m2_r, unused);
        if (n_r == 0.f) continue;
        const float merged = n_all + n_r, delta = mean_r - center;
        m2_all += m2_r + delta * delta * (n_all * n_r / merged);
        center += delta * (n_r / merged);
        n_all = merged;
      }
      slot ^= 1;
      const float rstd = rsqrtf(m2_all / n_all + a.eps);
      passes::template normalize<U>(a, v, cover, first, step, center, rstd);
      if (rank == 0 && t == 0) {
        if (a.mean) a.mean[group] = center;
        if (a.rstd) a.rstd[group] = rstd;
      }
    }
    common::cluster_arrive();  // the peers may still read this block's triples
    common::cluster_wait();
  }
};

}  // namespace cuop::kernels::groupnorm
