#include "tuner/gate/retry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "tuner/core/error.hpp"
#include "tuner/measure/statistics.hpp"

namespace cuop::gate {

retry_target target_of(const comparison_row& row) {
  return {row.problem, row.winner ? std::string() : row.candidate.instance};
}

std::vector<retry_target> select_retries(const comparison& c) {
  std::vector<retry_target> out;
  for (const auto& r : c.rows) {
    if (r.verdict != measure::verdict::ambiguous) continue;
    auto t = target_of(r);
    if (std::ranges::find(out, t) == out.end()) out.push_back(std::move(t));
  }
  return out;
}

std::vector<std::string> retry_problems(const std::vector<retry_target>& targets) {
  std::set<std::string> problems;
  for (const auto& t : targets) problems.insert(t.problem);
  return {problems.begin(), problems.end()};
}

result_set pool_retry(const result_set& old, const result_set& fresh, const std::vector<retry_target>& targets) {
  std::set<std::string> whole;                            // winner targets' problems
  std::set<std::pair<std::string, std::string>> configs;  // configuration targets
  for (const auto& t : targets) {
    if (t.instance.empty()) whole.insert(t.problem);
    else configs.insert({t.problem, t.instance});
  }
  const auto wanted = [&](const measured_trial& t) {
    return whole.contains(t.problem) || configs.contains({t.problem, t.instance});
  };

  result_set out;
  out.source = old.source;
  out.kind = old.kind;
  out.envs = old.envs;
  std::map<std::pair<std::string, std::string>, measured_trial> merged;
  for (const auto& t : old.trials) merged.emplace(std::make_pair(t.problem, t.instance), t);

  std::map<int, int> env_map;  // fresh's index -> out's
  const auto env_of = [&](int env) {
    if (const auto it = env_map.find(env); it != env_map.end()) return it->second;
    const auto& e = fresh.envs.at(static_cast<std::size_t>(env));
    int index = -1;
    for (std::size_t i = 0; i < out.envs.size(); ++i) {
      const auto& o = out.envs[i];
      if (std::tie(o.gpu, o.sm_count, o.driver, o.cuda_runtime, o.libraries, o.env_key, o.source_hash, o.git_rev) ==
          std::tie(e.gpu, e.sm_count, e.driver, e.cuda_runtime, e.libraries, e.env_key, e.source_hash, e.git_rev))
        index = static_cast<int>(i);
    }
    if (index < 0) {
      index = static_cast<int>(out.envs.size());
      out.envs.push_back(e);
    }
    return env_map[env] = index;
  };
  for (const auto& t : fresh.trials) {
    if (!wanted(t)) continue;
    const auto key = std::make_pair(t.problem, t.instance);
    const auto it = merged.find(key);
    // Pooled only when timed the same way (batched samples and single launches never mix).
    if (it == merged.end() || it->second.samples_us.empty() || t.samples_us.empty() || it->second.batch != t.batch) {
      auto copy = t;
      copy.env = env_of(t.env);
      merged.insert_or_assign(key, std::move(copy));
      continue;
    }
    auto& m = it->second;  // same code, measured again the same way: one sample of both passes
    m.samples_us.insert(m.samples_us.end(), t.samples_us.begin(), t.samples_us.end());
    const auto s = measure::summarize(m.samples_us);
    m.median_us = s.median;
    m.ci_lo_us = s.ci_lo;
    m.ci_hi_us = s.ci_hi;
    m.sample_count = s.count;
  }
  for (auto& [key, t] : merged) out.trials.push_back(std::move(t));  // sorted by problem, instance
  return out;
}

void record_retry_pass(retry_counts& counts, const std::vector<retry_target>& targets, int pass) {
  for (const auto& t : targets) counts[t] = pass;
}

void apply_retry_counts(comparison& c, const retry_counts& counts) {
  const auto pass_of = [&](const retry_target& t) {
    const auto it = counts.find(t);
    return it == counts.end() ? 0 : it->second;
  };
  // A configuration row's trial is also new when its problem's winner row was retried.
  for (auto& r : c.rows) r.retries = std::max(pass_of(target_of(r)), pass_of({r.problem, ""}));
}

}  // namespace cuop::gate
