#include "tuner/gate/comparison.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

#include "tuner/core/error.hpp"
#include "tuner/core/hash.hpp"

namespace cuop::gate {

namespace {

using by_problem = std::map<std::string, std::vector<const measured_trial*>>;

by_problem group(const result_set& s) {
  by_problem out;
  for (const auto& t : s.trials) out[t.problem].push_back(&t);  // sorted by instance already
  return out;
}

const measured_trial* fastest(const std::vector<const measured_trial*>& trials) {
  const measured_trial* best = nullptr;
  for (const auto* t : trials)
    if (!best || t->median_us < best->median_us) best = t;  // a tie keeps the first instance
  return best;
}

measure::median_evidence evidence(const measured_trial& t) {
  measure::median_evidence e;
  e.samples = t.samples_us;
  e.median = t.median_us;
  e.ci_lo = t.ci_lo_us;
  e.ci_hi = t.ci_hi_us;
  return e;
}

compared_side side(const measured_trial& t) {
  return {t.instance, t.median_us, t.sample_count, !t.samples_us.empty(), t.env};
}

comparison_row compare_pair(const measured_trial& b, const measured_trial& c, bool winner, const compare_options& o) {
  comparison_row row;
  row.problem = b.problem;
  row.op = b.op;
  row.winner = winner;
  row.baseline = side(b);
  row.candidate = side(c);
  const auto chosen = threshold_for(o.limits, b.op, b.dims, b.median_us);
  row.threshold_kind = chosen.kind;
  row.rule = chosen.rule;
  row.effective_threshold = measure::effective_threshold(chosen.rule, b.median_us);
  // Seeded per pair, so a pair's interval does not change when other problems are added to or
  // left out of a comparison.
  auto boot = o.bootstrap;
  boot.seed ^= fnv1a64(b.problem + '\x1f' + b.instance + '\x1f' + c.instance);
  try {
    row.ci = measure::bootstrap_median_ratio(evidence(b), evidence(c), boot);
  } catch (const error& e) {
    throw error(fmt::format("problem {}: {}", b.problem, e.what()));
  }
  row.verdict = measure::decide(row.ci, b.median_us, row.rule);
  return row;
}

struct pair_to_compare {
  const measured_trial* baseline;
  const measured_trial* candidate;
  bool winner;
};

// Says, once per distinct pair of environments that differ, what each side was measured on.
std::vector<std::string> env_differences(const result_set& baseline, const result_set& candidate,
                                         const std::vector<pair_to_compare>& pairs) {
  std::set<std::pair<int, int>> seen;
  std::vector<std::string> out;
  for (const auto& p : pairs) {
    if (!seen.insert({p.baseline->env, p.candidate->env}).second) continue;
    const auto& b = baseline.envs.at(static_cast<std::size_t>(p.baseline->env));
    const auto& c = candidate.envs.at(static_cast<std::size_t>(p.candidate->env));
    if (!same_measurement_env(b, c))
      out.push_back(fmt::format("baseline {} was measured on {}, candidate {} on {}", baseline.source, b.describe(),
                                candidate.source, c.describe()));
  }
  return out;
}

}  // namespace

int comparison::count(measure::verdict v) const {
  return static_cast<int>(std::ranges::count_if(rows, [v](const auto& r) { return r.verdict == v; }));
}

int comparison::approximate_rows() const {
  return static_cast<int>(std::ranges::count_if(rows, [](const auto& r) { return r.ci.approximate; }));
}

comparison compare(const result_set& baseline, const result_set& candidate, const compare_options& options) {
  comparison out;
  out.baseline_source = baseline.source;
  out.candidate_source = candidate.source;
  out.baseline_envs = baseline.envs;
  out.candidate_envs = candidate.envs;
  out.options = options;
  const auto base = group(baseline), cand = group(candidate);
  std::vector<pair_to_compare> pairs;
  for (const auto& [problem, b_trials] : base) {
    const auto it = cand.find(problem);
    if (it == cand.end()) {
      out.only_in_baseline.push_back(problem);
      continue;
    }
    pairs.push_back({fastest(b_trials), fastest(it->second), true});
    if (!options.per_config) continue;
    std::map<std::string, const measured_trial*> c_by_instance;
    for (const auto* t : it->second) c_by_instance[t->instance] = t;
    for (const auto* b : b_trials)
      if (const auto c = c_by_instance.find(b->instance); c != c_by_instance.end())
        pairs.push_back({b, c->second, false});
  }
  for (const auto& [problem, trials] : cand)
    if (!base.contains(problem)) out.only_in_candidate.push_back(problem);
  if (pairs.empty())
    throw error(fmt::format("nothing to compare: no problem has verified results in both {} and {}", baseline.source,
                            candidate.source));

  // Checked before any bootstrap: a refused comparison answers at once.
  const auto differences = env_differences(baseline, candidate, pairs);
  if (!differences.empty() && !options.allow_different_env)
    throw error(
        fmt::format("{}: timings from different GPUs or environments are not comparable "
                    "(--allow-different-env compares them anyway)",
                    fmt::join(differences, "; ")));
  for (const auto& d : differences)
    out.warnings.push_back("comparing different environments (--allow-different-env): " + d);

  for (const auto& p : pairs) {
    // A CUDA graph's launches per sample against single launches: not the same quantity (no
    // flush and no launch gap between a graph's launches), never mixed (docs/measurement.md).
    if ((p.baseline->batch > 1) != (p.candidate->batch > 1)) {
      const auto how = [](const measured_trial& t) {
        return t.batch > 1 ? fmt::format("in CUDA-graph batches of {} launches", t.batch)
                           : std::string("in single launches");
      };
      out.warnings.push_back(
          fmt::format("{}{}: not compared: the baseline {} was timed {}, the candidate {} {}; measure both the same "
                      "way (a baseline exported before batching is single launches)",
                      p.baseline->problem, p.winner ? "" : " " + p.candidate->instance, p.baseline->instance,
                      how(*p.baseline), p.candidate->instance, how(*p.candidate)));
      if (p.winner) out.measured_differently.push_back(p.baseline->problem);
      continue;
    }
    out.rows.push_back(compare_pair(*p.baseline, *p.candidate, p.winner, options));
  }
  if (out.rows.empty())
    throw error(
        fmt::format("nothing to compare: every problem in both {} and {} was timed one way on one side "
                    "and another on the other (batched against single launches)",
                    baseline.source, candidate.source));
  return out;
}

}  // namespace cuop::gate
