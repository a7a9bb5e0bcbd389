// GEMM family wgmma: Hopper's asynchronous tensor cores (wgmma.mma_async) fed by TMA, warp-
// specialized and persistent (sm_90a only).
//
//   grid   min(tiles, SMs) blocks (kernels/src/gemm/family.cpp plans it); block b computes tiles
//          b, b + grid, ... of BLOCK_M x BLOCK_N in grouped order: GROUP_M tile rows per group, a
//          group walked column by column, so the tiles the SMs run at once share A and B in L2
//   block  1 + CONSUMERS warpgroups of 128 threads. Warpgroup 0 copies: one thread waits for a
//          free stage and brings that stage's tiles of A (BLOCK_M x 64) and B (BLOCK_N x 64) in
//          with two 2-D tensor-map copies that an mbarrier counts. Each consumer warpgroup
//          computes BLOCK_M / CONSUMERS rows (64 or 128: one or two m64 wgmma a k16 step) by all
//          BLOCK_N columns, accumulators in registers.
//   smem   STAGES buffers of {A, B}, K-major rows of 128 bytes (64 elements of K) with 128-byte
//          swizzle as the copies write them and wgmma's descriptors read them; a full and an empty
//          mbarrier per stage after them.
//
// Main loop of a consumer, per k tile: wait until the stage is full, issue its 4 k16 steps as one
// wgmma group, wait until the previous tile's group is done and free that tile's stage (its
// warps arrive on the stage's empty barrier), so one group is in flight while the next is issued.
// The copying warpgroup runs ahead by up to STAGES tiles, across tile boundaries: the next tile's
// operands arrive while the consumers store the last one's results.
//
// Clusters (CLUSTER 2): two blocks stacked along M share each B tile. Each copies half of it
// with a multicast copy into both blocks' shared memory; a stage's full barrier counts the bytes
// of the block's A and of the whole B tile, and its empty barrier the consumer warps of both
// blocks (a warp frees the stage in its own block and in its peer), so neither block overwrites
// a stage its peer still reads. The blocks meet once after initializing their barriers and once
// before leaving.
//
// Edges: the copies read coordinates outside A or B as zeros, so a partial tile (in M, N or K)
// needs no branch in the main loop; outputs are stored predicated (epilogue.cuh), C read only when
// beta != 0. Operands: A row-major and B column-major (n x k), both with rows 16-byte aligned
// (the tensor maps' strides; launch.hpp refuses others).
//
// Accepted by nvcc and NVRTC alike: no host standard headers.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "cuop/kernels/common/cluster.cuh"
#include "cuop/kernels/common/mma_sync.cuh"
#include "cuop/kernels/common/tma.cuh"
#include "cuop/kernels/gemm/args.cuh"
#include "cuop/kernels/gemm/epilogue.cuh"
#include "cuop/kernels/gemm/hopper.cuh"
#include "cuop/kernels/gemm/tma_args.cuh"
#include "cuop/kernels/gemm/wgmma_geometry.hpp"

namespace cuop::kernels::gemm {

namespace detail {

template <typename T> inline constexpr bool wgmma_false = false;
template <typename T> inline constexpr bool wgmma_input = false;
template <> inline constexpr bool wgmma_input<__half> = true;
template <> inline constexpr bool wgmma_input<__nv_bfloat16> = true;

}  // namespace detail

template <typename TIn, typename TOut, bool B_COL, int BLOCK_M, int BLOCK_N, int STAGES, int CONSUMERS,
          int GROUP_M, int CLUSTER = 1>
struct wgmma {
  static_assert(detail::wgmma_input<TIn>, "inputs are f16 or bf16");
  static_assert(B_COL, "wgmma reads column-major B (n x k)");
  static_assert(CONSUMERS == 1 || CONSUMERS == 2, "one or two consumer warpgroups");
  static_assert(BLOCK_M % CONSUMERS == 0 && (BLOCK_M / CONSUMERS == 64 || BLOCK_M / CONSUMERS == 128),
                "64 or 128 rows per consumer warpgroup");
  static_assert(BLOCK_N == 64 || BLOCK_N == 128 || BLOCK_N == 256, "block_n is 64, 128 or 256");
  static_assert(wgmma_geometry::accumulators(BLOCK_M, BLOCK_N, CONSUMERS) <= 128, "at most 128 accumulators a thread");
  static_assert(STAGES >= 2 && GROUP_M >= 1, "at least two stages; group_m >= 1");
  static_assert(CLUSTER == 1 || CLUSTER == 2, "clusters of 1 or 2 blocks along M");

  using geometry = wgmma_geometry;
  static constexpr int block_k = geometry::block_k;
  static constexpr int block_threads = geometry::threads_of(CONSUMERS);
  static constexpr int rows_per_consumer = BLOCK_M / CONSUMERS;
  static constexpr int m_atoms = rows_per_consumer / 64;
  static constexpr int acc_per_atom = BLOCK_N / 2;
  static constexpr int a_bytes = BLOCK_M * block_k * 2;
  static constexpr int stage_bytes = geometry::stage_bytes(BLOCK_M, BLOCK_N);
  static constexpr long long smem_bytes = geometry::smem_bytes(BLOCK_M, BLOCK_N, STAGES);
  static constexpr bool bf16 = common::is_bf16<TIn>;
  // Rows of the B tile each block of a cluster copies for all of them.
  static constexpr int b_rows_each = BLOCK_N / CLUSTER;

  // The work, in units of CLUSTER tiles stacked along M that share their B tile: a cluster takes
  // units c, c + clusters, ..., and its block of rank r the unit's r-th tile (past M when M has
  // fewer tiles: its A reads as zeros and it stores nothing, but it copies its part of B).
  struct tiles {
    int units_m, tiles_n, k_tiles, count;
    unsigned rank;
    int first, step;
    __device__ tiles(const gemm_args& a)
        : units_m(((a.m + BLOCK_M - 1) / BLOCK_M + CLUSTER - 1) / CLUSTER), tiles_n((a.n + BLOCK_N - 1) / BLOCK_N),
          k_tiles((a.k + block_k - 1) / block_k), count(units_m * tiles_n) {
      if constexpr (CLUSTER == 1) {
        rank = 0;
        first = static_cast<int>(blockIdx.x);
        step = static_cast<int>(gridDim.x);
      } else {
        rank = common::cluster_rank();
        first = static_cast<int>(common::cluster_index());
        step = static_cast<int>(common::cluster_count());
      }
    }
    // Grouped order (mma.cuh's) over units: this block's tile origin in unit u.
    __device__ void origin(int u, int& m0, int& n0) const {
      const int group = GROUP_M < units_m ? GROUP_M : units_m;
      const int per_group = group * tiles_n;
      const int first_m = (u / per_group) * group;
      const int group_rows = units_m - first_m < group ? units_m - first_m : group;
      const int in_group = u % per_group;
      m0 = ((first_m + in_group % group_rows) * CLUSTER + static_cast<int>(rank)) * BLOCK_M;
      n0 = (in_group / group_rows) * BLOCK_N;
    }
  };

  struct buffers {
    unsigned base;  // 1024-byte aligned
    __device__ unsigned a(int s) const { return base + s * stage_bytes; }
    __device__ unsigned b(int s) const { return base + s * stage_bytes + a_bytes; }
    __device__ unsigned full(int s) const { return base + STAGES * stage_bytes + 8 * s; }
    __device__ unsigned empty(int s) const { return base + STAGES * stage_bytes + 8 * (STAGES + s); }
  };

  // With clusters, a stage's empty barrier counts the consumers of every block (each block's
  // copy of B lands in all of them), and its full barrier the bytes of its A and of all of B.
  static __device__ void produce(const gemm_tma& in, const buffers& buf, const tiles& t) {
    int it = 0;
    for (int unit = t.first; unit < t.count; unit += t.step) {
      int m0, n0;
      t.origin(unit, m0, n0);
      for (int kt = 0; kt < t.k_tiles; ++kt, ++it) {
        const int s = it % STAGES;
        // A fresh barrier counts as freed once: the first round waits for nothing.
        common::mbarrier_wait(buf.empty(s), ((it / STAGES) & 1) ^ 1);
        hopper::mbarrier_arrive_expect_tx(buf.full(s), stage_bytes);
        hopper::tma_load_2d(buf.a(s), in.map_a, kt * block_k, m0, buf.full(s));
        if constexpr (CLUSTER == 1) {
          hopper::tma_load_2d(buf.b(s), in.map_b, kt * block_k, n0, buf.full(s));
        } else {
          const int part = static_cast<int>(t.rank) * b_rows_each;
          hopper::tma_load_2d_multicast(buf.b(s) + static_cast<unsigned>(part) * 128, in.map_b, kt * block_k,
                                        n0 + part, buf.full(s), static_cast<unsigned short>((1u << CLUSTER) - 1));
        }
      }
    }
  }

  // A consumer warp's release of stage s: in its own block, and with clusters in every block
  // whose copies land in this one.
  static __device__ __forceinline__ void release(const buffers& buf, int s) {
    if constexpr (CLUSTER == 1) {
      hopper::mbarrier_arrive(buf.empty(s));
    } else {
#pragma unroll
      for (unsigned r = 0; r < CLUSTER; ++r) hopper::mbarrier_arrive_cluster(common::map_shared(buf.empty(s), r));
    }
  }

  // The k16 steps of one stage as one wgmma group of this consumer.
  static __device__ __forceinline__ void mma_stage(float (&acc)[m_atoms][acc_per_atom], const buffers& buf, int s,
                                                   int consumer, bool first) {
    hopper::fence();
#pragma unroll
    for (int ks = 0; ks < block_k / 16; ++ks) {
      const unsigned long long desc_b = hopper::smem_desc_k128(buf.b(s) + ks * 32);
#pragma unroll
      for (int ma = 0; ma < m_atoms; ++ma) {
        const unsigned a_row = static_cast<unsigned>(consumer * rows_per_consumer + ma * 64);
        const unsigned long long desc_a = hopper::smem_desc_k128(buf.a(s) + a_row * 128 + ks * 32);
        hopper::mma_async<BLOCK_N, bf16>(acc[ma], desc_a, desc_b, first && ks == 0 ? 0 : 1);
      }
    }
    hopper::commit_group();
  }

  static __device__ __forceinline__ void fence_accumulators(float (&acc)[m_atoms][acc_per_atom]) {
#pragma unroll
    for (int ma = 0; ma < m_atoms; ++ma)
#pragma unroll
      for (int j = 0; j < acc_per_atom; ++j) hopper::fence_operand(acc[ma][j]);
  }

  static __device__ void consume(const gemm_args& a, const buffers& buf, const tiles& t, int consumer) {
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const int warp = (static_cast<int>(threadIdx.x) >> 5) & 3;  // within the warpgroup
    const bool d_vec = detail::pairs_ok<TOut>(a.d, a.ldd);
    const bool c_vec = detail::pairs_ok<TOut>(a.c, a.ldc);
    float acc[m_atoms][acc_per_atom];
    int it = 0;
    for (int unit = t.first; unit < t.count; unit += t.step) {
      int m0, n0;
      t.origin(unit, m0, n0);
      fence_accumulators(acc);
      int prev = -1;
      for (int kt = 0; kt < t.k_tiles; ++kt, ++it) {
        const int s = it % STAGES;
        common::mbarrier_wait(buf.full(s), (it / STAGES) & 1);
        mma_stage(acc, buf, s, consumer, kt == 0);
        hopper::wait_group<1>();
        if (prev >= 0 && lane == 0) release(buf, prev);
        prev = s;
      }
      hopper::wait_group<0>();
      fence_accumulators(acc);
      if (lane == 0) release(buf, prev);
      const int row0 = m0 + consumer * rows_per_consumer + warp * 16 + (lane >> 2);
      const int col0 = n0 + (lane & 3) * 2;
#pragma unroll
      for (int ma = 0; ma < m_atoms; ++ma)
#pragma unroll
        for (int j = 0; j < acc_per_atom / 4; ++j) {
          const int r = row0 + ma * 64;
          const int c = col0 + j * 8;
          detail::store_pair<TOut>(a, r, c, acc[ma][4 * j], acc[ma][4 * j + 1], d_vec, c_vec);
          detail::store_pair<TOut>(a, r + 8, c, acc[ma][4 * j + 2], acc[ma][4 * j + 3], d_vec, c_vec);
        }
    }
  }

  static __device__ void run(const gemm_args& a, const gemm_tma& in, unsigned char* smem) {
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
    static_assert(detail::wgmma_false<TIn>, "GEMM family wgmma needs sm_90a");
#endif
    const buffers buf{(common::smem_addr(smem) + 1023u) & ~1023u};
    const tiles t(a);
    if (threadIdx.x == 0) {
      for (int s = 0; s < STAGES; ++s) {
        hopper::mbarrier_init(buf.full(s), 1);
        hopper::mbarrier_init(buf.empty(s), 4 * CONSUMERS * CLUSTER);  // one arrival per consumer warp
      }
      common::mbarrier_init_fence();
    }
    // With clusters, every block's barriers exist before any copy or arrival reaches them.
    if constexpr (CLUSTER == 1) {
      __syncthreads();
    } else {
      common::cluster_arrive();
      common::cluster_wait();
    }
    const int warpgroup = static_cast<int>(threadIdx.x) / 128;
    if (warpgroup == 0) {
      if constexpr (CONSUMERS == 2) hopper::release_registers<40>();
      if (threadIdx.x == 0) produce(in, buf, t);
    } else {
      if constexpr (CONSUMERS == 2) hopper::claim_registers<232>();
      consume(a, buf, t, warpgroup - 1);
    }
    // No block leaves while its peers may still copy into it or arrive on its barriers.
    if constexpr (CLUSTER > 1) hopper::cluster_sync_diverged();
  }
};

}  // namespace cuop::kernels::gemm
