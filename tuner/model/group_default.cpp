#include "tuner/model/group_default.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace cuop::model {

namespace {

double size_at(const anchor& a, int floor_features) { return detail::floor_size(a.features.data(), floor_features); }

// The candidate beating the baseline clearly at every anchor but `skip` (-1: all of them) whose
// size is at least `floor` (with floor_features > 0); empty when none qualifies.
std::string pick(const std::vector<anchor>& anchors, int skip, int floor_features, double floor) {
  struct score {
    double sum = 0;
    double low = std::numeric_limits<double>::infinity();
    int seen = 0;
  };
  std::map<std::string, score> scores;  // name order: the tie rule
  int counted = 0;
  for (int a = 0; a < static_cast<int>(anchors.size()); ++a) {
    const auto& at = anchors[static_cast<std::size_t>(a)];
    if (a == skip || (floor_features > 0 && size_at(at, floor_features) < floor)) continue;
    ++counted;
    for (const auto& [instance, t] : at.trials) {
      if (t == at.baseline) continue;
      const double s = conservative_log_speedup(*at.baseline, *t);
      auto& sc = scores[instance];
      sc.sum += s;
      sc.low = std::min(sc.low, s);
      ++sc.seen;
    }
  }
  // A floor needs anchors enough above it (one fewer when one is held out, as for the group).
  if (floor_features > 0 && counted < group_default_min_anchors - (skip >= 0 ? 1 : 0)) return {};
  std::string best;
  double best_mean = -std::numeric_limits<double>::infinity();
  for (const auto& [instance, sc] : scores) {
    if (sc.seen != counted || !(sc.low > group_default_log_margin)) continue;
    if (const double mean = sc.sum / sc.seen; mean > best_mean) {
      best = instance;
      best_mean = mean;
    }
  }
  return best;
}

// The whole group's default, else (with floor_features > 0) the one of the lowest floor, among
// the anchors' own sizes, that has one.
default_pick pick_default(const std::vector<anchor>& anchors, int skip, int floor_features) {
  if (std::string c = pick(anchors, skip, 0, 0); !c.empty() || floor_features <= 0) return {c};
  std::vector<double> sizes;
  for (int a = 0; a < static_cast<int>(anchors.size()); ++a)
    if (a != skip) sizes.push_back(size_at(anchors[static_cast<std::size_t>(a)], floor_features));
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  for (const double floor : sizes)
    if (std::string c = pick(anchors, skip, floor_features, floor); !c.empty()) return {c, true, floor};
  return {};
}

bool covers(const default_pick& p, const anchor& a, int floor_features) {
  return !p.candidate.empty() && (!p.floored || size_at(a, floor_features) >= p.floor);
}

}  // namespace

group_default_fit fit_group_default(const std::vector<anchor>& anchors, int floor_features) {
  group_default_fit g;
  const int n = static_cast<int>(anchors.size());
  if (n < group_default_min_anchors) {
    g.why_none = fmt::format("{} anchor{} (a group default needs {})", n, n == 1 ? "" : "s", group_default_min_anchors);
    return g;
  }
  const default_pick all = pick_default(anchors, -1, floor_features);
  if (all.candidate.empty()) {
    g.why_none = floor_features > 0 ? "no candidate beats the baseline by 10% at every anchor above any floor"
                                    : "no candidate beats the baseline by 10% at every anchor";
    return g;
  }
  g.held_out.resize(anchors.size());
  for (int a = 0; a < n; ++a) {
    const auto& held = anchors[static_cast<std::size_t>(a)];
    const default_pick p = pick_default(anchors, a, floor_features);
    g.held_out[static_cast<std::size_t>(a)] = p;
    if (!covers(p, held, floor_features)) continue;
    const auto it = held.trials.find(p.candidate);
    if (it == held.trials.end() || held.baseline->median_us / it->second->median_us < 1.0) {
      g.held_out.clear();
      g.why_none = fmt::format("leave-one-out: chosen without {}, {} is slower there than the baseline", held.problem,
                               p.candidate);
      return g;
    }
  }
  g.pick = all;
  return g;
}

}  // namespace cuop::model
