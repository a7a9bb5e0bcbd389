// What the Google Benchmark benches share: one launch per iteration timed with CUDA events (manual
// time), the L2 flushed before each, after a short warm-up.
#pragma once

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <functional>

#include "tuner/measure/timer.hpp"

namespace cuop::bench {

// One launch after an L2 flush, in milliseconds between the two events around it.
inline float cold_launch_ms(const std::function<cudaError_t(cudaStream_t)>& launch, measure::l2_flusher& flusher,
                            cudaStream_t stream, cudaEvent_t start, cudaEvent_t stop) {
  flusher.flush(stream);
  cudaEventRecord(start, stream);
  launch(stream);
  cudaEventRecord(stop, stream);
  cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  return ms;
}

inline void time_cold(benchmark::State& state, const std::function<cudaError_t(cudaStream_t)>& launch,
                      measure::l2_flusher& flusher, cudaStream_t stream) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (int i = 0; i < 3; ++i) launch(stream);  // warm-up
  for (auto _ : state) state.SetIterationTime(cold_launch_ms(launch, flusher, stream, start, stop) / 1e3);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
}

// A counter of `amount` per iteration, reported per second (TFLOP/s, TB/s).
inline benchmark::Counter per_second(double amount) {
  return benchmark::Counter(amount, benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace cuop::bench
