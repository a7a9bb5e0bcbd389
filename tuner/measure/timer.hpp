// Timing a kernel with CUDA events: L2 flushed outside the timed region, warm-up until the SM clock
// and the launch times have settled (capped), then samples until the median's 95% CI is tight
// enough, stops narrowing, or a cap is hit. Kernels under `batch_below_us` are timed as CUDA
// graphs of several launches over rotated buffer sets when the op provides them.
// docs/measurement.md says what is done and why.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "tuner/measure/settings.hpp"

namespace cuop::measure {

class sm_clock;

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
  std::vector<double> clocks_mhz;  // per sample, 0 when unknown
  std::string stop_reason;         // "ci", "stable_noise", "max_samples", "max_time"
  double warmup_ms = 0;            // warm-up spent before the first kept sample
  int warmup_launches = 0;
  bool warmup_capped = false;         // the warm-up cap ended it before the clock settled
  int batch = 1;                      // launches per sample (a CUDA graph when > 1)
  int buffer_sets = 1;                // buffer sets the batched launches rotated over
  std::string clock_source = "none";  // "nvml", "globaltimer", "none"
  std::string note;                   // e.g. why a short kernel was not batched
  cudaError_t error = cudaSuccess;
};

using launcher = std::function<cudaError_t(cudaStream_t)>;

// An op's cooperation for batched timing: independent buffer sets, each holding everything one
// launch reads and writes, so consecutive launches in a graph find their data cold.
struct buffer_rotation {
  std::size_t set_bytes = 0;                                 // bytes one launch's set holds
  std::function<cudaError_t(int sets)> prepare;              // make sets 0..sets-1 (0: the verified one)
  std::function<cudaError_t(int set, cudaStream_t)> launch;  // the candidate on set `set`
};

// What the worker owns for every trial's timing.
struct instruments {
  l2_flusher* flusher = nullptr;  // null: no flushing
  sm_clock* clock = nullptr;      // null: clocks unknown
  long long l2_bytes = 0;
};

struct timer_options {
  sm_clock* clock = nullptr;
  long long l2_bytes = 0;
  const buffer_rotation* rotation = nullptr;  // null: single launches only
  int force_batch = 0;                        // > 0: exactly this many launches per sample (1: single); 0: decide
};

// `flusher` may be null (settings.flush_l2 false).
timing time_launches(const launcher& launch, const settings& settings, l2_flusher* flusher, cudaStream_t stream,
                     const timer_options& options = {});

}  // namespace cuop::measure
