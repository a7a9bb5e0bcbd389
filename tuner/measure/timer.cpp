#include "tuner/measure/timer.hpp"

#include <array>
#include <chrono>

#include "cuop/reference/memory.hpp"
#include "tuner/measure/batching.hpp"
#include "tuner/measure/settle.hpp"
#include "tuner/measure/sm_clock.hpp"
#include "tuner/measure/stopping.hpp"

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

struct graph_holder {
  cudaGraph_t graph{};
  cudaGraphExec_t exec{};
  ~graph_holder() {
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
  }
};

// Takes batches of samples: (flush, start event, body, stop event) x batch_size, one
// synchronization per batch (with NVML, one per sample's stop event, read as it completes, so the
// clock is read while the GPU runs the batch's later samples).
class sampler {
 public:
  sampler(l2_flusher* flusher, sm_clock* clock, cudaStream_t stream)
      : m_flusher(flusher), m_clock(clock), m_stream(stream) {}
  cudaError_t create() { return m_events.create(); }

  // Appends batch_size samples of `body`, each its time over `per_sample` launches.
  cudaError_t batch(const launcher& body, bool flush, int per_sample, std::vector<double>& times,
                    std::vector<double>& clocks) {
    const bool nvml = m_clock && m_clock->kind() == sm_clock::source::nvml;
    const bool probe = m_clock && m_clock->kind() == sm_clock::source::globaltimer;
    if (probe)
      if (auto e = m_clock->enqueue_probe(m_stream, 0); e != cudaSuccess) return e;
    for (int i = 0; i < batch_size; ++i) {
      if (flush && m_flusher)
        if (auto e = m_flusher->flush(m_stream); e != cudaSuccess) return e;
      if (auto e = cudaEventRecord(m_events.start[i], m_stream); e != cudaSuccess) return e;
      if (auto e = body(m_stream); e != cudaSuccess) return e;
      if (auto e = cudaEventRecord(m_events.stop[i], m_stream); e != cudaSuccess) return e;
    }
    std::array<double, batch_size> mhz{};
    if (nvml) {
      for (int i = 0; i < batch_size; ++i) {
        if (auto e = cudaEventSynchronize(m_events.stop[i]); e != cudaSuccess) return e;
        mhz[i] = m_clock->read_now();
      }
    } else if (auto e = cudaEventSynchronize(m_events.stop[batch_size - 1]); e != cudaSuccess) {
      return e;
    }
    if (probe) {
      double batch_mhz = 0;
      if (auto e = m_clock->probe_mhz(0, batch_mhz); e != cudaSuccess) return e;
      mhz.fill(batch_mhz);
    }
    for (int i = 0; i < batch_size; ++i) {
      float ms = 0;
      if (auto e = cudaEventElapsedTime(&ms, m_events.start[i], m_events.stop[i]); e != cudaSuccess) return e;
      times.push_back(static_cast<double>(ms) * 1000.0 / per_sample);
      clocks.push_back(mhz[i]);
    }
    return cudaSuccess;
  }

 private:
  l2_flusher* m_flusher;
  sm_clock* m_clock;
  cudaStream_t m_stream;
  event_pairs m_events;
};

// Captures `plan.launches` launches over the rotation's sets into one graph.
cudaError_t capture(const buffer_rotation& rotation, const batch_plan& plan, cudaStream_t stream, graph_holder& g) {
  if (auto e = cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal); e != cudaSuccess) return e;
  cudaError_t launched = cudaSuccess;
  for (int j = 0; j < plan.launches && launched == cudaSuccess; ++j) launched = rotation.launch(j % plan.sets, stream);
  const cudaError_t ended = cudaStreamEndCapture(stream, &g.graph);
  if (launched != cudaSuccess) return launched;
  if (ended != cudaSuccess) return ended;
  return cudaGraphInstantiate(&g.exec, g.graph, 0);
}

std::string error_text(cudaError_t e) { return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e); }

}  // namespace

l2_flusher::l2_flusher(long long l2_bytes, mode m) : m_bytes(static_cast<std::size_t>(2 * l2_bytes)), m_mode(m) {
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

namespace {

// Warm-up: module load, clocks ramping up, first-touch effects stay out of the samples. It lasts
// at least warmup_ms and until the SM clock and the launch times have settled, or until the cap
// (recorded: the samples may then see a clock still moving). `estimate_us`: the settled time of a
// launch.
cudaError_t warm_up(sampler& take, const launcher& launch, const settings& settings, timing& out, double& estimate_us) {
  const settle_rule settle;
  std::vector<double> warm_times, warm_clocks;
  const double floor_ms = settings.warmup_ms;
  const double cap_ms = std::max<double>(settings.warmup_cap_ms, settings.warmup_ms);
  const auto warm_start = clock_type::now();
  for (;;) {
    if (auto e = take.batch(launch, true, 1, warm_times, warm_clocks); e != cudaSuccess) return e;
    const double ms = seconds_since(warm_start) * 1000.0;
    if (ms >= floor_ms && is_settled(warm_times, warm_clocks, settle)) break;
    if (ms >= cap_ms) {
      out.warmup_capped = true;
      break;
    }
  }
  out.warmup_ms = seconds_since(warm_start) * 1000.0;
  out.warmup_launches = static_cast<int>(warm_times.size());
  estimate_us =
      median_of(std::span<const double>(warm_times).last(std::min<std::size_t>(warm_times.size(), settle.window)));
  return cudaSuccess;
}

}  // namespace

timing time_launches(const launcher& launch, const settings& settings, l2_flusher* flusher, cudaStream_t stream,
                     const timer_options& options) {
  timing out;
  out.clock_source = options.clock ? options.clock->name() : "none";
  sampler take(flusher, options.clock, stream);
  if ((out.error = take.create()) != cudaSuccess) return out;

  double estimate_us = 0;
  if ((out.error = warm_up(take, launch, settings, out, estimate_us)) != cudaSuccess) return out;

  // Single launches, or (a short kernel whose op provides buffer sets) a CUDA graph of several.
  batch_plan plan;
  const auto* rotation = options.rotation;
  if (options.force_batch > 1) {
    if (rotation) plan = plan_forced_batch(options.force_batch, rotation->set_bytes, options.l2_bytes);
    else out.note = "batching asked for, but the op provides no buffer sets: single launches";
  } else if (options.force_batch == 0) {
    if (rotation) plan = plan_batch(estimate_us, settings.batch_below_us, rotation->set_bytes, options.l2_bytes);
    else if (settings.batch_below_us > 0 && estimate_us < settings.batch_below_us)
      out.note = "under batch_below_us, but the op provides no buffer sets: single launches";
  }
  graph_holder graph;
  if (plan.launches > 1) {
    cudaError_t e = rotation->prepare(plan.sets);
    if (e == cudaSuccess) e = capture(*rotation, plan, stream, graph);
    if (e == cudaSuccess) {
      // Load the graph and let its first replays pass.
      std::vector<double> t, c;
      e = take.batch([&](cudaStream_t s) { return cudaGraphLaunch(graph.exec, s); }, plan.flush, plan.launches, t, c);
      if (e != cudaSuccess) {
        // A sticky error is the candidate's failure; otherwise the graph is, and single launches
        // still measure it.
        if (auto sticky = cudaStreamSynchronize(stream); sticky != cudaSuccess) {
          out.error = sticky;
          return out;
        }
        cudaGetLastError();
        out.note = "the batched graph failed to run (" + error_text(e) + "): single launches";
        plan = {};
      }
    } else {
      cudaGetLastError();  // capture and allocation failures are not sticky
      out.note = "batching failed (" + error_text(e) + "): single launches";
      plan = {};
    }
  }
  out.batch = plan.launches;
  out.buffer_sets = plan.sets;

  const launcher graph_launch = [&](cudaStream_t s) { return cudaGraphLaunch(graph.exec, s); };
  const launcher& body = plan.launches > 1 ? graph_launch : launch;
  const bool flush = plan.launches > 1 ? plan.flush : true;
  stopping_rule stop({settings.min_samples, settings.max_samples, settings.max_time_s, settings.rel_ci,
                      settings.stable_batches, settings.stable_change});
  const auto sample_start = clock_type::now();
  for (;;) {
    if ((out.error = take.batch(body, flush, plan.launches, out.samples_us, out.clocks_mhz)) != cudaSuccess) return out;
    out.stop_reason = stop.after_batch(out.samples_us, seconds_since(sample_start));
    if (!out.stop_reason.empty()) break;
  }
  return out;
}

}  // namespace cuop::measure
