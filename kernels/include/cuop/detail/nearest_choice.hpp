// The dispatch's choice for any shape (docs/dispatch.md): among the candidates measured at the
// tuned shapes nearest the call's, the one whose worst measured speedup over the baseline there is
// highest, if that worst case is a clear win and the call lies among those shapes (no
// extrapolation); else the model's group default, where validation gave it one and the call lies
// among the anchors; else the baseline. One implementation, used by the
// library at run time and by the tuner to validate the model on shapes it was not fitted on, so
// what is validated is what ships. Plain C++, no allocation.
#pragma once

#include <cmath>
#include <cstddef>

namespace cuop::detail {

// How a model chooses. Distances are L1 over the features (log2 of the shape's dimensions).
struct choice_params {
  int neighbours;     // the k nearest anchors within `radius` vote
  double radius;      // farther anchors say nothing about the call's shape
  double log_margin;  // a candidate must beat the baseline by more than this (log) at every voter
  double reach;       // no extrapolation: in every feature the call lies within the voters' span,
                      // widened by this much (a kernel that wins at m = 1 may lose at m = 2)
};

// One fitted model's data, as the emitted tables hold it.
//   features:     anchors x feature_count, row-major
//   log_speedup:  anchors x candidates, row-major: log(baseline time / candidate time) measured at
//                 the anchor where the data tell them apart (intervals of the medians apart), else
//                 no gain; NaN where the candidate was not measured or failed there
//   trusted:      per candidate, 1 when validation never saw it lose where it was chosen
//   group_default: the candidate that runs where the nearest anchors do not choose, among the
//                 anchors: one that beat the baseline clearly at every anchor of the model and
//                 that leave-one-out picked with the same success (-1: none, the baseline runs)
//   floor_features, default_floor: with floor_features > 0, the group default holds only for
//                 shapes whose size (floor_size over their first floor_features features) is at
//                 least default_floor, and it was fitted to the anchors there alone
struct choice_model_view {
  const double* features;
  const float* log_speedup;
  const unsigned char* trusted;
  int anchors;
  int feature_count;
  int candidates;
  choice_params params;
  int group_default;
  int floor_features = 0;
  double default_floor = 0;
};

// The size a group default's floor is compared with (choice_model_view): log2 of 1 / sum(1 / d)
// over the first floor_features dimensions d (the features are their log2). One dimension: the
// dimension itself. GEMM's m, n, k: its multiply-adds per element of A, B and D together, the
// arithmetic intensity, which says whether a cost per element moved (a copy of the operands)
// pays for itself; unlike the work, it is small wherever one dimension is.
inline double floor_size(const double* features, int floor_features) noexcept {
  double inverse = 0;
  for (int f = 0; f < floor_features; ++f) inverse += std::exp2(-features[f]);
  return floor_features > 0 ? -std::log2(inverse) : 0.0;
}

// Most anchors one model holds (the neighbour search keeps its k best in a fixed array).
inline constexpr int max_neighbours = 16;

// The nearest anchors' vote for `query` (feature_count values): a candidate's index, or -1 when
// they choose none. `usable(c)` says whether candidate c can run the call at all (a plan for its
// shape, a configuration the installed library accepts); `skip_anchor` (>= 0) leaves that anchor
// out, which is how leave-one-out validation asks. A call at an anchor's own shape (distance 0) is
// decided by that anchor alone: it was measured there.
// `at_anchor` (when not null) says whether the call's shape is an anchor's own.
template <typename Usable>
int nearest_vote(const choice_model_view& m, const double* query, Usable&& usable, int skip_anchor = -1,
                 bool* at_anchor = nullptr) {
  const int k =
      m.params.neighbours < 1 ? 1 : (m.params.neighbours > max_neighbours ? max_neighbours : m.params.neighbours);
  int nearest[max_neighbours];
  double dist[max_neighbours];
  int found = 0;
  for (int a = 0; a < m.anchors; ++a) {
    if (a == skip_anchor) continue;
    double d = 0;
    for (int f = 0; f < m.feature_count; ++f) d += std::fabs(m.features[a * m.feature_count + f] - query[f]);
    if (!(d <= m.params.radius)) continue;
    // Insertion into the k best, ties kept in anchor order (deterministic).
    int at = found < k ? found++ : k;
    while (at > 0 && dist[at - 1] > d) {
      if (at < k) {
        dist[at] = dist[at - 1];
        nearest[at] = nearest[at - 1];
      }
      --at;
    }
    if (at < k) {
      dist[at] = d;
      nearest[at] = a;
    }
  }
  if (at_anchor) *at_anchor = found > 0 && dist[0] == 0;
  if (found == 0) return -1;
  // At a tuned shape its own measurement decides; elsewhere at least two anchors must agree.
  const int voters = dist[0] == 0 ? 1 : found;
  if (voters < 2 && dist[0] != 0) return -1;
  for (int f = 0; f < m.feature_count && dist[0] != 0; ++f) {
    double lo = INFINITY, hi = -INFINITY;
    for (int v = 0; v < voters; ++v) {
      const double x = m.features[nearest[v] * m.feature_count + f];
      lo = x < lo ? x : lo;
      hi = x > hi ? x : hi;
    }
    if (query[f] < lo - m.params.reach || query[f] > hi + m.params.reach) return -1;
  }
  int best = -1;
  double best_low = m.params.log_margin;
  for (int c = 0; c < m.candidates; ++c) {
    if (!m.trusted[c]) continue;
    double low = INFINITY;
    for (int v = 0; v < voters && low > best_low; ++v) {
      const float s = m.log_speedup[nearest[v] * m.candidates + c];
      low = std::isnan(s) ? -INFINITY : (s < low ? s : low);
    }
    if (low > best_low && usable(c)) {
      best = c;
      best_low = low;
    }
  }
  return best;
}

// Whether `query` lies among the model's anchors (but `skip_anchor`): in every feature within
// their span, widened by `reach`. The group default was measured only there. With a floor, only
// the anchors at or above it count, and the query must be at or above it too.
inline bool within_anchors(const choice_model_view& m, const double* query, int skip_anchor = -1) noexcept {
  const bool floored = m.floor_features > 0;
  if (floored && !(floor_size(query, m.floor_features) >= m.default_floor)) return false;
  for (int f = 0; f < m.feature_count; ++f) {
    double lo = INFINITY, hi = -INFINITY;
    for (int a = 0; a < m.anchors; ++a) {
      if (a == skip_anchor) continue;
      if (floored && floor_size(&m.features[a * m.feature_count], m.floor_features) < m.default_floor) continue;
      const double x = m.features[a * m.feature_count + f];
      lo = x < lo ? x : lo;
      hi = x > hi ? x : hi;
    }
    if (!(query[f] >= lo - m.params.reach && query[f] <= hi + m.params.reach)) return false;
  }
  return true;
}

// The chosen candidate for `query`: the nearest anchors' vote, else the group default if the call
// lies among the anchors (no extrapolation, as for the vote) and it can run the call; -1 for the
// baseline. Arguments as nearest_vote's.
template <typename Usable>
int nearest_choice(const choice_model_view& m, const double* query, Usable&& usable, int skip_anchor = -1,
                   bool* at_anchor = nullptr) {
  const int voted = nearest_vote(m, query, usable, skip_anchor, at_anchor);
  if (voted >= 0 || m.group_default < 0 || m.group_default >= m.candidates) return voted;
  return within_anchors(m, query, skip_anchor) && usable(m.group_default) ? m.group_default : -1;
}

}  // namespace cuop::detail
