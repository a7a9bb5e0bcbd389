#include "tuner/measure/environment_check.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace cuop::measure {

std::vector<unsigned> other_processes(std::vector<unsigned> pids, unsigned self) {
  if (const auto it = std::find(pids.begin(), pids.end(), self); it != pids.end()) {
    pids.erase(it);
  } else if (!pids.empty()) {
    pids.erase(pids.begin());  // which one is the worker cannot be told apart: drop one
  }
  return pids;
}

std::string describe_clock_reasons(unsigned long long mask) {
  static constexpr std::pair<unsigned long long, const char*> names[] = {
      {clock_reason::gpu_idle, "gpu_idle"},
      {clock_reason::applications_clocks, "applications_clocks"},
      {clock_reason::sw_power_cap, "sw_power_cap"},
      {clock_reason::hw_slowdown, "hw_slowdown"},
      {clock_reason::sync_boost, "sync_boost"},
      {clock_reason::sw_thermal, "sw_thermal"},
      {clock_reason::hw_thermal, "hw_thermal"},
      {clock_reason::hw_power_brake, "hw_power_brake"},
      {clock_reason::display_clocks, "display_clocks"},
  };
  std::vector<std::string> parts;
  for (const auto& [bit, name] : names)
    if (mask & bit) {
      parts.emplace_back(name);
      mask &= ~bit;
    }
  if (mask) parts.push_back(fmt::format("{:#x}", mask));
  return parts.empty() ? "none" : fmt::format("{}", fmt::join(parts, ", "));
}

std::string assess(const gpu_environment& e, const environment_limits& limits, bool after_load) {
  if (!e.checked) return "";
  std::vector<std::string> bad;
  if (e.pids_known && !e.other_pids.empty())
    bad.push_back(fmt::format("{} other compute process{} on the GPU (pid{} {})", e.other_pids.size(),
                              e.other_pids.size() == 1 ? "" : "es", e.other_pids.size() == 1 ? "" : "s",
                              fmt::join(e.other_pids, ", ")));
  const auto benign = after_load ? clock_reason::benign_after_load : clock_reason::benign;
  if (e.reasons_known && (e.clock_reasons & ~benign))
    bad.push_back("clock event reasons: " + describe_clock_reasons(e.clock_reasons & ~benign));
  if (e.temperature_c > 0) {
    if (e.temperature_c >= limits.max_temp_c)
      bad.push_back(fmt::format("temperature {} C (limit {} C)", e.temperature_c, limits.max_temp_c));
    else if (e.slowdown_c > 5 && e.temperature_c + 5 >= e.slowdown_c)
      bad.push_back(fmt::format("temperature {} C (the GPU slows down at {} C)", e.temperature_c, e.slowdown_c));
  }
  return fmt::format("{}", fmt::join(bad, ", "));
}

std::string assess_run(const gpu_environment& before, const gpu_environment& after, const environment_limits& limits) {
  const auto b = assess(before, limits), a = assess(after, limits, true);
  if (b.empty() && a.empty()) return "";
  if (a.empty()) return "before the run: " + b;
  if (b.empty()) return "after the run: " + a;
  return "before the run: " + b + "; after the run: " + a;
}

nlohmann::json to_json(const gpu_environment& e) {
  if (!e.checked) return {{"checked", false}, {"error", e.error}};
  nlohmann::json j = {{"checked", true}, {"sm_clock_mhz", e.sm_clock_mhz}};
  if (e.pids_known) j["other_pids"] = e.other_pids;
  if (e.reasons_known) j["clock_reasons"] = e.clock_reasons;
  if (e.temperature_c > 0) j["temperature_c"] = e.temperature_c;
  if (e.slowdown_c > 0) j["slowdown_c"] = e.slowdown_c;
  return j;
}

gpu_environment gpu_environment_from_json(const nlohmann::json& j) {
  gpu_environment e;
  e.checked = j.value("checked", false);
  e.error = j.value("error", "");
  e.sm_clock_mhz = j.value("sm_clock_mhz", 0u);
  if (j.contains("other_pids")) {
    e.pids_known = true;
    e.other_pids = j.at("other_pids").get<std::vector<unsigned>>();
  }
  if (j.contains("clock_reasons")) {
    e.reasons_known = true;
    e.clock_reasons = j.at("clock_reasons").get<unsigned long long>();
  }
  e.temperature_c = j.value("temperature_c", 0u);
  e.slowdown_c = j.value("slowdown_c", 0u);
  return e;
}

}  // namespace cuop::measure
