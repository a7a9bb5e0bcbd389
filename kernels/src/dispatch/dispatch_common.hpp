// What the ops' dispatchers share: the current device's identity, CUDA errors as statuses, and
// device buffers kept per (device, stream, purpose).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <map>
#include <mutex>

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
// staged_*: conv2d's aligned copies of tensors that are not 16-byte aligned.
enum class buffer_purpose : int { self_resetting = 0, scratch = 1, staged_x = 2, staged_w = 3, staged_y = 4 };
status buffer_for(std::size_t bytes, cudaStream_t stream, buffer_purpose purpose, void*& out);

// The library's targets at and above sm_90 are arch-specific (sm_90a, sm_100a): their code runs
// on that compute capability only, and their tables may name kernels (thread-block clusters,
// ...) that a device served by portable PTX would not have.
constexpr bool arch_specific_target(int arch) noexcept { return arch >= 90; }

// The architecture whose entries serve compute capability `cc`: its own when the table has any,
// else the nearest lower portable one (sm_80: its SASS on 8.x, its PTX through JIT later); 0
// when none can (a build for sm_100a only on an H200: status no_kernel_image).
template <typename Table>
int table_arch_for(const Table& table, int cc) {
  int best = 0;
  for (const auto& e : table)
    if (e.arch == cc) return cc;
  for (const auto& e : table)
    if (e.arch <= cc && e.arch > best && !arch_specific_target(e.arch)) best = e.arch;
  return best;
}

// A dispatch choice depends only on the call's key: made once by `choose` (a status and a
// Selection), then looked up, so a call costs one map lookup instead of a walk over the table.
// One cache per (Key, Selection) type, shared by all threads.
template <typename Key, typename Selection, typename Choose>
status cached_choice(const Key& key, Selection& out, Choose&& choose) {
  static std::mutex m;
  static std::map<Key, Selection> cache;
  {
    std::lock_guard lock(m);
    if (const auto it = cache.find(key); it != cache.end()) {
      out = it->second;
      return status::success;
    }
  }
  if (auto s = choose(key, out); s != status::success) return s;
  std::lock_guard lock(m);
  cache.emplace(key, out);
  return status::success;
}

}  // namespace cuop::dispatch
