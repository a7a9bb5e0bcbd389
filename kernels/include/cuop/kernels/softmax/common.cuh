// Device helpers shared by the softmax families: packed register storage of VEC elements, vector
// and scalar global accesses with streaming hints, T <-> float, fast exp2, (max, sum) reductions,
// and the register tile that every family loads, reduces and writes back.
// Accepted by nvcc and NVRTC alike: no host standard headers.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "cuop/kernels/common/elements.cuh"
#include "cuop/kernels/common/global_access.cuh"
#include "cuop/kernels/softmax/args.cuh"

namespace cuop::kernels::softmax::detail {

constexpr float log2e = 1.4426950408889634f;

__device__ __forceinline__ float neg_inf() { return __uint_as_float(0xff800000u); }

// Element traits and packed vectors (cuop/kernels/common/elements.cuh).
using common::elem;
using common::is_bf16;
using common::packed;

// ---- global memory access -----------------------------------------------------------------
// cuop/kernels/common/global_access.cuh. In-place use (in == out) is safe: a thread writes only
// elements it has read.
using common::load_elem;
using common::load_vec;
using common::store_elem;
using common::store_vec;

// Element-wise max of two packed pairs of 16-bit values (sm_80+).
template <typename T>
__device__ __forceinline__ unsigned max2(unsigned a, unsigned b) {
  unsigned r;
  if constexpr (is_bf16<T>) asm("max.bf16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  else asm("max.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}

// ---- math ---------------------------------------------------------------------------------

__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// Softmax statistics of a set of elements in the log2 domain: m = max(x) * log2e,
// s = sum(exp2(x * log2e - m)). An empty or all -inf set is (-inf, 0).
struct stats {
  float m;
  float s;
};

__device__ __forceinline__ stats combine(stats a, stats b) {
  const float m = fmaxf(a.m, b.m);
  if (m == neg_inf()) return {m, 0.f};
  return {m, a.s * fast_exp2(a.m - m) + b.s * fast_exp2(b.m - m)};
}

// (max, sum) over groups of WIDTH consecutive lanes; every lane of the group gets the result.
// Max first, then one rescale per lane and a plain sum: one exp2 per lane instead of two per
// step. The whole warp must be converged here.
template <int WIDTH>
__device__ __forceinline__ stats warp_reduce(stats v) {
  float m = v.m;
#pragma unroll
  for (int off = WIDTH / 2; off > 0; off /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
  float s = v.m == neg_inf() ? 0.f : v.s * fast_exp2(v.m - m);
#pragma unroll
  for (int off = WIDTH / 2; off > 0; off /= 2) s += __shfl_xor_sync(0xffffffffu, s, off);
  return {m, s};
}

template <int WIDTH>
__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int off = WIDTH / 2; off > 0; off /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off));
  return v;
}

template <int WIDTH>
__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int off = WIDTH / 2; off > 0; off /= 2) v += __shfl_xor_sync(0xffffffffu, v, off);
  return v;
}

// Block-wide (max, sum) with a single __syncthreads: warps publish to a slot of `scratch`
// chosen by `parity` (alternate it between calls so a fast warp never overwrites values a slow
// warp still reads), and every warp reduces all slots itself.
template <int BLOCK_THREADS>
__device__ __forceinline__ stats block_reduce(stats v, float2 (&scratch)[2][BLOCK_THREADS / 32],
                                              int parity) {
  constexpr int warps = BLOCK_THREADS / 32;
  v = warp_reduce<32>(v);
  if constexpr (warps == 1) {
    return v;
  } else {
    const int lane = threadIdx.x % 32;
    if (lane == 0) scratch[parity][threadIdx.x / 32] = make_float2(v.m, v.s);
    __syncthreads();
    stats r{neg_inf(), 0.f};
    if (lane < warps) {
      const float2 p = scratch[parity][lane];
      r = {p.x, p.y};
    }
    return warp_reduce<32>(r);
  }
}

// ---- the register tile -------------------------------------------------------------------
// A thread's share of a row segment: CHUNKS vectors of VEC elements. Vector c of thread t (of NT
// threads sharing the segment) covers elements [begin - head + (c*NT + t)*VEC, ... + VEC): the
// accesses of consecutive threads are consecutive and coalesced. `head` (< VEC) shifts the grid
// so that vectors are aligned when the row pointer is not; elements outside [0, cols) hold -inf
// and are never written.

// Where a row's vectors start. fast: in and out share the same misalignment and the shifted grid
// still covers the row, so whole vectors are accessed aligned; else every element goes alone.
template <typename T, int VEC>
struct row_layout {
  int head;
  bool fast;
  row_layout() = default;
  __device__ __forceinline__ row_layout(const T* in, const T* out, long long cols,
                                        long long capacity) {
    constexpr unsigned long long vb = VEC * sizeof(T);
    const unsigned long long ia = reinterpret_cast<unsigned long long>(in) % vb;
    const unsigned long long oa = reinterpret_cast<unsigned long long>(out) % vb;
    head = static_cast<int>(ia / sizeof(T));
    fast = ia == oa && ia % sizeof(T) == 0 && cols + head <= capacity;
    if (!fast) head = 0;
  }
};

template <typename T, int VEC, int NT, int CHUNKS>
struct tile {
  using vec_t = packed<T, VEC>;
  static constexpr int bytes = vec_t::bytes;
  // 32-bit elements: local_stats replaces each element by its exp2(x*log2e - m_max) in place,
  // and store only rescales it, so each element costs one exp2 instead of two. 16-bit tiles keep
  // their inputs (an exp rounded to 16 bits, then rescaled and rounded again, would lose
  // accuracy) and compute the exp a second time in store.
  static constexpr bool exps_in_place = elem<T>::bits == 32;
  vec_t v[CHUNKS];
  float m_max;  // exps_in_place: the local max (log2 domain) the exps are relative to

  // First element of this thread's vector 0.
  static __device__ __forceinline__ long long first(long long begin, int head, int t) {
    return begin - head + static_cast<long long>(t) * VEC;
  }
  static __device__ __forceinline__ bool whole(long long e0, long long cols, bool fast) {
    return fast && e0 >= 0 && e0 + static_cast<long long>((CHUNKS - 1) * NT + 1) * VEC <= cols;
  }

  __device__ __forceinline__ void load(const T* row, long long begin, long long cols,
                                       row_layout<T, VEC> l, int t) {
    const long long e0 = first(begin, l.head, t);
    if (whole(e0, cols, l.fast)) {
      const T* p = row + e0;
#pragma unroll
      for (int c = 0; c < CHUNKS; ++c) load_vec<bytes>(p + c * NT * VEC, v[c].w);
      return;
    }
#pragma unroll
    for (int c = 0; c < CHUNKS; ++c) {
      const long long e = e0 + static_cast<long long>(c) * NT * VEC;
      if (l.fast && e >= 0 && e + VEC <= cols) {
        load_vec<bytes>(row + e, v[c].w);
      } else {
        v[c].clear();
#pragma unroll
        for (int i = 0; i < VEC; ++i) {
          const long long ei = e + i;
          v[c].or_bits(i, ei >= 0 && ei < cols ? load_elem(row + ei) : elem<T>::neg_inf_bits);
        }
      }
    }
  }

  // This thread's statistics; m is in the log2 domain. Overwrites a 32-bit tile with its exps.
  __device__ __forceinline__ stats local_stats() {
    float m = neg_inf();
    if constexpr (elem<T>::bits == 16 && VEC >= 2) {
      // Packed max of two elements at a time: no float copies of the tile stay alive.
      unsigned acc = elem<T>::neg_inf_bits * 0x10001u;
#pragma unroll
      for (int c = 0; c < CHUNKS; ++c)
#pragma unroll
        for (int k = 0; k < vec_t::words; ++k) acc = max2<T>(acc, v[c].w[k]);
      m = fmaxf(elem<T>::to_float(acc & 0xffffu), elem<T>::to_float(acc >> 16));
    } else {
#pragma unroll
      for (int c = 0; c < CHUNKS; ++c)
#pragma unroll
        for (int i = 0; i < VEC; ++i) m = fmaxf(m, v[c].get(i));
    }
    m *= log2e;
    const float ms = m == neg_inf() ? 0.f : m;  // keeps exp2(-inf - ms) = 0, never NaN
    float s = 0.f;
#pragma unroll
    for (int c = 0; c < CHUNKS; ++c)
#pragma unroll
      for (int i = 0; i < VEC; ++i) {
        const float e = fast_exp2(fmaf(v[c].get(i), log2e, -ms));
        if constexpr (exps_in_place) v[c].w[i] = __float_as_uint(e);
        s += e;
      }
    if constexpr (exps_in_place) m_max = m;
    return {m, s};
  }

  // Writes exp2(x*log2e - r.m) / r.s for every element of the segment inside [0, cols), after
  // local_stats. A 32-bit tile holds e = exp2(x*log2e - m_max) and writes e * exp2(m_max - r.m)
  // / r.s: the same values, -inf rows and segments included (an all -inf segment has m_max =
  // -inf and e = 0, so its scale is 0 * (1 / r.s): 0, or NaN for an all -inf row, as before).
  __device__ __forceinline__ void store(T* row, long long begin, long long cols,
                                        row_layout<T, VEC> l, int t, stats r) const {
    const float m = r.m == neg_inf() ? 0.f : r.m;
    const float inv = 1.f / r.s;
    float scale = inv;
    if constexpr (exps_in_place) scale = (m_max == neg_inf() ? 0.f : fast_exp2(m_max - m)) * inv;
    const long long e0 = first(begin, l.head, t);
    const bool all = whole(e0, cols, l.fast);
#pragma unroll
    for (int c = 0; c < CHUNKS; ++c) {
      float f[VEC];
      if constexpr (exps_in_place) {
#pragma unroll
        for (int i = 0; i < VEC; ++i) f[i] = v[c].get(i) * scale;
      } else {
        // Re-read the packed words opaquely: otherwise the compiler keeps the floats converted
        // by local_stats alive across the reduction, doubling the registers a 16-bit tile takes.
        vec_t x;
#pragma unroll
        for (int k = 0; k < vec_t::words; ++k) asm volatile("mov.b32 %0, %1;" : "=r"(x.w[k]) : "r"(v[c].w[k]));
#pragma unroll
        for (int i = 0; i < VEC; ++i) f[i] = fast_exp2(fmaf(x.get(i), log2e, -m)) * scale;
      }
      vec_t o;
      o.set(f);
      const long long e = e0 + static_cast<long long>(c) * NT * VEC;
      if (all || (l.fast && e >= 0 && e + VEC <= cols)) {
        store_vec<bytes>(row + e, o.w);
      } else {
#pragma unroll
        for (int i = 0; i < VEC; ++i)
          if (e + i >= 0 && e + i < cols) store_elem(row + e + i, o.get_bits(i));
      }
    }
  }
};

// Keeping the next row's tile in flight while the current one is reduced doubles the registers
// a tile takes; do it when both tiles and some overhead still fit the register file at full
// block size (measured overhead: ~60 registers besides the tiles; a fixed function of the template arguments, so a name always means one code).
template <typename T, int VEC, int CHUNKS, int BLOCK_THREADS>
inline constexpr bool prefetch_fits =
    2 * CHUNKS * packed<T, VEC>::words <= 128 &&
    2 * CHUNKS * packed<T, VEC>::words + 64 <= (65536 / BLOCK_THREADS > 255 ? 255 : 65536 / BLOCK_THREADS);

template <typename T>
__device__ __forceinline__ const T* row_ptr(const void* base, long long row, long long stride) {
  return static_cast<const T*>(base) + row * stride;
}
template <typename T>
__device__ __forceinline__ T* row_ptr(void* base, long long row, long long stride) {
  return static_cast<T*>(base) + row * stride;
}

}  // namespace cuop::kernels::softmax::detail
