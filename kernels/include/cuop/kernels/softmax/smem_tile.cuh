// The shared-memory share of a thread's row segment (block_row's `smem_chunks`): S more vectors
// of VEC elements, right after the CHUNKS vectors the register tile holds, kept in dynamic shared
// memory. A row of 64k f32 does not fit one SM's registers (256 KB) but fits its registers and
// shared memory together, so one block holds the whole row and no block waits on another.
// Whole aligned vectors arrive by cp.async (no registers, all in flight together with the
// register tile's loads); edge vectors go element by element through registers. Each thread
// reads back only the slots it wrote, so no barrier is needed, only cp.async.wait_all.
// 32-bit shared addresses throughout (the NVRTC / nvcc parity note of docs/ARCHITECTURE.md).
#pragma once

#include "cuop/kernels/softmax/common.cuh"

namespace cuop::kernels::softmax::detail {

// The block's dynamic shared memory (one declaration for every family that uses it).
extern __shared__ __align__(16) unsigned char dynamic_smem[];

template <int BYTES>
__device__ __forceinline__ void cp_async(unsigned dst, const void* src) {
  if constexpr (BYTES == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(src) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" :: "r"(dst), "l"(src), "n"(BYTES) : "memory");
}

template <typename V>
__device__ __forceinline__ void st_shared_vec(unsigned a, const V& v) {
  if constexpr (V::bytes == 16)
    asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" :: "r"(a), "r"(v.w[0]), "r"(v.w[1]), "r"(v.w[2]), "r"(v.w[3]) : "memory");
  else if constexpr (V::bytes == 8)
    asm volatile("st.shared.v2.u32 [%0], {%1, %2};" :: "r"(a), "r"(v.w[0]), "r"(v.w[1]) : "memory");
  else if constexpr (V::bytes == 4)
    asm volatile("st.shared.u32 [%0], %1;" :: "r"(a), "r"(v.w[0]) : "memory");
  else
    asm volatile("st.shared.u16 [%0], %1;" :: "r"(a), "h"(static_cast<unsigned short>(v.w[0])) : "memory");
}

template <typename V>
__device__ __forceinline__ V ld_shared_vec(unsigned a) {
  V v;
  if constexpr (V::bytes == 16) {
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.w[0]), "=r"(v.w[1]), "=r"(v.w[2]), "=r"(v.w[3]) : "r"(a) : "memory");
  } else if constexpr (V::bytes == 8) {
    asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(v.w[0]), "=r"(v.w[1]) : "r"(a) : "memory");
  } else if constexpr (V::bytes == 4) {
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v.w[0]) : "r"(a) : "memory");
  } else {
    unsigned short h;
    asm volatile("ld.shared.u16 %0, [%1];" : "=h"(h) : "r"(a) : "memory");
    v.w[0] = h;
  }
  return v;
}

// S vectors per thread of NT threads; vector c of thread t sits at base + (c * NT + t) * bytes
// and covers the elements the register tile's vector CHUNKS + c would (tile::first, with
// `begin` advanced by the register tile's CHUNKS * NT * VEC columns).
template <typename T, int VEC, int NT, int S>
struct smem_tile {
  using vec_t = packed<T, VEC>;
  static constexpr int bytes = vec_t::bytes;
  static constexpr long long block_bytes = static_cast<long long>(S) * NT * bytes;
  unsigned base;

  __device__ __forceinline__ explicit smem_tile(unsigned base_addr) : base(base_addr) {}
  __device__ __forceinline__ unsigned slot(int c, int t) const {
    return base + static_cast<unsigned>((c * NT + t) * bytes);
  }

  // Issues the copies of this thread's vectors; wait() before reading them back.
  __device__ __forceinline__ void load(const T* row, long long begin, long long cols,
                                       row_layout<T, VEC> l, int t) const {
    const long long e0 = begin - l.head + static_cast<long long>(t) * VEC;
#pragma unroll
    for (int c = 0; c < S; ++c) {
      const long long e = e0 + static_cast<long long>(c) * NT * VEC;
      if (bytes >= 4 && l.fast && e >= 0 && e + VEC <= cols) {
        if constexpr (bytes >= 4) cp_async<bytes>(slot(c, t), row + e);
      } else {
        vec_t v;
        v.clear();
#pragma unroll
        for (int i = 0; i < VEC; ++i) {
          const long long ei = e + i;
          v.or_bits(i, ei >= 0 && ei < cols ? load_elem(row + ei) : elem<T>::neg_inf_bits);
        }
        st_shared_vec(slot(c, t), v);
      }
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
  }

  static __device__ __forceinline__ void wait() {
    asm volatile("cp.async.wait_all;" ::: "memory");
  }

  // (max, sum) of this thread's vectors in the log2 domain, like tile::local_stats (inputs kept:
  // store recomputes the exps).
  __device__ __forceinline__ stats local_stats(int t) const {
    float m = neg_inf();
#pragma unroll 2
    for (int c = 0; c < S; ++c) {
      const vec_t v = ld_shared_vec<vec_t>(slot(c, t));
#pragma unroll
      for (int i = 0; i < VEC; ++i) m = fmaxf(m, v.get(i));
    }
    m *= log2e;
    const float ms = m == neg_inf() ? 0.f : m;
    float s = 0.f;
#pragma unroll 2
    for (int c = 0; c < S; ++c) {
      const vec_t v = ld_shared_vec<vec_t>(slot(c, t));
#pragma unroll
      for (int i = 0; i < VEC; ++i) s += fast_exp2(fmaf(v.get(i), log2e, -ms));
    }
    return {m, s};
  }

  // Writes exp2(x*log2e - r.m) / r.s for this thread's elements inside [0, cols).
  __device__ __forceinline__ void store(T* row, long long begin, long long cols,
                                        row_layout<T, VEC> l, int t, stats r) const {
    const float m = r.m == neg_inf() ? 0.f : r.m;
    const float inv = 1.f / r.s;
    const long long e0 = begin - l.head + static_cast<long long>(t) * VEC;
#pragma unroll 2
    for (int c = 0; c < S; ++c) {
      const vec_t x = ld_shared_vec<vec_t>(slot(c, t));
      float f[VEC];
#pragma unroll
      for (int i = 0; i < VEC; ++i) f[i] = fast_exp2(fmaf(x.get(i), log2e, -m)) * inv;
      vec_t o;
      o.set(f);
      const long long e = e0 + static_cast<long long>(c) * NT * VEC;
      if (l.fast && e >= 0 && e + VEC <= cols) {
        store_vec<bytes>(row + e, o.w);
      } else {
#pragma unroll
        for (int i = 0; i < VEC; ++i)
          if (e + i >= 0 && e + i < cols) store_elem(row + e + i, o.get_bits(i));
      }
    }
  }
};

}  // namespace cuop::kernels::softmax::detail
