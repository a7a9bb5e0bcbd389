// Timing one kernel launch at a time with CUDA events: L2 flushed outside the timed region,
// warm-up first, then samples until the median's 95% CI is tight enough or a cap is hit.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <string>
#include <vector>

#include "tuner/spec/spec.hpp"

namespace cuop::measure {

// Reads a buffer of twice the L2 size before each sample, so no sample finds its inputs in cache
// and the cache holds only clean lines: the write-back of the previous launch's dirty lines
// happens here, outside the timed region, instead of being charged to the next sample (which a
// memset flush does: docs/measurement.md).
class l2_flusher {
 public:
  enum class mode { clean_read, dirty_write };  // dirty_write: a memset, as Triton and nvbench do
  explicit l2_flusher(long long l2_bytes, mode m = mode::clean_read);
  ~l2_flusher();
  l2_flusher(const l2_flusher&) = delete;
  l2_flusher& operator=(const l2_flusher&) = delete;
  cudaError_t flush(cudaStream_t stream);
  cudaError_t status() const { return m_status; }

 private:
  void* m_buffer = nullptr;
  std::size_t m_bytes = 0;
  unsigned* m_sink = nullptr;
  mode m_mode;
  unsigned m_value = 0;
  cudaError_t m_status = cudaSuccess;
};

struct timing {
  std::vector<double> samples_us;
  std::string stop_reason;  // "ci", "max_samples", "max_time"
  cudaError_t error = cudaSuccess;
};

using launcher = std::function<cudaError_t(cudaStream_t)>;

// `flusher` may be null (settings.flush_l2 false).
timing time_launches(const launcher& launch, const spec::measure_settings& settings,
                     l2_flusher* flusher, cudaStream_t stream);

}  // namespace cuop::measure
