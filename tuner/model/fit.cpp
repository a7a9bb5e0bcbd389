#include "tuner/model/fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "tuner/model/group_default.hpp"

namespace cuop::model {

namespace {

constexpr float unknown = std::numeric_limits<float>::quiet_NaN();

double realized(const results::result_trial& baseline, const results::result_trial& candidate) {
  return baseline.median_us / candidate.median_us;
}

// Each anchor's two fastest trials that beat its baseline, conservatively, by the margin.
std::vector<std::string> portfolio(const std::vector<anchor>& anchors, double log_margin) {
  std::set<std::string> chosen;
  for (const auto& a : anchors) {
    std::vector<std::pair<double, std::string>> ranked;
    for (const auto& [instance, t] : a.trials)
      if (t != a.baseline && conservative_log_speedup(*a.baseline, *t) > log_margin)
        ranked.emplace_back(t->median_us, instance);
    std::sort(ranked.begin(), ranked.end());
    for (std::size_t i = 0; i < ranked.size() && i < 2; ++i) chosen.insert(ranked[i].second);
  }
  return {chosen.begin(), chosen.end()};
}

// The candidates with the group default among them, less those it dominates: no faster than it at
// any anchor (or not measured there). The vote never prefers such a one to the group default, so
// leaving it out changes no choice and ships fewer kernels.
std::vector<std::string> undominated(const std::vector<anchor>& anchors, const std::vector<std::string>& candidates,
                                     const std::string& group_default) {
  std::vector<std::string> kept{group_default};
  for (const auto& c : candidates) {
    if (c == group_default) continue;
    const bool better_somewhere = std::any_of(anchors.begin(), anchors.end(), [&](const anchor& a) {
      const auto it = a.trials.find(c);
      return it != a.trials.end() && conservative_log_speedup(*a.baseline, *it->second) >
                                         conservative_log_speedup(*a.baseline, *a.trials.at(group_default));
    });
    if (better_somewhere) kept.push_back(c);
  }
  std::sort(kept.begin(), kept.end());
  return kept;
}

// `held_out_default`: per anchor, the group default picked without it (empty: none).
validation leave_one_out(const fitted& f, const std::vector<default_pick>& held_out_default, std::vector<int>* losers) {
  validation v;
  double log_sum = 0;
  auto view = f.view();
  view.group_default = -1;  // fitted on every anchor: scored below by the pick made without each
  for (int a = 0; a < static_cast<int>(f.anchors.size()); ++a) {
    const auto& held = f.anchors[static_cast<std::size_t>(a)];
    ++v.anchors;
    const int c = detail::nearest_choice(
        view, &f.features[static_cast<std::size_t>(a) * f.feature_count], [](int) { return true; }, a);
    std::string fallback;
    if (!held_out_default.empty()) {
      const default_pick& without = held_out_default[static_cast<std::size_t>(a)];
      auto others = view;
      others.floor_features = without.floored ? f.floor_features : 0;
      others.default_floor = without.floor;
      if (detail::within_anchors(others, &f.features[static_cast<std::size_t>(a) * f.feature_count], a))
        fallback = without.candidate;
    }
    double speedup = 1;
    if (c >= 0 || !fallback.empty()) {
      ++v.chosen;
      const auto it = held.trials.find(c >= 0 ? f.candidates[static_cast<std::size_t>(c)] : fallback);
      if (it == held.trials.end()) {
        ++v.unknown;
      } else {
        speedup = realized(*held.baseline, *it->second);
        if (speedup < slower_than) {
          ++v.slower;
          if (losers && c >= 0) losers->push_back(c);
        }
      }
    }
    log_sum += std::log(speedup);
    v.worst = std::min(v.worst, speedup);
  }
  if (v.anchors) v.geomean = std::exp(log_sum / v.anchors);
  return v;
}

}  // namespace

double conservative_log_speedup(const results::result_trial& baseline, const results::result_trial& candidate) {
  const double ratio = std::log(realized(baseline, candidate));
  const bool separated = candidate.ci_hi_us > 0 && candidate.ci_hi_us < baseline.ci_lo_us;
  return separated ? ratio : std::min(ratio, 0.0);
}

detail::choice_model_view fitted::view() const {
  return {features.data(), log_speedup.data(),
          trusted.data(),  static_cast<int>(anchors.size()),
          feature_count,   static_cast<int>(candidates.size()),
          params,          group_default,
          floor_features,  default_floor};
}

fitted fit(std::vector<anchor> anchors, detail::choice_params params, int floor_features) {
  fitted f;
  f.params = params;
  std::sort(anchors.begin(), anchors.end(), [](const anchor& a, const anchor& b) { return a.problem < b.problem; });
  f.anchors = std::move(anchors);
  f.feature_count = f.anchors.empty() ? 0 : static_cast<int>(f.anchors.front().features.size());
  f.candidates = portfolio(f.anchors, params.log_margin);
  const group_default_fit by_default = fit_group_default(f.anchors, floor_features);
  const std::string& chosen_default = by_default.pick.candidate;
  if (!chosen_default.empty()) {
    // A floored default says nothing below its floor: the vote keeps every candidate there.
    if (!by_default.pick.floored) f.candidates = undominated(f.anchors, f.candidates, chosen_default);
    else if (!std::binary_search(f.candidates.begin(), f.candidates.end(), chosen_default)) {
      f.candidates.insert(std::lower_bound(f.candidates.begin(), f.candidates.end(), chosen_default), chosen_default);
    }
    f.group_default = static_cast<int>(std::lower_bound(f.candidates.begin(), f.candidates.end(), chosen_default) -
                                       f.candidates.begin());
    if (by_default.pick.floored) {
      f.floor_features = floor_features;
      f.default_floor = by_default.pick.floor;
    }
  }
  for (const auto& c : f.candidates)
    for (const auto& a : f.anchors)
      if (const auto it = a.trials.find(c); it != a.trials.end()) {
        f.examples.push_back(it->second);
        break;
      }
  for (const auto& a : f.anchors) {
    f.features.insert(f.features.end(), a.features.begin(), a.features.end());
    for (const auto& c : f.candidates) {
      const auto it = a.trials.find(c);
      f.log_speedup.push_back(
          it == a.trials.end() ? unknown : static_cast<float>(conservative_log_speedup(*a.baseline, *it->second)));
    }
  }
  f.trusted.assign(f.candidates.size(), 1);
  // Trust only falls, so this ends: at most one pass per candidate.
  for (;;) {
    std::vector<int> losers;
    f.loo = leave_one_out(f, by_default.held_out, &losers);
    if (losers.empty()) break;
    for (const int c : losers) f.trusted[static_cast<std::size_t>(c)] = 0;
  }
  return f;
}

}  // namespace cuop::model
