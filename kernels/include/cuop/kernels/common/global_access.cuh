// Vector and scalar global accesses with the hints memory-bound kernels want, shared by every op:
// loads of data read once bypass L1 through the non-coherent path, stores are streaming
// (evict-first), and `load_vec_coherent` reads what the same kernel wrote earlier (the
// non-coherent path may not see it).
// Accepted by nvcc and NVRTC alike: no host standard headers.
#pragma once

namespace cuop::kernels::common {

template <int BYTES>
__device__ __forceinline__ void load_vec(const void* p, unsigned (&w)[BYTES >= 4 ? BYTES / 4 : 1]) {
  if constexpr (BYTES == 16) {
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3]) : "l"(p));
  } else if constexpr (BYTES == 8) {
    asm volatile("ld.global.nc.L1::no_allocate.v2.u32 {%0, %1}, [%2];"
                 : "=r"(w[0]), "=r"(w[1]) : "l"(p));
  } else if constexpr (BYTES == 4) {
    asm volatile("ld.global.nc.L1::no_allocate.u32 %0, [%1];" : "=r"(w[0]) : "l"(p));
  } else {
    unsigned short h;
    asm volatile("ld.global.nc.L1::no_allocate.u16 %0, [%1];" : "=h"(h) : "l"(p));
    w[0] = h;
  }
}

template <int BYTES>
__device__ __forceinline__ void load_vec_coherent(const void* p, unsigned (&w)[BYTES >= 4 ? BYTES / 4 : 1]) {
  if constexpr (BYTES == 16) {
    asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3]) : "l"(p) : "memory");
  } else if constexpr (BYTES == 8) {
    asm volatile("ld.global.cg.v2.u32 {%0, %1}, [%2];" : "=r"(w[0]), "=r"(w[1]) : "l"(p) : "memory");
  } else if constexpr (BYTES == 4) {
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(w[0]) : "l"(p) : "memory");
  } else {
    unsigned short h;
    asm volatile("ld.global.cg.u16 %0, [%1];" : "=h"(h) : "l"(p) : "memory");
    w[0] = h;
  }
}

template <int BYTES>
__device__ __forceinline__ void store_vec(void* p, const unsigned (&w)[BYTES >= 4 ? BYTES / 4 : 1]) {
  if constexpr (BYTES == 16) {
    asm volatile("st.global.cs.v4.u32 [%0], {%1, %2, %3, %4};"
                 :: "l"(p), "r"(w[0]), "r"(w[1]), "r"(w[2]), "r"(w[3]) : "memory");
  } else if constexpr (BYTES == 8) {
    asm volatile("st.global.cs.v2.u32 [%0], {%1, %2};" :: "l"(p), "r"(w[0]), "r"(w[1]) : "memory");
  } else if constexpr (BYTES == 4) {
    asm volatile("st.global.cs.u32 [%0], %1;" :: "l"(p), "r"(w[0]) : "memory");
  } else {
    asm volatile("st.global.cs.u16 [%0], %1;"
                 :: "l"(p), "h"(static_cast<unsigned short>(w[0])) : "memory");
  }
}

template <typename T>
__device__ __forceinline__ unsigned load_elem(const T* p) {
  unsigned w[1];
  load_vec<static_cast<int>(sizeof(T))>(p, w);
  return w[0];
}

template <typename T>
__device__ __forceinline__ unsigned load_elem_coherent(const T* p) {
  unsigned w[1];
  load_vec_coherent<static_cast<int>(sizeof(T))>(p, w);
  return w[0];
}

template <typename T>
__device__ __forceinline__ void store_elem(T* p, unsigned bits) {
  unsigned w[1] = {bits};
  store_vec<static_cast<int>(sizeof(T))>(p, w);
}

}  // namespace cuop::kernels::common
