// Element helpers shared by the kernel families of every op: the bits of one element, -inf,
// T <-> float conversions, and VEC elements packed into 32-bit words.
// Accepted by nvcc and NVRTC alike: no host standard headers.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace cuop::kernels::common {

template <typename T> struct elem;
template <typename T> inline constexpr bool is_bf16 = false;
template <> inline constexpr bool is_bf16<__nv_bfloat16> = true;

template <> struct elem<float> {
  static constexpr int bits = 32;
  static constexpr unsigned neg_inf_bits = 0xff800000u;
  static __device__ __forceinline__ float to_float(unsigned b) { return __uint_as_float(b); }
  static __device__ __forceinline__ unsigned from_float(float f) { return __float_as_uint(f); }
};

template <> struct elem<__half> {
  static constexpr int bits = 16;
  static constexpr unsigned neg_inf_bits = 0xfc00u;
  static __device__ __forceinline__ float to_float(unsigned b) {
    return __half2float(__ushort_as_half(static_cast<unsigned short>(b)));
  }
  static __device__ __forceinline__ unsigned from_float(float f) {
    return __half_as_ushort(__float2half_rn(f));
  }
  static __device__ __forceinline__ unsigned pack2(float lo, float hi) {
    __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const unsigned*>(&h);
  }
};

template <> struct elem<__nv_bfloat16> {
  static constexpr int bits = 16;
  static constexpr unsigned neg_inf_bits = 0xff80u;
  static __device__ __forceinline__ float to_float(unsigned b) { return __uint_as_float(b << 16); }
  static __device__ __forceinline__ unsigned from_float(float f) {
    return __bfloat16_as_ushort(__float2bfloat16_rn(f));
  }
  static __device__ __forceinline__ unsigned pack2(float lo, float hi) {
    __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const unsigned*>(&h);
  }
};

// VEC elements of T packed into 32-bit words (16-bit types two to a word), so a register holds
// two f16/bf16 values: rows held in registers cost half as many registers as floats would.
template <typename T, int VEC> struct packed {
  static constexpr int bytes = VEC * static_cast<int>(sizeof(T));
  static constexpr int words = bytes >= 4 ? bytes / 4 : 1;
  static_assert(bytes == 2 || bytes == 4 || bytes == 8 || bytes == 16, "vector of 2..16 bytes");
  unsigned w[words];

  __device__ __forceinline__ unsigned get_bits(int i) const {
    if constexpr (elem<T>::bits == 32) return w[i];
    else return (w[i / 2] >> (16 * (i % 2))) & 0xffffu;
  }
  __device__ __forceinline__ float get(int i) const {
    if constexpr (elem<T>::bits == 32) return __uint_as_float(w[i]);
    else if constexpr (is_bf16<T>)  // bf16 -> f32 is a shift
      return __uint_as_float(i % 2 ? (w[i / 2] & 0xffff0000u) : (w[i / 2] << 16));
    else return elem<T>::to_float(get_bits(i));
  }
  // Sets every element from f[0..VEC).
  __device__ __forceinline__ void set(const float (&f)[VEC]) {
    if constexpr (elem<T>::bits == 32) {
#pragma unroll
      for (int i = 0; i < VEC; ++i) w[i] = __float_as_uint(f[i]);
    } else if constexpr (VEC == 1) {
      w[0] = elem<T>::from_float(f[0]);
    } else {
#pragma unroll
      for (int i = 0; i < VEC / 2; ++i) w[i] = elem<T>::pack2(f[2 * i], f[2 * i + 1]);
    }
  }
  __device__ __forceinline__ void clear() {
#pragma unroll
    for (int i = 0; i < words; ++i) w[i] = 0;
  }
  __device__ __forceinline__ void or_bits(int i, unsigned b) {
    if constexpr (elem<T>::bits == 32) w[i] = b;
    else w[i / 2] |= b << (16 * (i % 2));
  }
};

}  // namespace cuop::kernels::common
