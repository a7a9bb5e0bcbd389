// GroupNorm family group_loop: one block of BLOCK_THREADS per group (c / groups channels of one
// sample over every spatial position), which it walks twice in aligned VEC-vectors: the first
// pass takes the statistics, each vector's mean and squared deviations merged into its thread's
// (Chan's update) and then across the block exactly; the second reads the group again, mostly
// from L2, and writes it normalized, scaled and shifted per channel, and with SILU through
// x * sigmoid(x). Each thread keeps several vectors in flight (group_passes::unroll): a block
// per group may be alone on its SM.
// LAYOUT nchw_layout: a group is one contiguous span, a channel every hw elements;
// nhwc_layout: a group is hw runs of c / groups channels, c elements apart. Each run (the span
// in NCHW) is covered by the aligned vectors that touch it: lanes outside it belong to the
// neighbouring groups, are read (within the tensor) but neither counted nor written, so runs of
// any length and offset take whole vectors. Vectors need x and y aligned to VEC elements (and, in
// NHWC, c a multiple of VEC and the parameters aligned, read as vectors); else VEC is 1.
// Grid: 1-D, strided over the n x groups groups.
#pragma once

#include "cuop/kernels/groupnorm/args.cuh"
#include "cuop/kernels/norm/common.cuh"

namespace cuop::kernels::groupnorm {

// The LAYOUT template argument (family.hpp's layout, the same values as conv's).
inline constexpr int nhwc_layout = 0;
inline constexpr int nchw_layout = 1;

namespace detail {

using common::packed;

// Where a group lies: `runs` runs of run_len elements, run_stride apart, from element `base` of
// the tensor (NCHW: one run; NHWC: hw runs of cg channels). Positions within a group are ints
// (check_shape refuses groups of 2^31 elements or more).
template <int LAYOUT>
struct group_view {
  long long base;        // element offset of the group in the tensor
  long long run_stride;  // elements between runs (NHWC: c)
  int cg;                // channels of the group
  int hw;                // spatial positions
  int channel0;          // the group's first channel
  int run_len;
  __device__ __forceinline__ group_view(const groupnorm_args& a, int group) {
    const int n = group / a.groups, g = group - n * a.groups;
    cg = static_cast<int>(a.c) / a.groups;  // c < 2^31 (check_shape)
    hw = static_cast<int>(a.hw);
    channel0 = g * cg;
    if constexpr (LAYOUT == nchw_layout) {
      base = (n * a.c + channel0) * a.hw;
      run_stride = 0;
      run_len = cg * hw;
    } else {
      base = static_cast<long long>(n) * a.hw * a.c + channel0;
      run_stride = a.c;
      run_len = cg;
    }
  }
  __device__ __forceinline__ int runs() const { return LAYOUT == nchw_layout ? 1 : hw; }
};

// The aligned VEC-vectors that cover each run: vector j of run r starts `head` elements before
// the run's j * VEC-th element. Every run shares head and the count, since NHWC's run stride is
// a multiple of VEC (vectors_fit).
template <int LAYOUT, int VEC>
struct covering {
  int head;     // lanes of a run's first vector before the run
  int per_run;  // vectors per run
  int units;    // vectors of the group
  __device__ __forceinline__ explicit covering(const group_view<LAYOUT>& v) {
    head = static_cast<int>(v.base % VEC);
    per_run = (head + v.run_len + VEC - 1) / VEC;
    units = per_run * v.runs();
  }
  // Unit u: the tensor offset of its vector and its first lane's position in its run.
  __device__ __forceinline__ void locate(const group_view<LAYOUT>& v, int u, long long& at, int& lane0) const {
    const int r = LAYOUT == nchw_layout ? 0 : u / per_run, j = u - r * per_run;
    lane0 = j * VEC - head;
    at = v.base + r * v.run_stride + lane0;
  }
};

// Every vector is aligned: the pointers (and the parameters, read as vectors in NHWC) aligned to
// VEC elements, and in NHWC the run stride c a multiple of VEC.
template <typename T, int VEC, int LAYOUT>
__device__ __forceinline__ bool vectors_fit(const groupnorm_args& a) {
  constexpr unsigned long long bytes = VEC * sizeof(T);
  const auto aligned = [](const void* p) { return reinterpret_cast<unsigned long long>(p) % bytes == 0; };
  if (!aligned(a.x) || !aligned(a.y)) return false;
  if constexpr (LAYOUT == nchw_layout) return true;
  else return a.c % VEC == 0 && (!a.weight || aligned(a.weight)) && (!a.bias || aligned(a.bias));
}

__device__ __forceinline__ float silu(float v) { return v / (1.f + __expf(-v)); }

// Lane i of a vector whose first lane is at run position lane0 lies in the run.
__device__ __forceinline__ bool in_run(int lane0, int i, int run_len) {
  return lane0 + i >= 0 && lane0 + i < run_len;
}

// Loads the vector at tensor offset `at`: whole when it lies inside the tensor (NHWC's always
// do; NCHW's last one may not), else the lanes inside the run one by one (the others 0).
template <typename T, int U>
__device__ __forceinline__ void load_unit(const T* x, long long at, int lane0, int run_len, long long total,
                                          packed<T, U>& out) {
  if (at + U <= total) {
    common::load_vec<packed<T, U>::bytes>(x + at, out.w);
    return;
  }
  out.clear();
#pragma unroll
  for (int i = 0; i < U; ++i)
    if (in_run(lane0, i, run_len)) out.or_bits(i, common::load_elem(x + at + i));
}

// Writes the lanes of the run: the vector whole when every lane is in it.
template <typename T, int U>
__device__ __forceinline__ void store_unit(T* y, long long at, int lane0, int run_len, const packed<T, U>& in) {
  if (lane0 >= 0 && lane0 + U <= run_len) {
    common::store_vec<packed<T, U>::bytes>(y + at, in.w);
    return;
  }
#pragma unroll
  for (int i = 0; i < U; ++i)
    if (in_run(lane0, i, run_len)) common::store_elem(y + at + i, in.get_bits(i));
}

}  // namespace detail

namespace detail {

// The two passes over a group's vectors that every GroupNorm family makes, each thread taking
// units first, first + step, ... with `unroll` of them loaded before any is used.
template <typename T, int LAYOUT, int SILU>
struct group_passes {
  static constexpr int unroll = 4;  // vectors a thread has in flight

  template <int U>
  using unit_t = packed<T, U>;

  // The thread's count, mean and sum of squared deviations over its vectors' lanes in the group,
  // vector by vector (Chan's update).
  template <int U>
  static __device__ __forceinline__ void thread_stats(const groupnorm_args& a, const group_view<LAYOUT>& v,
                                                      const covering<LAYOUT, U>& cover, int first, int step,
                                                      float& count, float& mean, float& m2) {
    const T* x = static_cast<const T*>(a.x);
    const long long total = a.n * a.c * a.hw;
    count = 0.f, mean = 0.f, m2 = 0.f;
    for (int u0 = first; u0 < cover.units; u0 += unroll * step) {
      unit_t<U> x_u[unroll];
      int lane0[unroll];
#pragma unroll
      for (int k = 0; k < unroll; ++k) {
        const int u = u0 + k * step;
        long long at = 0;
        lane0[k] = v.run_len;  // no lane in the run
        if (u < cover.units) {
          cover.locate(v, u, at, lane0[k]);
          load_unit(x, at, lane0[k], v.run_len, total, x_u[k]);
        }
      }
#pragma unroll
      for (int k = 0; k < unroll; ++k) {
        float s = 0.f, in = 0.f;
#pragma unroll
        for (int i = 0; i < U; ++i) {
          const bool inside = in_run(lane0[k], i, v.run_len);
          s += inside ? x_u[k].get(i) : 0.f;
          in += inside ? 1.f : 0.f;
        }
        if (in == 0.f) continue;
        const float umean = s / in;
        float us2 = 0.f;
#pragma unroll
        for (int i = 0; i < U; ++i) {
          const float d = x_u[k].get(i) - umean;
          us2 += in_run(lane0[k], i, v.run_len) ? d * d : 0.f;
        }
        const float delta = umean - mean, merged = count + in;
        m2 += us2 + delta * delta * (count * in / merged);
        mean += delta * (in / merged);
        count = merged;
      }
    }
  }

  // The second pass: each lane normalized, scaled and shifted by its channel's parameters, and
  // with SILU through x * sigmoid(x).
  template <int U>
  static __device__ __forceinline__ void normalize(const groupnorm_args& a, const group_view<LAYOUT>& v,
                                                   const covering<LAYOUT, U>& cover, int first, int step,
                                                   float center, float rstd) {
    const T* x = static_cast<const T*>(a.x);
    T* y = static_cast<T*>(a.y);
    const long long total = a.n * a.c * a.hw;
    for (int u0 = first; u0 < cover.units; u0 += unroll * step) {
      unit_t<U> x_u[unroll];
      long long at[unroll];
      int lane0[unroll];
#pragma unroll
      for (int k = 0; k < unroll; ++k) {
        const int u = u0 + k * step;
        at[k] = 0;
        lane0[k] = v.run_len;
        if (u < cover.units) {
          cover.locate(v, u, at[k], lane0[k]);
          load_unit(x, at[k], lane0[k], v.run_len, total, x_u[k]);
        }
      }
#pragma unroll
      for (int k = 0; k < unroll; ++k) {
        if (lane0[k] >= v.run_len) continue;
        float f[U];
        affine<U>(a, v, lane0[k], x_u[k], center, rstd, f);
        if constexpr (SILU != 0) {
#pragma unroll
          for (int i = 0; i < U; ++i) f[i] = silu(f[i]);
        }
        unit_t<U> o;
        o.set(f);
        store_unit(y, at[k], lane0[k], v.run_len, o);
      }
    }
  }

  // f[i] = (x_i - center) * rstd * weight[channel of lane i] + bias[...]. NHWC: the lanes are
  // consecutive channels, the parameters read as one aligned vector from the first lane's
  // channel (inside [0, c): the vector lies in a run of c channels). NCHW: a lane's channel is
  // its run position / hw, one boundary at most between consecutive lanes.
  template <int U>
  static __device__ __forceinline__ void affine(const groupnorm_args& a, const group_view<LAYOUT>& v, int lane0,
                                                const unit_t<U>& x_u, float center, float rstd, float (&f)[U]) {
    const T* weight = static_cast<const T*>(a.weight);
    const T* bias = static_cast<const T*>(a.bias);
    if constexpr (LAYOUT == nhwc_layout && U > 1) {
      unit_t<U> w_u, b_u;
      const int ch = v.channel0 + lane0;
      if (weight) norm::detail::load_param(weight + ch, w_u);
      if (bias) norm::detail::load_param(bias + ch, b_u);
#pragma unroll
      for (int i = 0; i < U; ++i) {
        f[i] = (x_u.get(i) - center) * rstd;
        if (weight) f[i] *= w_u.get(i);
        if (bias) f[i] += b_u.get(i);
      }
    } else if constexpr (LAYOUT == nhwc_layout) {
      const int ch = v.channel0 + lane0;
      f[0] = (x_u.get(0) - center) * rstd * norm::detail::param_at(weight, ch, 1.f) +
             norm::detail::param_at(bias, ch, 0.f);
    } else {
      int in_group = max(lane0, 0) / v.hw;  // the channel of the first lane in the run
      int next = (in_group + 1) * v.hw;     // run position where the next channel starts
      float w = norm::detail::param_at(weight, v.channel0 + in_group, 1.f);
      float b = norm::detail::param_at(bias, v.channel0 + in_group, 0.f);
#pragma unroll
      for (int i = 0; i < U; ++i) {
        if (lane0 + i >= next && lane0 + i < v.run_len) {
          ++in_group;
          next += v.hw;
          w = norm::detail::param_at(weight, v.channel0 + in_group, 1.f);
          b = norm::detail::param_at(bias, v.channel0 + in_group, 0.f);
        }
        f[i] = (x_u.get(i) - center) * rstd * w + b;
      }
    }
  }
};

}  // namespace detail

template <typename T, int VEC, int BLOCK_THREADS, int LAYOUT, int SILU>
struct group_loop {
  static constexpr int block_threads = BLOCK_THREADS;
  static_assert(BLOCK_THREADS % 32 == 0 && BLOCK_THREADS <= 1024, "whole warps, <= 1024 threads");
  static_assert(LAYOUT == nhwc_layout || LAYOUT == nchw_layout, "layout: nhwc_layout or nchw_layout");

  static __device__ void run(const groupnorm_args& a) {
    if (detail::vectors_fit<T, VEC, LAYOUT>(a)) walk<VEC>(a);
    else walk<1>(a);
  }

 private:
  using passes = detail::group_passes<T, LAYOUT, SILU>;

  template <int U>
  static __device__ void walk(const groupnorm_args& a) {
    __shared__ float scratch[2][BLOCK_THREADS / 32];
    int parity = 0;
    const int t = static_cast<int>(threadIdx.x);
    const int groups = static_cast<int>(a.n * a.groups);  // < 2^31 (check_shape)
    for (int group = static_cast<int>(blockIdx.x); group < groups; group += static_cast<int>(gridDim.x)) {
      const detail::group_view<LAYOUT> v(a, group);
      const detail::covering<LAYOUT, U> cover(v);
      // The group's mean, then its squared deviations as each thread's plus its mean's offset.
      float count, mean, m2;
      passes::template thread_stats<U>(a, v, cover, t, BLOCK_THREADS, count, mean, m2);
      const float n_group = static_cast<float>(v.cg) * static_cast<float>(v.hw);
      const float center = norm::detail::block_sum<BLOCK_THREADS>(count * mean, scratch, parity) / n_group;
      const float offset = mean - center;
      const float m2_group = norm::detail::block_sum<BLOCK_THREADS>(m2 + count * offset * offset, scratch, parity);
      const float rstd = rsqrtf(m2_group / n_group + a.eps);
      passes::template normalize<U>(a, v, cover, t, BLOCK_THREADS, center, rstd);
      if (t == 0) {
        if (a.mean) a.mean[group] = center;
        if (a.rstd) a.rstd[group] = rstd;
      }
    }
  }
};

}  // namespace cuop::kernels::groupnorm
