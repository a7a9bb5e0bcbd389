// Messages between the sweep (parent, the only database writer) and a worker process (one per GPU,
// owns the CUDA context). One JSON object per line on the worker's stdin and stdout.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/spec/spec.hpp"

namespace cuop::runner {

struct device_info {
  bool present = false;
  std::string error;  // why no device is usable ("no CUDA-capable device is detected")
  int index = 0;
  std::string name;
  std::string uuid;
  int sm_count = 0;
  long long l2_bytes = 0;
  int cc = 0;  // 90 for compute capability 9.0
  long long global_mem = 0;
  std::string driver;   // CUDA driver API version, e.g. "13.0"
  std::string runtime;  // CUDA runtime version
};

struct trial_request {
  std::string op = "softmax";
  std::string cubin_path;    // empty for a library configuration
  std::string entry;         // kernel name in the cubin
  std::string dtype;
  nlohmann::json config;     // the family and its parameters
  nlohmann::json dims;       // the problem's dimensions
  spec::measure_settings measure;
  std::uint64_t seed = 1;
};

// status: "ok", "wrong_answer", "launch_error", "crashed", "unsupported", "timeout"
struct trial_response {
  std::string status;
  std::string message;
  std::vector<double> samples_us;
  double max_error = 0;
  std::string stop_reason;
  bool worker_must_restart = false;  // the context is unusable (sticky error)
};

nlohmann::json to_json(const device_info& d);
device_info device_info_from_json(const nlohmann::json& j);
nlohmann::json to_json(const trial_request& r);
trial_request trial_request_from_json(const nlohmann::json& j);
nlohmann::json to_json(const trial_response& r);
trial_response trial_response_from_json(const nlohmann::json& j);

}  // namespace cuop::runner
