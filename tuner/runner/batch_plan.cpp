#include "tuner/runner/batch_plan.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "tuner/core/error.hpp"
#include "tuner/core/files.hpp"

namespace cuop::runner {

namespace {
constexpr int max_launches = 4096;
}

batch_plan_map read_batch_plan(const std::string& path) {
  const auto text = core::read_file(path);
  if (!text) throw error(path + ": cannot read the batch plan");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(*text);
  } catch (const nlohmann::json::parse_error& e) {
    throw error(fmt::format("{}: not JSON ({})", path, e.what()));
  }
  if (!j.is_object())
    throw error(path + ": a batch plan is a JSON object {\"<problem key>\": launches per sample}");
  batch_plan_map plan;
  for (const auto& [problem, launches] : j.items()) {
    if (!launches.is_number_integer() || launches.get<long long>() < 1 || launches.get<long long>() > max_launches)
      throw error(fmt::format("{}: \"{}\": launches per sample must be a whole number from 1 to {}, got {}",
                              path, problem, max_launches, launches.dump()));
    plan[problem] = launches.get<int>();
  }
  return plan;
}

void write_batch_plan(const std::string& path, const batch_plan_map& plan) {
  core::write_atomically(path, nlohmann::json(plan).dump(2) + "\n");
}

int planned_launches(const batch_plan_map& plan, const std::string& problem) {
  const auto it = plan.find(problem);
  return it == plan.end() ? 0 : it->second;
}

}  // namespace cuop::runner
