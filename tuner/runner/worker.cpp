#include "tuner/runner/worker.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "tuner/measure/environment_check.hpp"
#include "tuner/measure/nvml.hpp"
#include "tuner/measure/sm_clock.hpp"
#include "tuner/measure/timer.hpp"
#include "tuner/ops/registry.hpp"
#include "tuner/trial/cuda_errors.hpp"

namespace cuop::runner {

namespace {

std::string format_uuid(const cudaUUID_t& u) {
  const auto* b = reinterpret_cast<const unsigned char*>(u.bytes);
  std::string s = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    s += fmt::format("{:02x}", b[i]);
  }
  return s;
}

std::string format_version(int v) { return fmt::format("{}.{}", v / 1000, (v % 1000) / 10); }

void reply(const nlohmann::json& j) { std::cout << j.dump() << '\n' << std::flush; }

// The GPU's state for the sweep's checks before and after a run (NVML; not checked without it).
measure::gpu_environment read_environment(const measure::nvml_device* nvml, const std::string& why_not) {
  measure::gpu_environment e;
  if (!nvml) {
    e.error = why_not;
    return e;
  }
  e.checked = true;
  std::vector<unsigned> pids;
  if ((e.pids_known = nvml->compute_pids(pids)))
    e.other_pids = measure::other_processes(std::move(pids), static_cast<unsigned>(getpid()));
  e.reasons_known = nvml->clock_event_reasons(e.clock_reasons);
  nvml->temperature_c(e.temperature_c, e.slowdown_c);
  e.sm_clock_mhz = nvml->sm_clock_mhz();
  return e;
}

}  // namespace

trial::device_info probe_device(int index) {
  trial::device_info d;
  d.index = index;
  int count = 0;
  if (auto e = cudaGetDeviceCount(&count); e != cudaSuccess) {
    d.error = trial::describe(e);
    return d;
  }
  d.device_count = count;
  if (index >= count) {
    d.error = fmt::format("device {} requested but {} present", index, count);
    return d;
  }
  cudaDeviceProp p{};
  if (auto e = cudaGetDeviceProperties(&p, index); e != cudaSuccess) {
    d.error = trial::describe(e);
    return d;
  }
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  d.present = true;
  d.name = p.name;
  d.uuid = format_uuid(p.uuid);
  d.sm_count = p.multiProcessorCount;
  d.l2_bytes = p.l2CacheSize;
  d.cc = p.major * 10 + p.minor;
  d.global_mem = static_cast<long long>(p.totalGlobalMem);
  d.driver = format_version(driver);
  d.runtime = format_version(runtime);
  return d;
}

namespace {

// The worker's GPU and what it measures with, held for the life of the process. Without a usable
// GPU it holds none, and every trial answers why.
class worker_session {
 public:
  explicit worker_session(trial::device_info info) : m_info(std::move(info)) {}
  worker_session(const worker_session&) = delete;
  worker_session& operator=(const worker_session&) = delete;
  ~worker_session() {
    m_runners.clear();  // before the stream and the instruments they use
    m_clock.reset();
    m_flusher.reset();
    if (m_stream) cudaStreamDestroy(m_stream);
  }

  // False when the device cannot be made current (said on stderr).
  bool open() {
    if (!m_info.present) return true;
    if (auto e = cudaSetDevice(m_info.index); e != cudaSuccess) {
      std::cerr << "cuop-tune worker: " << trial::describe(e) << '\n';
      return false;
    }
    cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking);
    m_flusher = std::make_unique<measure::l2_flusher>(m_info.l2_bytes);
    m_nvml = measure::nvml_device::open(m_info.uuid, m_nvml_missing);
    std::string clock_note;
    m_clock = measure::sm_clock::open(m_nvml.get(), clock_note);
    if (!clock_note.empty()) std::cerr << "cuop-tune worker: " << clock_note << '\n';
    m_tools = {m_flusher.get(), m_clock.get(), m_info.l2_bytes};
    for (const ops::op* o : ops::all_ops())
      m_runners[o->name()] = o->make_trial_runner(m_info.index, m_stream, m_tools);
    return true;
  }

  const trial::device_info& info() const { return m_info; }
  measure::gpu_environment environment() const { return read_environment(m_nvml.get(), m_nvml_missing); }

  trial::trial_response trial(const nlohmann::json& request) {
    trial::trial_response r;
    if (m_runners.empty()) {
      r.status = "launch_error";
      r.message = fmt::format("no usable GPU: {}", m_info.error);
      return r;
    }
    // A failed launch leaves its (non-sticky) error pending; without this the next trial's
    // first checked call would report it as its own.
    (void)cudaGetLastError();
    try {
      const auto req = trial::trial_request_from_json(request);
      return runner_of(req.op).run(req);
    } catch (const std::exception& e) {
      r.status = "launch_error";
      r.message = e.what();
    }
    return r;
  }

  nlohmann::json list_library(const nlohmann::json& request) {
    if (m_runners.empty()) return {{"status", "error"}, {"message", fmt::format("no usable GPU: {}", m_info.error)}};
    try {
      const auto req = trial::trial_request_from_json(request);
      return runner_of(req.op).list_library(req);
    } catch (const std::exception& e) {
      return {{"status", "error"}, {"message", e.what()}};
    }
  }

 private:
  ops::trial_runner& runner_of(const std::string& op) {
    const auto it = m_runners.find(op);
    if (it == m_runners.end()) throw std::runtime_error(fmt::format("unknown op \"{}\"", op));
    return *it->second;
  }

  trial::device_info m_info;
  std::string m_nvml_missing = m_info.present ? "" : "no GPU";
  cudaStream_t m_stream{};
  std::unique_ptr<measure::l2_flusher> m_flusher;
  std::unique_ptr<measure::nvml_device> m_nvml;
  std::unique_ptr<measure::sm_clock> m_clock;
  measure::instruments m_tools;
  std::map<std::string, std::unique_ptr<ops::trial_runner>, std::less<>> m_runners;  // by op
};

}  // namespace

int run_worker(int device) {
  // stdout carries the protocol only; anything else a library prints must go to stderr.
  std::ios::sync_with_stdio(false);
  worker_session session(probe_device(device));
  if (!session.open()) return 1;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    nlohmann::json request;
    try {
      request = nlohmann::json::parse(line);
    } catch (const std::exception& e) {
      reply({{"status", "launch_error"}, {"message", fmt::format("bad request: {}", e.what())}});
      continue;
    }
    const auto cmd = request.value("cmd", "");
    if (cmd == "hello") {
      reply(to_json(session.info()));
    } else if (cmd == "environment") {
      reply(measure::to_json(session.environment()));
    } else if (cmd == "quit") {
      break;
    } else if (cmd == "trial") {
      const trial::trial_response r = session.trial(request);
      reply(to_json(r));
      if (r.worker_must_restart) return 0;  // the context is dead; let the parent start anew
    } else if (cmd == "list_library") {
      reply(session.list_library(request));
    } else {
      reply({{"status", "launch_error"}, {"message", fmt::format("unknown command \"{}\"", cmd)}});
    }
  }
  return 0;
}

}  // namespace cuop::runner
