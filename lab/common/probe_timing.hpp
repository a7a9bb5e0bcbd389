// Timing shared by the lab's probes (lab/*/*.cu): CUDA events around one launch, each after the
// library's L2 flush (reference::read_sweep over a buffer several times the L2, as the tuner's own
// samples are taken), the median of the samples kept. A probe that includes this links
// cuop_kernels_core (lab/CMakeLists.txt).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "cuop/reference/memory.hpp"

namespace probe {

// A device buffer read end to end before every sample, so that each launch starts from HBM.
class l2_flush {
 public:
  explicit l2_flush(std::size_t bytes) : m_bytes(bytes) {
    cudaMalloc(&m_buffer, m_bytes);
    cudaMemset(m_buffer, 1, m_bytes);
    cudaMalloc(&m_sink, sizeof(unsigned));
  }
  ~l2_flush() {
    cudaFree(m_buffer);
    cudaFree(m_sink);
  }
  l2_flush(const l2_flush&) = delete;
  l2_flush& operator=(const l2_flush&) = delete;
  void operator()() const { cuop::reference::read_sweep(m_buffer, m_bytes, m_sink, nullptr); }
  unsigned* sink() const { return m_sink; }

 private:
  void* m_buffer = nullptr;
  std::size_t m_bytes = 0;
  unsigned* m_sink = nullptr;
};

// Microseconds, the median of `samples` launches of `launch` after `warmup` discarded ones.
template <typename F>
float median_us(F&& launch, const l2_flush& flush, int samples, int warmup = 0) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<float> us;
  for (int i = 0; i < warmup + samples; ++i) {
    flush();
    cudaEventRecord(start);
    launch();
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    if (i >= warmup) us.push_back(ms * 1000.f);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

}  // namespace probe
