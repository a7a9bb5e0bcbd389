#include "tuner/runner/worker.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "tuner/measure/environment_check.hpp"
#include "tuner/measure/nvml.hpp"
#include "tuner/measure/sm_clock.hpp"
#include "tuner/measure/timer.hpp"
#include "tuner/ops/conv_trial.hpp"
#include "tuner/ops/gemm_trial.hpp"
#include "tuner/ops/softmax_trial.hpp"
#include "tuner/runner/cuda_errors.hpp"

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

device_info probe_device(int index) {
  device_info d;
  d.index = index;
  int count = 0;
  if (auto e = cudaGetDeviceCount(&count); e != cudaSuccess) {
    d.error = describe(e);
    return d;
  }
  d.device_count = count;
  if (index >= count) {
    d.error = fmt::format("device {} requested but {} present", index, count);
    return d;
  }
  cudaDeviceProp p{};
  if (auto e = cudaGetDeviceProperties(&p, index); e != cudaSuccess) {
    d.error = describe(e);
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

int run_worker(int device) {
  // stdout carries the protocol only; anything else a library prints must go to stderr.
  std::ios::sync_with_stdio(false);
  const device_info info = probe_device(device);
  cudaStream_t stream{};
  std::unique_ptr<measure::l2_flusher> flusher;
  std::unique_ptr<measure::nvml_device> nvml;
  std::string nvml_missing = info.present ? "" : "no GPU";
  std::unique_ptr<measure::sm_clock> clock;
  measure::instruments tools;
  std::unique_ptr<ops::softmax_trial_runner> softmax;
  std::unique_ptr<ops::gemm_trial_runner> gemm;
  std::unique_ptr<ops::conv_trial_runner> conv;
  if (info.present) {
    if (auto e = cudaSetDevice(device); e != cudaSuccess) {
      std::cerr << "cuop-tune worker: " << describe(e) << '\n';
      return 1;
    }
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    flusher = std::make_unique<measure::l2_flusher>(info.l2_bytes);
    nvml = measure::nvml_device::open(info.uuid, nvml_missing);
    std::string clock_note;
    clock = measure::sm_clock::open(nvml.get(), clock_note);
    if (!clock_note.empty()) std::cerr << "cuop-tune worker: " << clock_note << '\n';
    tools = {flusher.get(), clock.get(), info.l2_bytes};
    softmax = std::make_unique<ops::softmax_trial_runner>(device, stream, tools);
    gemm = std::make_unique<ops::gemm_trial_runner>(device, stream, tools);
    conv = std::make_unique<ops::conv_trial_runner>(device, stream, tools);
  }

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
      reply(to_json(info));
    } else if (cmd == "environment") {
      reply(measure::to_json(read_environment(nvml.get(), nvml_missing)));
    } else if (cmd == "quit") {
      break;
    } else if (cmd == "trial") {
      trial_response r;
      if (!softmax) {
        r.status = "launch_error";
        r.message = fmt::format("no usable GPU: {}", info.error);
      } else {
        // A failed launch leaves its (non-sticky) error pending; without this the next trial's
        // first checked call would report it as its own.
        (void)cudaGetLastError();
        try {
          const auto req = trial_request_from_json(request);
          if (req.op == "gemm") r = gemm->run(req);
          else if (req.op == "softmax") r = softmax->run(req);
          else if (req.op == "conv2d") r = conv->run(req);
          else {
            r.status = "launch_error";
            r.message = fmt::format("unknown op \"{}\"", req.op);
          }
        } catch (const std::exception& e) {
          r.status = "launch_error";
          r.message = e.what();
        }
      }
      reply(to_json(r));
      if (r.worker_must_restart) return 0;  // the context is dead; let the parent start anew
    } else if (cmd == "list_library") {
      if (!gemm) {
        reply({{"status", "error"}, {"message", fmt::format("no usable GPU: {}", info.error)}});
        continue;
      }
      try {
        const auto req = trial_request_from_json(request);
        if (req.op == "gemm") reply(gemm->list_library(req));
        else if (req.op == "conv2d") reply(conv->list_library(req));
        else throw std::runtime_error(fmt::format("op \"{}\" has no library back end", req.op));
      } catch (const std::exception& e) {
        reply({{"status", "error"}, {"message", e.what()}});
      }
    } else {
      reply({{"status", "launch_error"}, {"message", fmt::format("unknown command \"{}\"", cmd)}});
    }
  }
  softmax.reset();
  gemm.reset();
  conv.reset();
  clock.reset();
  flusher.reset();
  if (stream) cudaStreamDestroy(stream);
  return 0;
}

}  // namespace cuop::runner
