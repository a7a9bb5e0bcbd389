// A trial runner's device workspace (split-K partials and counters, split_row barriers, cuBLASLt
// scratch): grown when a trial needs more, zeroed before every trial so a wrong candidate never
// leaves stale counters or a broken barrier to the next one.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace cuop::trial {

class trial_workspace {
 public:
  trial_workspace() = default;
  ~trial_workspace() { cudaFree(m_data); }
  trial_workspace(const trial_workspace&) = delete;
  trial_workspace& operator=(const trial_workspace&) = delete;

  // At least `bytes` (none when 0 and nothing was allocated), zeroed on `stream`.
  cudaError_t prepare(std::size_t bytes, cudaStream_t stream);
  void* data() const noexcept { return m_data; }
  std::size_t bytes() const noexcept { return m_bytes; }

 private:
  void* m_data = nullptr;
  std::size_t m_bytes = 0;
};

}  // namespace cuop::trial
