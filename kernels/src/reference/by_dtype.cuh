// Calls f with a value of the C++ element type a dtype names (float, __half, __nv_bfloat16), so
// one templated launch serves every dtype. Shared by the reference kernels.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include "cuop/dtype.hpp"

namespace cuop::reference::detail {

template <typename F>
cudaError_t by_dtype(dtype t, F&& f) {
  switch (t) {
    case dtype::f32: return f(float{});
    case dtype::f16: return f(__half{});
    case dtype::bf16: return f(__nv_bfloat16{});
  }
  return cudaErrorInvalidValue;
}

}  // namespace cuop::reference::detail
