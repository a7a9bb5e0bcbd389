#include "tuner/measure/timer.hpp"

#include <array>
#include <chrono>

#include "cuop/reference/memory.hpp"
#include "tuner/measure/statistics.hpp"

namespace cuop::measure {

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

// Event pairs recorded back to back before one synchronization: keeps the GPU busy without
// letting host overhead into any sample.
constexpr int batch_size = 8;

struct event_pairs {
  std::array<cudaEvent_t, batch_size> start{}, stop{};
  cudaError_t create() {
    for (int i = 0; i < batch_size; ++i) {
      if (auto e = cudaEventCreate(&start[i]); e != cudaSuccess) return e;
      if (auto e = cudaEventCreate(&stop[i]); e != cudaSuccess) return e;
    }
    return cudaSuccess;
  }
  ~event_pairs() {
    for (int i = 0; i < batch_size; ++i) {
      if (start[i]) cudaEventDestroy(start[i]);
      if (stop[i]) cudaEventDestroy(stop[i]);
    }
  }
};

}  // namespace

l2_flusher::l2_flusher(long long l2_bytes, mode m)
    : m_bytes(static_cast<std::size_t>(2 * l2_bytes)), m_mode(m) {
  if (m_bytes == 0) return;
  if ((m_status = cudaMalloc(&m_buffer, m_bytes)) != cudaSuccess) return;
  if ((m_status = cudaMalloc(reinterpret_cast<void**>(&m_sink), sizeof(unsigned))) != cudaSuccess) return;
  m_status = cudaMemset(m_buffer, 0x5a, m_bytes);
}

l2_flusher::~l2_flusher() {
  if (m_buffer) cudaFree(m_buffer);
  if (m_sink) cudaFree(m_sink);
}

cudaError_t l2_flusher::flush(cudaStream_t stream) {
  if (!m_buffer || !m_sink) return m_status;
  if (m_mode == mode::dirty_write) {
    m_value = (m_value + 1) & 0xff;  // a changing value, so no write can be skipped
    return cudaMemsetAsync(m_buffer, static_cast<int>(m_value), m_bytes, stream);
  }
  return reference::read_sweep(m_buffer, m_bytes, m_sink, stream);
}

timing time_launches(const launcher& launch, const spec::measure_settings& settings,
                     l2_flusher* flusher, cudaStream_t stream) {
  timing out;
  event_pairs events;
  if ((out.error = events.create()) != cudaSuccess) return out;

  // Warm-up: module load, clocks ramping up, first-touch effects stay out of the samples.
  const auto warm_start = clock_type::now();
  for (int i = 0; i < 3 || seconds_since(warm_start) * 1000.0 < settings.warmup_ms; ++i) {
    if (flusher && (out.error = flusher->flush(stream)) != cudaSuccess) return out;
    if ((out.error = launch(stream)) != cudaSuccess) return out;
    if (i % batch_size == batch_size - 1 &&
        (out.error = cudaStreamSynchronize(stream)) != cudaSuccess)
      return out;
  }
  if ((out.error = cudaStreamSynchronize(stream)) != cudaSuccess) return out;

  const auto sample_start = clock_type::now();
  for (;;) {
    for (int i = 0; i < batch_size; ++i) {
      if (flusher && (out.error = flusher->flush(stream)) != cudaSuccess) return out;
      if ((out.error = cudaEventRecord(events.start[i], stream)) != cudaSuccess) return out;
      if ((out.error = launch(stream)) != cudaSuccess) return out;
      if ((out.error = cudaEventRecord(events.stop[i], stream)) != cudaSuccess) return out;
    }
    if ((out.error = cudaEventSynchronize(events.stop[batch_size - 1])) != cudaSuccess) return out;
    for (int i = 0; i < batch_size; ++i) {
      float ms = 0;
      if ((out.error = cudaEventElapsedTime(&ms, events.start[i], events.stop[i])) != cudaSuccess)
        return out;
      out.samples_us.push_back(static_cast<double>(ms) * 1000.0);
    }
    const int n = static_cast<int>(out.samples_us.size());
    if (n >= settings.min_samples && relative_ci(summarize(out.samples_us)) <= settings.rel_ci) {
      out.stop_reason = "ci";
      break;
    }
    if (n >= settings.max_samples) {
      out.stop_reason = "max_samples";
      break;
    }
    if (seconds_since(sample_start) >= settings.max_time_s && n >= 3) {
      out.stop_reason = "max_time";
      break;
    }
  }
  return out;
}

}  // namespace cuop::measure
