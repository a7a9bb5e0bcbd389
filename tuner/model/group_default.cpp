#include "tuner/model/group_default.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>

namespace cuop::model {

namespace {

// The group default from every anchor but `skip` (-1: all of them); empty when none qualifies.
std::string pick(const std::vector<anchor>& anchors, int skip) {
  struct score {
    double sum = 0;
    double low = std::numeric_limits<double>::infinity();
    int seen = 0;
  };
  std::map<std::string, score> scores;  // name order: the tie rule
  int counted = 0;
  for (int a = 0; a < static_cast<int>(anchors.size()); ++a) {
    if (a == skip) continue;
    ++counted;
    const auto& at = anchors[static_cast<std::size_t>(a)];
    for (const auto& [instance, t] : at.trials) {
      if (t == at.baseline) continue;
      const double s = conservative_log_speedup(*at.baseline, *t);
      auto& sc = scores[instance];
      sc.sum += s;
      sc.low = std::min(sc.low, s);
      ++sc.seen;
    }
  }
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

}  // namespace

group_default_fit fit_group_default(const std::vector<anchor>& anchors) {
  group_default_fit g;
  const int n = static_cast<int>(anchors.size());
  if (n < group_default_min_anchors) {
    g.why_none = fmt::format("{} anchor{} (a group default needs {})", n, n == 1 ? "" : "s", group_default_min_anchors);
    return g;
  }
  const std::string all = pick(anchors, -1);
  if (all.empty()) {
    g.why_none = "no candidate beats the baseline by 10% at every anchor";
    return g;
  }
  g.held_out.resize(anchors.size());
  for (int a = 0; a < n; ++a) {
    const auto& held = anchors[static_cast<std::size_t>(a)];
    const std::string c = pick(anchors, a);
    g.held_out[static_cast<std::size_t>(a)] = c;
    if (c.empty()) continue;
    const auto it = held.trials.find(c);
    if (it == held.trials.end() || held.baseline->median_us / it->second->median_us < 1.0) {
      g.held_out.clear();
      g.why_none =
          fmt::format("leave-one-out: chosen without {}, {} is slower there than the baseline", held.problem, c);
      return g;
    }
  }
  g.candidate = all;
  return g;
}

}  // namespace cuop::model
