// The GPU's state before and after a run, as NVML reports it (other compute processes, clock
// event reasons, temperature), and the pure decision whether a run measured in it can be trusted.
// The worker reads it (tuner/runner/worker.cpp); the sweep stores it with the run and marks a run
// in a bad environment "invalid".
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cuop::measure {

// NVML's clock event ("throttle") reason bits.
namespace clock_reason {
inline constexpr unsigned long long gpu_idle = 0x1;
inline constexpr unsigned long long applications_clocks = 0x2;
inline constexpr unsigned long long sw_power_cap = 0x4;
inline constexpr unsigned long long hw_slowdown = 0x8;
inline constexpr unsigned long long sync_boost = 0x10;
inline constexpr unsigned long long sw_thermal = 0x20;
inline constexpr unsigned long long hw_thermal = 0x40;
inline constexpr unsigned long long hw_power_brake = 0x80;
inline constexpr unsigned long long display_clocks = 0x100;
// Reasons that say nothing against a measurement: an idle GPU between trials, clocks an
// administrator set. Every other reason makes the environment bad, except one after the run:
inline constexpr unsigned long long benign = gpu_idle | applications_clocks;
// The software power cap right after the run is the run's own doing: a large GEMM on an H200 runs
// at the board's power limit, and the reason is still set when the run ends (seen on every GEMM
// sweep there). Before the run, on an idle GPU, it means another load or a lowered power limit.
inline constexpr unsigned long long benign_after_load = benign | sw_power_cap;
}  // namespace clock_reason

struct gpu_environment {
  bool checked = false;              // NVML answered (false: nothing below is known)
  std::string error;                 // why it was not checked
  std::vector<unsigned> other_pids;  // compute processes on the GPU besides the worker
  bool pids_known = false;
  unsigned long long clock_reasons = 0;
  bool reasons_known = false;
  unsigned temperature_c = 0;
  unsigned slowdown_c = 0;  // the GPU's slowdown threshold, 0 when unknown
  unsigned sm_clock_mhz = 0;
};

struct environment_limits {
  unsigned max_temp_c = 85;  // hotter (or within 5 C of the GPU's slowdown threshold): bad
};

// The processes NVML lists, less the worker itself. In a PID namespace NVML lists host PIDs, so
// `self` may be missing: then, as the worker holds a context, one of the listed is assumed to be it.
std::vector<unsigned> other_processes(std::vector<unsigned> pids, unsigned self);

// "sw_power_cap, hw_thermal" for the bits of `mask`; unknown bits in hex.
std::string describe_clock_reasons(unsigned long long mask);

// "" when `e` is fit to measure in (or could not be checked), else why not:
// "2 other compute processes on the GPU (pids 1234, 5678)", "clock event reasons: sw_thermal",
// "temperature 91 C (limit 85 C)".
// `after_load`: the check that follows the run's own kernels (clock_reason::benign_after_load).
std::string assess(const gpu_environment& e, const environment_limits& limits, bool after_load = false);

// "" when both are fine, else "before the run: ...; after the run: ...".
std::string assess_run(const gpu_environment& before, const gpu_environment& after, const environment_limits& limits);

nlohmann::json to_json(const gpu_environment& e);
gpu_environment gpu_environment_from_json(const nlohmann::json& j);

}  // namespace cuop::measure
