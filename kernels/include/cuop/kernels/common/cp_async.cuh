// Asynchronous 16-byte copies from global to shared memory (cp.async, sm_80 and later), shared by
// the kernel families that stage tiles without holding them in registers.
// Accepted by nvcc and NVRTC alike: no host standard headers.
#pragma once

namespace cuop::kernels::common {

// 16-byte asynchronous copy of `full` ? all 16 bytes : none (16 zeros, nothing read); not issued
// at all unless `issue`. `src` must be a valid global address either way.
__device__ __forceinline__ void cp_async_16(unsigned dst, const void* src, bool full, bool issue = true) {
  asm volatile(
      "{\n .reg .pred p;\n setp.ne.b32 p, %3, 0;\n"
      " @p cp.async.cg.shared.global [%0], [%1], 16, %2;\n}\n"
      :: "r"(dst), "l"(src), "r"(full ? 16 : 0), "r"(static_cast<int>(issue)) : "memory");
}
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" :: "n"(N) : "memory");
}

}  // namespace cuop::kernels::common
