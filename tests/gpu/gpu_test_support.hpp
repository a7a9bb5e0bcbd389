// Shared by the GPU tests: skip, with the reason, when no CUDA device can be used.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "cuop/dtype.hpp"

namespace cuop::test {

// One element of type `t` at `p` (host memory) as a float: exact for all three types.
inline float host_float(dtype t, const unsigned char* p) {
  if (t == dtype::f32) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  std::uint16_t b;
  std::memcpy(&b, p, 2);
  if (t == dtype::bf16) {
    const std::uint32_t w = static_cast<std::uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &w, 4);
    return f;
  }
  const int exp = (b >> 10) & 0x1f, man = b & 0x3ff;
  const float sign = (b & 0x8000) ? -1.f : 1.f;
  if (exp == 0x1f) return man ? NAN : sign * INFINITY;
  if (exp == 0) return sign * std::ldexp(static_cast<float>(man), -24);  // subnormal
  return sign * std::ldexp(static_cast<float>(man | 0x400), exp - 25);
}

// `count` elements of type `t` copied from the device, as floats (a failed copy fails the test).
inline std::vector<float> to_host(dtype t, const void* device, long long count) {
  std::vector<unsigned char> raw(static_cast<std::size_t>(count) * size_of(t));
  EXPECT_EQ(cudaMemcpy(raw.data(), device, raw.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  std::vector<float> out(static_cast<std::size_t>(count));
  for (long long i = 0; i < count; ++i) out[i] = host_float(t, &raw[i * size_of(t)]);
  return out;
}

// cudaMalloc'd bytes, freed with the object (null for 0 bytes or a failed allocation).
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t bytes) {
    if (bytes > 0 && cudaMalloc(&m_ptr, bytes) != cudaSuccess) m_ptr = nullptr;
  }
  ~device_buffer() { cudaFree(m_ptr); }
  device_buffer(device_buffer&& o) noexcept : m_ptr(o.m_ptr) { o.m_ptr = nullptr; }
  device_buffer& operator=(device_buffer&& o) noexcept {
    std::swap(m_ptr, o.m_ptr);
    return *this;
  }
  void* get() const noexcept { return m_ptr; }
  char* bytes() const noexcept { return static_cast<char*>(m_ptr); }
  // The buffer from byte_offset on, as a T*.
  template <class T = void>
  T* at(std::size_t byte_offset = 0) const noexcept {
    return reinterpret_cast<T*>(bytes() + byte_offset);
  }

 private:
  void* m_ptr = nullptr;
};

// Empty when a device is present, else why not.
inline std::string gpu_unavailable_reason() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) return std::string("no CUDA device: ") + cudaGetErrorString(e);
  if (n == 0) return "no CUDA device: cudaGetDeviceCount returned 0";
  return {};
}

}  // namespace cuop::test

// First statement of every GPU test body.
#define CUOP_REQUIRE_GPU()                                                                      \
  do {                                                                                          \
    if (const std::string cuop_why = ::cuop::test::gpu_unavailable_reason(); !cuop_why.empty()) \
      GTEST_SKIP() << cuop_why;                                                                 \
  } while (0)

#define CUOP_CUDA_ASSERT(expr)                                                     \
  do {                                                                             \
    const cudaError_t cuop_e = (expr);                                             \
    ASSERT_EQ(cuop_e, cudaSuccess) << #expr << ": " << cudaGetErrorString(cuop_e); \
  } while (0)
