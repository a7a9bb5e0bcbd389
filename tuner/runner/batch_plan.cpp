#include "tuner/runner/batch_plan.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "tuner/core/error.hpp"
#include "tuner/core/files.hpp"
#include "tuner/core/text.hpp"

namespace cuop::runner {

namespace {

constexpr int max_launches = 4096;
constexpr const char* others = "*";

int launches_of(const nlohmann::json& value, const std::string& path, const std::string& entry) {
  if (!value.is_number_integer() || value.get<long long>() < 1 || value.get<long long>() > max_launches)
    throw error(fmt::format("{}: {}: launches per sample must be a whole number from 1 to {}, got {}", path,
                            core::quoted(entry), max_launches, value.dump()));
  return value.get<int>();
}

}  // namespace

batch_plan_map read_batch_plan(const std::string& path) {
  const auto text = core::read_regular_file(path, core::max_sweep_file_bytes, "batch plan");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw error(fmt::format("{}: not JSON ({})", path, e.what()));
  }
  if (!j.is_object()) throw error(path + ": a batch plan is a JSON object {\"<problem key>\": launches per sample}");
  batch_plan_map plan;
  for (const auto& [problem, entry] : j.items()) {
    auto& p = plan[problem];
    if (!entry.is_object()) {
      p.launches = launches_of(entry, path, problem);
      continue;
    }
    for (const auto& [instance, launches] : entry.items()) {
      const int n = launches_of(launches, path, problem + " " + instance);
      if (instance == others) p.launches = n;
      else p.by_instance[instance] = n;
    }
  }
  return plan;
}

void write_batch_plan(const std::string& path, const batch_plan_map& plan) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [problem, p] : plan) {
    if (p.launches <= 0 && p.by_instance.empty()) continue;  // nothing fixed: the timer decides
    if (p.by_instance.empty()) {
      j[problem] = p.launches;
      continue;
    }
    nlohmann::json entry(p.by_instance);
    if (p.launches > 0) entry[others] = p.launches;
    j[problem] = entry;
  }
  core::write_atomically(path, j.dump(2) + "\n");
}

int planned_launches(const batch_plan_map& plan, const std::string& problem, const std::string& instance) {
  const auto it = plan.find(problem);
  if (it == plan.end()) return 0;
  if (const auto own = it->second.by_instance.find(instance); own != it->second.by_instance.end()) return own->second;
  return it->second.launches;
}

}  // namespace cuop::runner
