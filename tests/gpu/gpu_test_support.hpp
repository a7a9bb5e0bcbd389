// Shared by the GPU tests: skip, with the reason, when no CUDA device can be used.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <string>

namespace cuop::test {

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
#define CUOP_REQUIRE_GPU()                                                          \
  do {                                                                              \
    if (const std::string cuop_why = ::cuop::test::gpu_unavailable_reason();        \
        !cuop_why.empty())                                                          \
      GTEST_SKIP() << cuop_why;                                                     \
  } while (0)

#define CUOP_CUDA_ASSERT(expr)                                                      \
  do {                                                                              \
    const cudaError_t cuop_e = (expr);                                              \
    ASSERT_EQ(cuop_e, cudaSuccess) << #expr << ": " << cudaGetErrorString(cuop_e);  \
  } while (0)
