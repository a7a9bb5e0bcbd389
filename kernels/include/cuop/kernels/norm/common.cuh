// Device helpers shared by the row-normalization families: which statistics a kind needs, sums
// over lanes and blocks, where a row's vectors start, and the register tile that every family
// loads (adding the residual when there is one), reduces and writes back normalized.
// Accepted by nvcc and NVRTC alike: no host standard headers.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "cuop/kernels/common/elements.cuh"
#include "cuop/kernels/common/global_access.cuh"
#include "cuop/kernels/norm/args.cuh"

namespace cuop::kernels::norm {

// The template argument KIND of every family (family.hpp's norm_kind).
inline constexpr int layernorm_kind = 0;  // (x - mean) * rstd * weight + bias
inline constexpr int rmsnorm_kind = 1;    // x * rstd * weight, after residual += x when fused

namespace detail {

using common::elem;
using common::packed;

template <int WIDTH>
__device__ __forceinline__ float lane_sum(float v) {
#pragma unroll
  for (int off = WIDTH / 2; off > 0; off /= 2) v += __shfl_xor_sync(0xffffffffu, v, off);
  return v;
}

// Block-wide sum with a single __syncthreads: warps publish to the slot of `scratch` that
// `parity` picks, and every warp sums all slots itself. Flip parity after every call, so that a
// fast warp never overwrites a slot a slow warp still reads. The slots are addressed with 32-bit
// shared-memory addresses: a run-time index into a generic pointer costs 64-bit arithmetic, and
// NVRTC and nvcc lower it differently.
template <int BLOCK_THREADS>
__device__ __forceinline__ float block_sum(float v, float (&scratch)[2][BLOCK_THREADS / 32], int& parity) {
  constexpr int warps = BLOCK_THREADS / 32;
  v = lane_sum<32>(v);
  if constexpr (warps == 1) {
    return v;
  } else {
    const int lane = threadIdx.x % 32;
    const unsigned slots = static_cast<unsigned>(__cvta_generic_to_shared(&scratch[0][0])) +
                           static_cast<unsigned>(parity * warps) * 4u;
    if (lane == 0) asm volatile("st.shared.f32 [%0], %1;" ::"r"(slots + (threadIdx.x / 32) * 4u), "f"(v) : "memory");
    __syncthreads();
    float r = 0.f;
    if (lane < warps) asm volatile("ld.shared.f32 %0, [%1];" : "=f"(r) : "r"(slots + lane * 4u) : "memory");
    parity ^= 1;
    return lane_sum<32>(r);
  }
}

// Parameters (weight, bias) are read by every row: through the non-coherent path and kept in L1,
// unlike the row's own data. Inline PTX rather than __ldg, whose lowering NVRTC and nvcc
// differ on for sm_100a (tests/unit/nvrtc_nvcc_parity_test.cpp).
template <int BYTES>
__device__ __forceinline__ void load_cached(const void* p, unsigned (&w)[BYTES >= 4 ? BYTES / 4 : 1]) {
  if constexpr (BYTES == 16) {
    asm volatile("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3]) : "l"(p));
  } else if constexpr (BYTES == 8) {
    asm volatile("ld.global.nc.v2.u32 {%0, %1}, [%2];" : "=r"(w[0]), "=r"(w[1]) : "l"(p));
  } else if constexpr (BYTES == 4) {
    asm volatile("ld.global.nc.u32 %0, [%1];" : "=r"(w[0]) : "l"(p));
  } else {
    unsigned short h;
    asm volatile("ld.global.nc.u16 %0, [%1];" : "=h"(h) : "l"(p));
    w[0] = h;
  }
}

template <typename T, int VEC>
__device__ __forceinline__ void load_param(const T* p, packed<T, VEC>& v) {
  load_cached<packed<T, VEC>::bytes>(p, v.w);
}

template <typename T>
__device__ __forceinline__ float param_at(const T* p, int i, float none) {
  if (p == nullptr) return none;
  unsigned w[1];
  load_cached<static_cast<int>(sizeof(T))>(p + i, w);
  return elem<T>::to_float(w[0]);
}

// The operands of one row.
template <typename T>
struct row_ptrs {
  const T* x;
  T* y;
  T* residual;  // null: none
  const T* weight;
  const T* bias;
};

template <typename T>
__device__ __forceinline__ row_ptrs<T> row_of(const norm_args& a, long long row) {
  row_ptrs<T> p;
  p.x = static_cast<const T*>(a.x) + row * a.x_stride;
  p.y = static_cast<T*>(a.y) + row * a.y_stride;
  p.residual = a.residual ? static_cast<T*>(a.residual) + row * a.residual_stride : nullptr;
  p.weight = static_cast<const T*>(a.weight);
  p.bias = static_cast<const T*>(a.bias);
  return p;
}

// Where a row's vectors start. Vector k of the row covers elements [k*VEC - head, +VEC). fast:
// the row's own operands (x, y, the residual) share one misalignment, so the shifted grid
// accesses whole aligned vectors of each, and covers the row within `capacity`; else every
// element goes alone. The parameters, read by every row, sit elsewhere on the vector grid when a
// row's length is not a multiple of VEC (every other row of an odd length): their elements for
// vector k start `param_shift` elements into an aligned vector (weight and bias alike, else
// params_whole is false and they go element by element).
template <typename T, int VEC>
struct row_layout {
  int head;
  int param_shift;
  bool fast;
  bool params_whole;
  row_layout() = default;
  // shifted_params false: a row whose parameters lie off its vector grid goes element by element,
  // parameters and data (block_loop: with the shift, nvcc and NVRTC disagreed on its registers,
  // and what ships must be what the tuner compiled).
  __device__ __forceinline__ row_layout(const row_ptrs<T>& p, long long cols, long long capacity,
                                        bool shifted_params = true) {
    constexpr unsigned long long vb = VEC * sizeof(T);
    const auto mis = [](const void* q) { return reinterpret_cast<unsigned long long>(q) % vb; };
    const unsigned long long a = mis(p.x);
    bool same = mis(p.y) == a && a % sizeof(T) == 0;
    if (p.residual) same = same && mis(p.residual) == a;
    if (!shifted_params) {
      if (p.weight) same = same && mis(p.weight) == a;
      if (p.bias) same = same && mis(p.bias) == a;
    }
    head = static_cast<int>(a / sizeof(T));
    fast = same && cols + head <= capacity;
    if (!fast) head = 0;
    if (!shifted_params) {
      params_whole = true;
      param_shift = 0;
      return;
    }
    const unsigned long long w = p.weight ? mis(p.weight) : p.bias ? mis(p.bias) : a;
    params_whole = w % sizeof(T) == 0 && (!p.weight || mis(p.weight) == w) && (!p.bias || mis(p.bias) == w);
    param_shift = static_cast<int>(((w / sizeof(T)) + VEC - static_cast<unsigned long long>(head)) % VEC);
  }
};

// Elements [shift, shift + VEC) of the two vectors lo and hi side by side (0 <= shift < VEC):
// a parameter vector that straddles the grid, from two aligned loads and funnel shifts.
template <typename T, int VEC>
__device__ __forceinline__ packed<T, VEC> straddling(const packed<T, VEC>& lo, const packed<T, VEC>& hi, int shift) {
  using vec_t = packed<T, VEC>;
  constexpr int words = vec_t::words;
  if constexpr (vec_t::bytes < 4) {
    return lo;  // one 16-bit element: never off the grid
  } else {
    unsigned u[2 * words];
#pragma unroll
    for (int i = 0; i < words; ++i) {
      u[i] = lo.w[i];
      u[words + i] = hi.w[i];
    }
    const int bits = shift * static_cast<int>(sizeof(T)) * 8;
    const int q = bits / 32;
    const unsigned b = static_cast<unsigned>(bits % 32);
    vec_t out;
#pragma unroll
    for (int j = 0; j < words; ++j) {
      unsigned x = u[j], y = u[j + 1];
#pragma unroll
      for (int k = 1; k < words; ++k)
        if (q == k) {
          x = u[j + k];
          y = u[j + k + 1];
        }
      out.w[j] = __funnelshift_r(x, y, b);
    }
    return out;
  }
}

// A thread's share of a row segment: CHUNKS vectors of VEC elements. Positions within a row are
// ints (plan_launch refuses rows of 2^31 elements or more): half the registers of 64-bit ones. Vector c of thread t (of NT
// threads sharing the row) covers elements [(c*NT + t)*VEC - head, +VEC): consecutive threads
// access consecutive vectors. Elements outside [0, cols) hold 0 and are never written.
template <int KIND, typename T, int VEC, int NT, int CHUNKS>
struct row_tile {
  using vec_t = packed<T, VEC>;
  static constexpr int bytes = vec_t::bytes;
  vec_t v[CHUNKS];

  static __device__ __forceinline__ int first(int head, int t) {
    return t * VEC - head;
  }
  static __device__ __forceinline__ int at(int e0, int c) { return e0 + c * NT * VEC; }
  // Every vector of the thread is inside the row and aligned.
  static __device__ __forceinline__ bool whole(int e0, int cols, bool fast) {
    return fast && e0 >= 0 && at(e0, CHUNKS - 1) + VEC <= cols;
  }
  static __device__ __forceinline__ bool vector_inside(int e, int cols, bool fast) {
    return fast && e >= 0 && e + VEC <= cols;
  }

  // COHERENT: the data was written earlier by this kernel (block_loop's residual).
  template <bool COHERENT = false>
  static __device__ __forceinline__ void load_one(const T* row, int e, int cols, bool fast, vec_t& out) {
    if (vector_inside(e, cols, fast)) {
      if constexpr (COHERENT) common::load_vec_coherent<bytes>(row + e, out.w);
      else common::load_vec<bytes>(row + e, out.w);
      return;
    }
    out.clear();
#pragma unroll
    for (int i = 0; i < VEC; ++i)
      if (e + i >= 0 && e + i < cols)
        out.or_bits(i, COHERENT ? common::load_elem_coherent(row + e + i) : common::load_elem(row + e + i));
  }

  static __device__ __forceinline__ void store_one(T* row, int e, int cols, bool fast, const vec_t& in) {
    if (vector_inside(e, cols, fast)) {
      common::store_vec<bytes>(row + e, in.w);
      return;
    }
#pragma unroll
    for (int i = 0; i < VEC; ++i)
      if (e + i >= 0 && e + i < cols) common::store_elem(row + e + i, in.get_bits(i));
  }

  // Loads the thread's vectors of x; with a residual, adds it, writes the sum (rounded to T)
  // back to the residual and keeps that sum as the row to normalize. A tile inside the row takes
  // the straight path: whole vectors, no bounds.
  __device__ __forceinline__ void load(const row_ptrs<T>& p, int cols, row_layout<T, VEC> l, int t) {
    const int e0 = first(l.head, t);
    if (whole(e0, cols, l.fast)) {
#pragma unroll
      for (int c = 0; c < CHUNKS; ++c) common::load_vec<bytes>(p.x + at(e0, c), v[c].w);
    } else {
#pragma unroll
      for (int c = 0; c < CHUNKS; ++c) load_one(p.x, at(e0, c), cols, l.fast, v[c]);
    }
    if constexpr (KIND == rmsnorm_kind) {
      if (p.residual == nullptr) return;
#pragma unroll
      for (int c = 0; c < CHUNKS; ++c) {
        vec_t r;
        load_one(p.residual, at(e0, c), cols, l.fast, r);
        float f[VEC];
#pragma unroll
        for (int i = 0; i < VEC; ++i) f[i] = v[c].get(i) + r.get(i);
        v[c].set(f);
        store_one(p.residual, at(e0, c), cols, l.fast, v[c]);
      }
    }
  }

  // Vector c re-read opaquely: otherwise the compiler keeps the floats one pass converted alive
  // across the block's reductions for the next pass, doubling the registers a 16-bit tile takes.
  __device__ __forceinline__ vec_t opaque(int c) const {
    vec_t x;
#pragma unroll
    for (int k = 0; k < vec_t::words; ++k) asm volatile("mov.b32 %0, %1;" : "=r"(x.w[k]) : "r"(v[c].w[k]));
    return x;
  }

  __device__ __forceinline__ float sum() const {
    float s = 0.f;
#pragma unroll
    for (int c = 0; c < CHUNKS; ++c)
#pragma unroll
      for (int i = 0; i < VEC; ++i) s += v[c].get(i);
    return s;
  }

  // Sum of (x - center)^2 over the elements inside the row (padding holds 0, not x).
  __device__ __forceinline__ float sum_sq(float center, int cols, row_layout<T, VEC> l, int t) const {
    const int e0 = first(l.head, t);
    const bool all = whole(e0, cols, l.fast);
    float s = 0.f;
#pragma unroll
    for (int c = 0; c < CHUNKS; ++c) {
      const vec_t x = opaque(c);
#pragma unroll
      for (int i = 0; i < VEC; ++i) {
        const int e = at(e0, c) + i;
        const float d = x.get(i) - center;
        s += all || (e >= 0 && e < cols) ? d * d : 0.f;
      }
    }
    return s;
  }

  // The parameter vector of elements [e, e + VEC): one aligned load, or two and funnel shifts when
  // it straddles the vector grid (shift > 0; the caller checked both loads lie inside the row).
  static __device__ __forceinline__ void load_params(const T* q, int e, int shift, vec_t& out) {
    if (shift == 0) {
      load_param(q + e, out);
      return;
    }
    vec_t lo, hi;
    load_param(q + e - shift, lo);
    load_param(q + e - shift + VEC, hi);
    out = straddling<T, VEC>(lo, hi, shift);
  }

  // Whether the parameters of vector e come as whole vectors: aligned, or straddling with both
  // aligned loads inside [0, cols).
  static __device__ __forceinline__ bool params_fit(int e, int cols, row_layout<T, VEC> l) {
    return l.params_whole && (l.param_shift == 0 || (e - l.param_shift >= 0 && e - l.param_shift + 2 * VEC <= cols));
  }

  // Vector c normalized: (x - center) * rstd * weight + bias, the parameters read as whole
  // vectors at element e (fast: the vector lies inside the row and params_fit) or one by one.
  __device__ __forceinline__ vec_t normalized(int c, const row_ptrs<T>& p, int e, int cols, bool fast,
                                              float center, float rstd, int shift) const {
    float f[VEC];
    const vec_t x = opaque(c);
    if (fast) {
      vec_t w, b;
      if (p.weight) load_params(p.weight, e, shift, w);
      if (KIND == layernorm_kind && p.bias) load_params(p.bias, e, shift, b);
#pragma unroll
      for (int i = 0; i < VEC; ++i) {
        f[i] = (x.get(i) - center) * rstd;
        if (p.weight) f[i] *= w.get(i);
        if (KIND == layernorm_kind && p.bias) f[i] += b.get(i);
      }
    } else {
#pragma unroll
      for (int i = 0; i < VEC; ++i) {
        const int k = e + i >= 0 && e + i < cols ? e + i : 0;
        f[i] = (x.get(i) - center) * rstd * param_at(p.weight, k, 1.f);
        if (KIND == layernorm_kind) f[i] += param_at(p.bias, k, 0.f);
      }
    }
    vec_t o;
    o.set(f);
    return o;
  }

  // y for the thread's elements inside the row.
  __device__ __forceinline__ void store(const row_ptrs<T>& p, int cols, row_layout<T, VEC> l, int t,
                                        float center, float rstd) const {
    const int e0 = first(l.head, t);
    if (whole(e0, cols, l.fast) && l.params_whole && l.param_shift == 0) {
#pragma unroll
      for (int c = 0; c < CHUNKS; ++c) {
        const vec_t o = normalized(c, p, at(e0, c), cols, true, center, rstd, 0);
        common::store_vec<bytes>(p.y + at(e0, c), o.w);
      }
      return;
    }
#pragma unroll
    for (int c = 0; c < CHUNKS; ++c) {
      const int e = at(e0, c);
      const bool inside = vector_inside(e, cols, l.fast);
      store_one(p.y, e, cols, l.fast, normalized(c, p, e, cols, inside && params_fit(e, cols, l), center, rstd, l.param_shift));
    }
  }
};

// The row's statistics from its sums: (center, rstd). LayerNorm centers on the mean and scales
// by 1 / sqrt(biased variance + eps); RMSNorm does not center and scales by 1 / sqrt(mean square
// + eps).
__device__ __forceinline__ float rstd_of(float sum_of_squares, long long cols, float eps) {
  return rsqrtf(sum_of_squares / static_cast<float>(cols) + eps);
}

// Writes the row's statistics where the caller asked for them (a mean for LayerNorm only).
template <int KIND>
__device__ __forceinline__ void write_stats(const norm_args& a, long long row, float mean, float rstd) {
  if (KIND == layernorm_kind && a.mean) a.mean[row] = mean;
  if (a.rstd) a.rstd[row] = rstd;
}

}  // namespace detail
}  // namespace cuop::kernels::norm
