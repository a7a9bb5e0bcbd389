#include "dispatch_common.hpp"

#include <cstring>
#include <map>
#include <mutex>
#include <tuple>
#include <utility>

namespace cuop::dispatch {

status to_status(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return status::success;
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorInvalidKernelImage: return status::no_kernel_image;
    case cudaErrorMemoryAllocation: return status::out_of_memory;
    case cudaErrorLaunchOutOfResources:
    case cudaErrorInvalidConfiguration:
    case cudaErrorCooperativeLaunchTooLarge: return status::launch_failed;
    default: return status::cuda_error;
  }
}

status current_device(int& device, device_state& state) {
  if (cudaGetDevice(&device) != cudaSuccess) return status::cuda_error;
  static std::mutex m;
  static std::map<int, device_state> cache;
  std::lock_guard lock(m);
  auto it = cache.find(device);
  if (it == cache.end()) {
    cudaDeviceProp p{};
    if (auto e = cudaGetDeviceProperties(&p, device); e != cudaSuccess) return to_status(e);
    device_state s;
    s.cc = p.major * 10 + p.minor;
    std::strncpy(s.name, p.name, sizeof(s.name) - 1);
    it = cache.emplace(device, s).first;
  }
  state = it->second;
  return status::success;
}

status buffer_for(std::size_t bytes, cudaStream_t stream, buffer_purpose purpose, void*& out) {
  static std::mutex m;
  static std::map<std::tuple<int, cudaStream_t, buffer_purpose>, std::pair<void*, std::size_t>> cache;
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return status::cuda_error;
  std::lock_guard lock(m);
  auto& slot = cache[{device, stream, purpose}];
  if (slot.second < bytes) {
    if (slot.first) {
      // The old buffer may still be in use by work queued on the stream.
      if (cudaStreamSynchronize(stream) != cudaSuccess) return status::cuda_error;
      cudaFree(slot.first);
    }
    slot = {nullptr, 0};
    if (cudaMalloc(&slot.first, bytes) != cudaSuccess) return status::out_of_memory;
    if (cudaMemset(slot.first, 0, bytes) != cudaSuccess) return status::cuda_error;
    slot.second = bytes;
  }
  out = slot.first;
  return status::success;
}

}  // namespace cuop::dispatch
