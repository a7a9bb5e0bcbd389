#include "tuner/gate/abba.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "tuner/core/error.hpp"
#include "tuner/measure/statistics.hpp"

namespace cuop::gate {

std::vector<build> abba_schedule(int cycles) {
  if (cycles < 1) throw usage_error(fmt::format("--cycles must be at least 1, got {}", cycles));
  std::vector<build> out;
  for (int c = 0; c < cycles; ++c)
    for (const auto b : {build::a, build::b, build::b, build::a}) out.push_back(b);
  return out;
}

std::string describe_schedule(const std::vector<build>& rounds) {
  std::vector<std::string> letters;
  for (const auto b : rounds) letters.emplace_back(b == build::a ? "A" : "B");
  return fmt::format("{}", fmt::join(letters, " "));
}

std::vector<int> rounds_of(const std::vector<build>& rounds, build side) {
  std::vector<int> out;
  for (std::size_t i = 0; i < rounds.size(); ++i)
    if (rounds[i] == side) out.push_back(static_cast<int>(i) + 1);
  return out;
}

pooled_rounds pool_rounds(const std::vector<const result_set*>& rounds, std::string source) {
  if (rounds.empty()) throw error(source + ": no rounds to pool");
  pooled_rounds out;
  out.set.source = std::move(source);
  out.set.kind = "database";

  // The pooled set's environments, once each (compared as result_set's loader tells them apart).
  std::map<std::tuple<std::string, std::string, std::string, std::string>, int> env_index;
  const auto env_of = [&](const result_set& r, int env) {
    const auto& e = r.envs.at(static_cast<std::size_t>(env));
    const auto key = std::make_tuple(e.describe(), e.env_key, e.source_hash, e.git_rev);
    const auto [it, added] = env_index.try_emplace(key, static_cast<int>(out.set.envs.size()));
    if (added) out.set.envs.push_back(e);
    return it->second;
  };

  using pair_key = std::pair<std::string, std::string>;  // problem, instance
  std::map<pair_key, std::vector<const measured_trial*>> found;
  std::map<pair_key, int> env_first;
  for (const auto* round : rounds)
    for (const auto& t : round->trials) {
      auto& list = found[{t.problem, t.instance}];
      if (list.empty()) env_first[{t.problem, t.instance}] = env_of(*round, t.env);
      list.push_back(&t);
    }

  for (const auto& [key, trials] : found) {  // sorted by problem, then instance
    const auto& [problem, instance] = key;
    if (trials.size() != rounds.size()) {
      out.dropped.push_back(
          fmt::format("{} {}: verified in {} of {} rounds", problem, instance, trials.size(), rounds.size()));
      out.dropped_keys.insert(key);
      continue;
    }
    if (std::ranges::any_of(trials, [](const auto* t) { return t->samples_us.empty(); })) {
      out.dropped.push_back(fmt::format("{} {}: a round kept no raw samples", problem, instance));
      out.dropped_keys.insert(key);
      continue;
    }
    // Samples of CUDA-graph batches and of single launches are different quantities: never pooled.
    const auto first_batch = trials.front()->batch;
    if (std::ranges::any_of(trials, [first_batch](const auto* t) { return t->batch != first_batch; })) {
      std::vector<int> batches;
      for (const auto* t : trials) batches.push_back(t->batch);
      out.dropped.push_back(fmt::format("{} {}: timed in batches of different launches across rounds ({})", problem,
                                        instance, fmt::join(batches, ", ")));
      out.dropped_keys.insert(key);
      continue;
    }
    measured_trial m = *trials.front();
    m.samples_us.clear();
    for (const auto* t : trials) m.samples_us.insert(m.samples_us.end(), t->samples_us.begin(), t->samples_us.end());
    const auto s = measure::summarize(m.samples_us);
    m.median_us = s.median;
    m.ci_lo_us = s.ci_lo;
    m.ci_hi_us = s.ci_hi;
    m.sample_count = s.count;
    m.env = env_first.at(key);
    out.set.trials.push_back(std::move(m));
  }
  if (out.set.trials.empty())
    throw error(
        fmt::format("{}: no configuration was verified in all {} of its rounds", out.set.source, rounds.size()));
  return out;
}

int drop_each_others_left_out(pooled_rounds& a, pooled_rounds& b) {
  const auto drop = [](pooled_rounds& side, const std::set<std::pair<std::string, std::string>>& keys) {
    return static_cast<int>(std::erase_if(side.set.trials, [&](const measured_trial& t) {
      return keys.contains({t.problem, t.instance});
    }));
  };
  const auto a_keys = a.dropped_keys, b_keys = b.dropped_keys;
  return drop(a, b_keys) + drop(b, a_keys);
}

}  // namespace cuop::gate
