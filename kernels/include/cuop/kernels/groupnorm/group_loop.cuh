// GroupNorm family group_loop: one block of BLOCK_THREADS per group (c / groups channels of one
// sample over every spatial position), which it walks twice in units of VEC elements: the first
// pass takes the statistics, each unit's mean and squared deviations merged into its thread's
// (Chan's update) and then across the block exactly; the second reads the group again, mostly
// from L2, and writes it normalized, scaled and shifted per channel, and with SILU through
// x * sigmoid(x). LAYOUT nchw_layout: a group is one contiguous span, a channel every hw
// elements; nhwc_layout: a group is hw runs of c / groups channels, c elements apart. Units are
// whole VEC-vectors when the layout lets every one be aligned (hw, or the group's channels, a
// multiple of VEC; aligned pointers), else single elements.
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

// Where a group's units lie: unit u (of U elements) starts at element offset(u) of the group's
// base and belongs to channel channel(u) (its first element's; in NHWC, element i of the unit is
// channel channel(u) + i).
template <int LAYOUT>
struct group_view {
  long long base;  // element offset of the group in the tensor
  long long c;     // channels of the tensor
  int cg;          // channels of the group
  int hw;          // spatial positions
  int channel0;    // the group's first channel
  __device__ __forceinline__ group_view(const groupnorm_args& a, int group) {
    const int n = group / a.groups, g = group - n * a.groups;
    c = a.c;
    cg = static_cast<int>(a.c) / a.groups;  // c < 2^31 (check_shape)
    hw = static_cast<int>(a.hw);
    channel0 = g * cg;
    base = LAYOUT == nchw_layout ? (n * a.c + channel0) * a.hw : static_cast<long long>(n) * a.hw * a.c + channel0;
  }
  // Positions within a group are ints (check_shape refuses groups of 2^31 elements or more).
  template <int U>
  __device__ __forceinline__ long long offset(int u) const {
    if constexpr (LAYOUT == nchw_layout) {
      return static_cast<long long>(u) * U;
    } else {
      const int per_position = cg / U, p = u / per_position;
      return static_cast<long long>(p) * c + (u - p * per_position) * U;
    }
  }
  template <int U>
  __device__ __forceinline__ int channel(int u) const {
    if constexpr (LAYOUT == nchw_layout) return channel0 + u * U / hw;
    else return channel0 + u % (cg / U) * U;
  }
};

// Every unit of every group is a whole aligned VEC-vector: the layout's run length is a multiple
// of VEC and the pointers (the parameters too, in NHWC, where they are read as vectors) aligned.
template <typename T, int VEC, int LAYOUT>
__device__ __forceinline__ bool vectors_fit(const groupnorm_args& a) {
  constexpr unsigned long long bytes = VEC * sizeof(T);
  const auto aligned = [](const void* p) { return reinterpret_cast<unsigned long long>(p) % bytes == 0; };
  if (!aligned(a.x) || !aligned(a.y)) return false;
  if constexpr (LAYOUT == nchw_layout) return a.hw % VEC == 0;
  else return static_cast<int>(a.c) / a.groups % VEC == 0 && (!a.weight || aligned(a.weight)) && (!a.bias || aligned(a.bias));
}

__device__ __forceinline__ float silu(float v) { return v / (1.f + __expf(-v)); }

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
  template <int U>
  static __device__ void walk(const groupnorm_args& a) {
    using unit_t = detail::packed<T, U>;
    __shared__ float scratch[2][BLOCK_THREADS / 32];
    int parity = 0;
    const T* x = static_cast<const T*>(a.x);
    T* y = static_cast<T*>(a.y);
    const int t = static_cast<int>(threadIdx.x);
    const int groups = static_cast<int>(a.n * a.groups);  // < 2^31 (check_shape)
    for (int group = static_cast<int>(blockIdx.x); group < groups; group += static_cast<int>(gridDim.x)) {
      const detail::group_view<LAYOUT> v(a, group);
      const int units = v.cg * v.hw / U;
      // Each thread's count, mean and sum of squared deviations, unit by unit (Chan's update);
      // then the group's mean, and its squared deviations as each thread's plus its mean's offset.
      float count = 0.f, mean = 0.f, m2 = 0.f;
      for (int u = t; u < units; u += BLOCK_THREADS) {
        unit_t x_u;
        common::load_vec<unit_t::bytes>(x + v.base + v.template offset<U>(u), x_u.w);
        float s = 0.f;
#pragma unroll
        for (int i = 0; i < U; ++i) s += x_u.get(i);
        const float umean = s / U;
        float us2 = 0.f;
#pragma unroll
        for (int i = 0; i < U; ++i) us2 += (x_u.get(i) - umean) * (x_u.get(i) - umean);
        const float delta = umean - mean, total = count + U;
        m2 += us2 + delta * delta * (count * U / total);
        mean += delta * (U / total);
        count = total;
      }
      const float n_group = static_cast<float>(v.cg) * static_cast<float>(v.hw);
      const float center = norm::detail::block_sum<BLOCK_THREADS>(count * mean, scratch, parity) / n_group;
      const float offset = mean - center;
      const float m2_group = norm::detail::block_sum<BLOCK_THREADS>(m2 + count * offset * offset, scratch, parity);
      const float rstd = rsqrtf(m2_group / n_group + a.eps);
      for (int u = t; u < units; u += BLOCK_THREADS) {
        const long long at = v.base + v.template offset<U>(u);
        const int ch = v.template channel<U>(u);
        unit_t x_u, w_u, b_u;
        common::load_vec<unit_t::bytes>(x + at, x_u.w);
        float f[U];
        if constexpr (LAYOUT == nhwc_layout && U > 1) {  // U channels: parameters as vectors
          if (a.weight) norm::detail::load_param(static_cast<const T*>(a.weight) + ch, w_u);
          if (a.bias) norm::detail::load_param(static_cast<const T*>(a.bias) + ch, b_u);
#pragma unroll
          for (int i = 0; i < U; ++i) {
            f[i] = (x_u.get(i) - center) * rstd;
            if (a.weight) f[i] *= w_u.get(i);
            if (a.bias) f[i] += b_u.get(i);
          }
        } else {  // one channel
          const float w = norm::detail::param_at(static_cast<const T*>(a.weight), ch, 1.f);
          const float b = norm::detail::param_at(static_cast<const T*>(a.bias), ch, 0.f);
#pragma unroll
          for (int i = 0; i < U; ++i) f[i] = (x_u.get(i) - center) * rstd * w + b;
        }
        if constexpr (SILU != 0) {
#pragma unroll
          for (int i = 0; i < U; ++i) f[i] = detail::silu(f[i]);
        }
        unit_t o;
        o.set(f);
        common::store_vec<unit_t::bytes>(y + at, o.w);
      }
      if (t == 0) {
        if (a.mean) a.mean[group] = center;
        if (a.rstd) a.rstd[group] = rstd;
      }
    }
  }
};

}  // namespace cuop::kernels::groupnorm
