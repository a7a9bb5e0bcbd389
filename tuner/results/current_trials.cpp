#include "tuner/results/current_trials.hpp"

#include "tuner/results/results_file.hpp"

namespace cuop::results {

std::map<std::string, gpu_results> current_trials(store::database& db, const std::string& op, bool with_samples) {
  std::map<std::string, gpu_results> out;
  std::map<std::int64_t, std::string> slug_of_run;
  for (auto& r : db.runs()) {
    if (r.op != op || r.state == "invalid") continue;  // a bad environment: nothing of it is trusted
    const auto s = slug(r.env.gpu_name);
    slug_of_run[r.id] = s;
    out[s].runs.push_back(std::move(r));
  }
  store::trial_filter filter;
  filter.op = op;
  filter.with_samples = with_samples;
  auto trials = db.trials(filter);
  using problem_slot = std::pair<std::string, std::string>;                  // slug, problem key
  std::map<problem_slot, std::pair<std::int64_t, std::string>> current_env;  // -> run, env
  for (const auto& t : trials) {
    if (t.status == "rejected" || !slug_of_run.contains(t.run_id)) continue;
    auto& env = current_env[{slug_of_run[t.run_id], t.problem.key}];
    if (t.run_id > env.first) env = {t.run_id, t.env_key};
  }
  std::map<std::string, std::map<std::pair<std::string, std::string>, store::trial_record>> newest;
  for (auto& t : trials) {
    if (t.status == "rejected" || !slug_of_run.contains(t.run_id)) continue;
    const auto& s = slug_of_run[t.run_id];
    if (t.env_key != current_env[{s, t.problem.key}].second) continue;
    auto& slot = newest[s][{t.problem.key, t.config.instance}];
    if (slot.run_id <= t.run_id) slot = std::move(t);
  }
  for (auto& [s, by_key] : newest)
    for (auto& [key, t] : by_key) out[s].trials.push_back(std::move(t));
  return out;
}

std::map<std::string, const store::trial_record*> winners(const std::vector<store::trial_record>& trials) {
  std::map<std::string, const store::trial_record*> best;
  for (const auto& t : trials) {
    if (t.status != "ok") continue;
    auto& b = best[t.problem.key];
    if (!b || t.median_us < b->median_us || (t.median_us == b->median_us && t.config.instance < b->config.instance))
      b = &t;
  }
  return best;
}

}  // namespace cuop::results
