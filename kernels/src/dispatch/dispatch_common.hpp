// What the ops' dispatchers share: the current device's identity, CUDA errors as statuses, and
// device buffers kept per (device, stream, purpose).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "cuop/status.hpp"

namespace cuop::dispatch {

struct device_state {
  int cc = 0;           // 90 for compute capability 9.0
  char name[256] = {};  // cudaDeviceProp::name
};

status to_status(cudaError_t e);

// The current device and its identity (queried once per device).
status current_device(int& device, device_state& state);

// A buffer of at least `bytes` for (current device, stream, purpose), zeroed when (re)allocated.
// Streams get their own so concurrent calls never share one.
enum class buffer_purpose : int { self_resetting = 0, scratch = 1 };
status buffer_for(std::size_t bytes, cudaStream_t stream, buffer_purpose purpose, void*& out);

}  // namespace cuop::dispatch
