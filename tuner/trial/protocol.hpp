// Messages between the sweep (parent, the only database writer) and a worker process (one per GPU,
// owns the CUDA context). One JSON object per line on the worker's stdin and stdout.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/measure/settings.hpp"

namespace cuop::trial {

// What one cuop-tune build may expect of another's (`gate --against`, docs/cli.md): these
// messages, and the `sweep --db --only --device --cache -j --batch-plan` options with a database
// this build's store reads. Bump it with any change to them that an older or newer build would
// misread; builds with different versions refuse to gate against each other. Workers before
// version 1 did not say; version 2 added `--batch-plan`.
inline constexpr int protocol_version = 2;

struct device_info {
  int protocol = protocol_version;  // the worker's protocol_version (0: a worker that did not say)
  bool present = false;
  std::string error;  // why no device is usable ("no CUDA-capable device is detected")
  int index = 0;
  std::string name;
  std::string uuid;
  int sm_count = 0;
  long long l2_bytes = 0;
  int cc = 0;  // 90 for compute capability 9.0
  long long global_mem = 0;
  std::string driver;    // CUDA driver API version, e.g. "13.0"
  std::string runtime;   // CUDA runtime version
  int device_count = 0;  // devices the worker's process sees (sweep --devices all)
};

struct trial_request {
  std::string op;          // the op's name (ops/registry)
  std::string cubin_path;  // empty for a library configuration
  std::string entry;       // kernel name in the cubin
  std::string dtype;
  nlohmann::json config;  // the family and its parameters
  nlohmann::json dims;    // the problem's dimensions
  measure::settings measure;
  std::uint64_t seed = 1;
  int force_batch = 0;  // > 0: launches per sample fixed (a batch plan, a race's later rounds); 0: the timer decides
};

// status: "ok", "wrong_answer", "launch_error", "crashed", "unsupported", "timeout"
struct trial_response {
  std::string status;
  std::string message;
  std::vector<double> samples_us;
  double max_error = 0;
  std::string stop_reason;
  bool worker_must_restart = false;  // the context is unusable (sticky error)
  // How it was measured (tuner/measure/timer.hpp, timing): per-sample SM clocks (0 unknown), the
  // warm-up, launches per sample.
  std::vector<double> clocks_mhz;
  double warmup_ms = 0;
  int warmup_launches = 0;
  bool warmup_capped = false;
  int batch = 1;
  int buffer_sets = 1;
  std::string clock_source;
  std::string note;
};

// A trial that ends before anything is measured: its status ("unsupported", "launch_error",
// "wrong_answer") and why.
trial_response trial_ended(std::string status, std::string message);

nlohmann::json to_json(const device_info& d);
device_info device_info_from_json(const nlohmann::json& j);
nlohmann::json to_json(const trial_request& r);
trial_request trial_request_from_json(const nlohmann::json& j);
nlohmann::json to_json(const trial_response& r);
trial_response trial_response_from_json(const nlohmann::json& j);

}  // namespace cuop::trial
