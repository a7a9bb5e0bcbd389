// GroupNorm family group_span (NHWC), for groups of few channels: a block owns SPAN consecutive
// groups of a sample, so that each of its runs (one spatial position) holds SPAN x c / groups
// channels, whole sectors where one group's channels are a few bytes and one block per group
// would read each sector many times over. With CLUSTER > 1 (sm_90+), the blocks of a cluster
// share the span's positions, for samples too few to fill the GPU.
// Each thread walks one fixed column of vectors down the positions, keeping a mean and squared
// deviations per lane (Welford; the lanes of a column are fixed channels). The block then merges,
// group by group, the lanes of its channels over every thread (a warp per group, a fixed tree:
// the same result every run), and a cluster its blocks' results in rank order through
// distributed shared memory (one barrier per span, the triples double-buffered). The second pass
// normalizes each lane with its group's statistics, as group_loop.
// Grid: spans * CLUSTER blocks (clusters of CLUSTER), striding over the n x groups / SPAN spans.
// Host side (plan_launch): NHWC only, SPAN divides the groups, a run's vectors fit the block.
#pragma once

#include "cuop/kernels/common/cluster.cuh"
#include "cuop/kernels/groupnorm/group_loop.cuh"

namespace cuop::kernels::groupnorm {

namespace detail {

// (count, mean, squared deviations) of a set of values, merged exactly (Chan).
struct moments {
  float n, mean, m2;
  __device__ __forceinline__ void merge(float n_b, float mean_b, float m2_b) {
    if (n_b == 0.f) return;
    const float total = n + n_b, delta = mean_b - mean;
    m2 += m2_b + delta * delta * (n * n_b / total);
    mean += delta * (n_b / total);
    n = total;
  }
};

__device__ __forceinline__ void st_shared_f32(unsigned addr, float v) {
  asm volatile("st.shared.f32 [%0], %1;" ::"r"(addr), "f"(v) : "memory");
}
__device__ __forceinline__ float ld_shared_f32(unsigned addr) {
  float v;
  asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "r"(addr) : "memory");
  return v;
}
__device__ __forceinline__ void st_shared_f32x2(unsigned addr, float a, float b) {
  asm volatile("st.shared.v2.f32 [%0], {%1, %2};" ::"r"(addr), "f"(a), "f"(b) : "memory");
}
__device__ __forceinline__ void ld_shared_f32x2(unsigned addr, float& a, float& b) {
  asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];" : "=f"(a), "=f"(b) : "r"(addr) : "memory");
}
__device__ __forceinline__ void ld_shared_f32x4(unsigned addr, float& a, float& b, float& c, float& d) {
  asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(a), "=f"(b), "=f"(c), "=f"(d) : "r"(addr) : "memory");
}

// Merges lane 0..31's moments down a fixed tree into lane 0.
__device__ __forceinline__ moments warp_merge(moments m) {
#pragma unroll
  for (int off = 16; off > 0; off /= 2) {
    const float n_b = __shfl_down_sync(0xffffffffu, m.n, off);
    const float mean_b = __shfl_down_sync(0xffffffffu, m.mean, off);
    const float m2_b = __shfl_down_sync(0xffffffffu, m.m2, off);
    m.merge(n_b, mean_b, m2_b);
  }
  return m;
}

}  // namespace detail

template <typename T, int VEC, int BLOCK_THREADS, int LAYOUT, int SILU, int SPAN, int CLUSTER>
struct group_span {
  static constexpr int block_threads = BLOCK_THREADS;
  static constexpr int cluster = CLUSTER;
  static_assert(BLOCK_THREADS % 32 == 0 && BLOCK_THREADS <= 1024, "whole warps, <= 1024 threads");
  static_assert(LAYOUT == nhwc_layout, "group_span walks NHWC tensors");
  static_assert(SPAN == 2 || SPAN == 4 || SPAN == 8 || SPAN == 16 || SPAN == 32, "a span of 2 to 32 groups");
  static_assert(CLUSTER == 1 || CLUSTER == 2 || CLUSTER == 4 || CLUSTER == 8 || CLUSTER == 16,
                "cluster of 1, 2, 4, 8 or 16 blocks");
  static_assert(BLOCK_THREADS * VEC <= 4096, "the lanes' moments fit 32 KiB of shared memory");

  // The block's shared memory, addressed through 32-bit shared-window addresses (no generic
  // pointers: NVRTC and nvcc lower those differently, docs/ARCHITECTURE.md): each thread's
  // (mean, m2) per lane; the block's (count, mean, m2, -) per group, by parity; each group's
  // mean and rstd.
  struct shared_state {
    unsigned base;
    __device__ __forceinline__ unsigned lane(int i) const { return base + static_cast<unsigned>(i) * 8u; }
    __device__ __forceinline__ unsigned published(int slot, int g) const {
      return base + BLOCK_THREADS * VEC * 8u + static_cast<unsigned>(slot * SPAN + g) * 16u;
    }
    __device__ __forceinline__ unsigned center(int g) const {
      return base + BLOCK_THREADS * VEC * 8u + 2u * SPAN * 16u + static_cast<unsigned>(g) * 4u;
    }
    __device__ __forceinline__ unsigned rstd(int g) const { return center(g) + SPAN * 4u; }
  };
  static constexpr int shared_bytes = BLOCK_THREADS * VEC * 8 + 2 * SPAN * 16 + 2 * SPAN * 4;

  static __device__ void run(const groupnorm_args& a) {
    __shared__ __align__(16) unsigned char storage[shared_bytes];  // one for both walks
    const shared_state sh{common::shared_address(storage)};
    if (detail::vectors_fit<T, VEC, LAYOUT>(a)) walk<VEC>(a, sh);
    else walk<1>(a, sh);
  }

 private:
  using passes = detail::group_passes<T, LAYOUT, SILU>;
  static constexpr int unroll = passes::unroll;
  static constexpr int warps = BLOCK_THREADS / 32;

  template <int U>
  static __device__ void walk(const groupnorm_args& a, const shared_state& sh) {
    const int t = static_cast<int>(threadIdx.x);
    int rank = 0, first_span = static_cast<int>(blockIdx.x), spans_step = static_cast<int>(gridDim.x);
    if constexpr (CLUSTER > 1) cluster_position(rank, first_span, spans_step);
    const int spans = static_cast<int>(a.n * a.groups / SPAN);  // SPAN divides groups (plan_launch)
    int slot = 0;
    for (int span = first_span; span < spans; span += spans_step) {
      detail::group_view<LAYOUT> v(a, span * SPAN);
      v.run_len = SPAN * v.cg;
      const detail::covering<LAYOUT, U> cover(v);
      const int rows = BLOCK_THREADS / cover.per_run;  // positions a pass of the block covers
      const bool active = t < rows * cover.per_run;
      const int first = rank * rows * cover.per_run + t, step = CLUSTER * rows * cover.per_run;
      float mean[U], m2[U];
      lane_moments<U>(a, v, cover, active ? first : cover.units, step, mean, m2);
#pragma unroll
      for (int i = 0; i < U; ++i) detail::st_shared_f32x2(sh.lane(t * U + i), mean[i], m2[i]);
      __syncthreads();
      merge_block<U>(sh, v, cover, rows, rank, slot);
      if constexpr (CLUSTER > 1) merge_cluster(sh, slot, a.eps);
      else finish(sh, slot, a.eps);
      __syncthreads();
      normalize<U>(sh, a, v, cover, active ? first : cover.units, step);
      if (rank == 0 && t < SPAN) {
        if (a.mean) a.mean[span * SPAN + t] = detail::ld_shared_f32(sh.center(t));
        if (a.rstd) a.rstd[span * SPAN + t] = detail::ld_shared_f32(sh.rstd(t));
      }
      slot ^= 1;
    }
    if constexpr (CLUSTER > 1) cluster_done();
  }

  // The thread's column, down every position it visits: Welford per lane, the count shared.
  template <int U>
  static __device__ __forceinline__ void lane_moments(const groupnorm_args& a, const detail::group_view<LAYOUT>& v,
                                                      const detail::covering<LAYOUT, U>& cover, int first, int step,
                                                      float (&mean)[U], float (&m2)[U]) {
    const T* x = static_cast<const T*>(a.x);
    const long long total = a.n * a.c * a.hw;
    float count = 0.f;
#pragma unroll
    for (int i = 0; i < U; ++i) mean[i] = m2[i] = 0.f;
    for (int u0 = first; u0 < cover.units; u0 += unroll * step) {
      detail::packed<T, U> x_u[unroll];
#pragma unroll
      for (int k = 0; k < unroll; ++k) {
        const int u = u0 + k * step;
        if (u < cover.units) {
          long long at;
          int lane0;
          cover.locate(v, u, at, lane0);
          detail::load_unit(x, at, lane0, v.run_len, total, x_u[k]);
        }
      }
#pragma unroll
      for (int k = 0; k < unroll; ++k) {
        if (u0 + k * step >= cover.units) continue;
        count += 1.f;
        const float inv = 1.f / count;
#pragma unroll
        for (int i = 0; i < U; ++i) {
          const float xi = x_u[k].get(i), d = xi - mean[i];
          mean[i] += d * inv;
          m2[i] += d * (xi - mean[i]);
        }
      }
    }
  }

  // Group by group, a warp merges the lanes of the group's channels over the block's rows into
  // the block's moments of the group, published in shared memory.
  template <int U>
  static __device__ __forceinline__ void merge_block(const shared_state& sh, const detail::group_view<LAYOUT>& v,
                                                     const detail::covering<LAYOUT, U>& cover, int rows, int rank,
                                                     int slot) {
    const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
    const int entries = rows * v.cg;
    for (int g = warp; g < SPAN; g += warps) {
      detail::moments m{0.f, 0.f, 0.f};
      for (int e = lane; e < entries; e += 32) {
        const int row = e / v.cg, q = g * v.cg + e % v.cg + cover.head;  // q: covering position
        const int position = rank * rows + row;  // the first position the row's threads visit
        const float n = position < v.hw ? static_cast<float>((v.hw - 1 - position) / (rows * CLUSTER) + 1) : 0.f;
        float mean, m2;
        detail::ld_shared_f32x2(sh.lane((row * cover.per_run + q / U) * U + q % U), mean, m2);
        m.merge(n, mean, m2);
      }
      m = detail::warp_merge(m);
      if (lane == 0) common::st_shared_f32x4(sh.published(slot, g), m.n, m.mean, m.m2, 0.f);
    }
  }

  // Without a cluster: the block's moments are the group's.
  static __device__ __forceinline__ void finish(const shared_state& sh, int slot, float eps) {
    __syncthreads();
    const int g = static_cast<int>(threadIdx.x);
    if (g < SPAN) {
      float n, mean, m2, unused;
      detail::ld_shared_f32x4(sh.published(slot, g), n, mean, m2, unused);
      detail::st_shared_f32(sh.center(g), mean);
      detail::st_shared_f32(sh.rstd(g), rsqrtf(m2 / n + eps));
    }
  }

  static __device__ __forceinline__ void cluster_position(int& rank, int& first_span, int& spans_step) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
    rank = static_cast<int>(common::cluster_rank());
    first_span = static_cast<int>(common::cluster_index());
    spans_step = static_cast<int>(common::cluster_count());
#else
    __trap();  // no clusters before sm_90; never launched there (min_sm)
#endif
  }

  // Each group's moments merged over the cluster's blocks in rank order, in every block alike.
  static __device__ __forceinline__ void merge_cluster(const shared_state& sh, int slot, float eps) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
    common::cluster_arrive();
    common::cluster_wait();
    const int g = static_cast<int>(threadIdx.x);
    if (g < SPAN) {
      const unsigned mine = sh.published(slot, g);
      detail::moments m{0.f, 0.f, 0.f};
#pragma unroll
      for (int r = 0; r < CLUSTER; ++r) {
        float n, mean, m2, unused;
        common::ld_cluster_f32x4(common::map_shared(mine, static_cast<unsigned>(r)), n, mean, m2, unused);
        m.merge(n, mean, m2);
      }
      detail::st_shared_f32(sh.center(g), m.mean);
      detail::st_shared_f32(sh.rstd(g), rsqrtf(m.m2 / m.n + eps));
    }
#endif
  }

  static __device__ __forceinline__ void cluster_done() {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
    common::cluster_arrive();  // the peers may still read this block's moments
    common::cluster_wait();
#endif
  }

  // The second pass: each lane normalized with its group's statistics and its channel's
  // parameters (read as one aligned vector, as group_loop's NHWC path).
  template <int U>
  static __device__ __forceinline__ void normalize(const shared_state& sh, const groupnorm_args& a,
                                                   const detail::group_view<LAYOUT>& v,
                                                   const detail::covering<LAYOUT, U>& cover, int first, int step) {
    const T* x = static_cast<const T*>(a.x);
    T* y = static_cast<T*>(a.y);
    const T* weight = static_cast<const T*>(a.weight);
    const T* bias = static_cast<const T*>(a.bias);
    const long long total = a.n * a.c * a.hw;
    for (int u0 = first; u0 < cover.units; u0 += unroll * step) {
      detail::packed<T, U> x_u[unroll];
      long long at[unroll];
      int lane0[unroll];
#pragma unroll
      for (int k = 0; k < unroll; ++k) {
        const int u = u0 + k * step;
        at[k] = 0;
        lane0[k] = v.run_len;
        if (u < cover.units) {
          cover.locate(v, u, at[k], lane0[k]);
          detail::load_unit(x, at[k], lane0[k], v.run_len, total, x_u[k]);
        }
      }
#pragma unroll
      for (int k = 0; k < unroll; ++k) {
        if (lane0[k] >= v.run_len) continue;
        detail::packed<T, U> w_u, b_u;
        const int ch = v.channel0 + lane0[k];
        if constexpr (U > 1) {
          if (weight) norm::detail::load_param(weight + ch, w_u);
          if (bias) norm::detail::load_param(bias + ch, b_u);
        }
        float f[U];
#pragma unroll
        for (int i = 0; i < U; ++i) {
          const int q = lane0[k] + i, g = q >= 0 && q < v.run_len ? q / v.cg : 0;
          f[i] = (x_u[k].get(i) - detail::ld_shared_f32(sh.center(g))) * detail::ld_shared_f32(sh.rstd(g));
          if constexpr (U > 1) {
            if (weight) f[i] *= w_u.get(i);
            if (bias) f[i] += b_u.get(i);
          } else {
            f[i] = f[i] * norm::detail::param_at(weight, ch, 1.f) + norm::detail::param_at(bias, ch, 0.f);
          }
          if constexpr (SILU != 0) f[i] = detail::silu(f[i]);
        }
        detail::packed<T, U> o;
        o.set(f);
        detail::store_unit(y, at[k], lane0[k], v.run_len, o);
      }
    }
  }
};

}  // namespace cuop::kernels::groupnorm
