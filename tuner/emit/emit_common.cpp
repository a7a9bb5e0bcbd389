#include "tuner/emit/emit_common.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "tuner/compile/compile.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/suggest.hpp"

namespace cuop::emit {

std::string normalize_target(const std::string& raw) {
  std::string t = raw;
  if (const auto dash = t.find('-'); dash != std::string::npos) t = t.substr(0, dash);
  if (t.rfind("sm_", 0) != 0) t = "sm_" + t;
  if (!compile::find_target(t))
    throw error(fmt::format("unknown target \"{}\"{}", raw, suggest_suffix(raw, compile::target_names())));
  return t;
}

std::vector<std::string> normalize_targets(const std::vector<std::string>& raw) {
  std::vector<std::string> targets;
  for (const auto& t : raw) targets.push_back(normalize_target(t));
  std::sort(targets.begin(), targets.end());
  targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
  return targets;
}

chosen_results results_for_target(const std::vector<result_file>& results, const std::string& op,
                                  const std::string& target) {
  const int cc = compile::find_target(target)->cc;
  std::vector<const result_file*> measured;
  for (const auto& f : results)
    if (f.op == op && !f.gpu.empty()) measured.push_back(&f);
  chosen_results out;
  for (const auto* f : measured)
    if (f->cc == cc) out.files.push_back(f);
  out.tuned = !out.files.empty();
  if (out.tuned || measured.empty()) return out;
  int best_cc = -1;
  for (const auto* f : measured)
    if (best_cc < 0 || std::abs(f->cc - cc) < std::abs(best_cc - cc) ||
        (std::abs(f->cc - cc) == std::abs(best_cc - cc) && f->cc < best_cc))
      best_cc = f->cc;
  for (const auto* f : measured)
    if (f->cc == best_cc) out.files.push_back(f);
  return out;
}

bool legal_on(const result_file& f, const std::string& instance, const std::string& target) {
  for (const auto& b : f.builds)
    if (b.instance == instance && b.target == target) return b.status == "ok";
  return false;
}

std::map<std::string, const result_trial*> best_per_problem(
    const result_file& f, const std::function<bool(const result_trial&)>& keep) {
  std::map<std::string, const result_trial*> best;
  for (const auto& t : f.trials) {
    if (t.status != "ok" || !keep(t)) continue;
    auto& b = best[t.problem];
    if (!b || t.median_us < b->median_us ||
        (t.median_us == b->median_us && t.instance < b->instance))
      b = &t;
  }
  return best;
}

std::string run_provenance(const result_file& f, std::int64_t run) {
  for (const auto& r : f.runs)
    if (r.id == run) return fmt::format("run {} of {} ({})", r.id, r.spec_file, r.started_at);
  return fmt::format("run {}", run);
}

}  // namespace cuop::emit
