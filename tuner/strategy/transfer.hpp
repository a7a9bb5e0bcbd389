// The transfer strategy's decisions (`strategy: transfer`; docs/measurement.md, budgeted search):
// a trial budget per problem, spent on the baseline first, then on what won at the nearest
// problems already measured (of the same group), then on the rest in a seeded random order.
// Problems are visited in an order that sorts neighbours next to each other. Pure functions over
// shapes and verified outcomes; the sweep (tuner/runner/sweep.cpp) measures what they choose, and
// `cuop-tune replay` (strategy/replay.hpp) replays them on complete results.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cuop::strategy {

// Trials per problem: a count, or a fraction of the problem's candidates (exactly one is set).
struct trial_budget {
  std::size_t trials = 0;  // > 0: at most this many
  double fraction = 0;     // in (0, 1]: ceil(fraction x candidates)

  // The trials a problem of `candidates` candidates gets: never more than it has, at least one
  // while it has any.
  std::size_t for_problem(std::size_t candidates) const;
  std::string str() const;  // "12 trials", "25%"
};

// budget: {seconds: S}, the measuring's wall time for the whole sweep, shared out as it goes: a
// problem may spend the time left divided evenly over the problems left (each of `lanes` GPUs
// measures its own problems at once). Time that a problem leaves unspent passes to the others.
double time_share_s(double left_s, std::size_t problems_left, std::size_t lanes);

// Whether a problem measures its next candidate under a time budget: its first always (the
// baseline, when it is one: the dispatch model needs it), each later one while the problem has
// spent less than its share.
bool within_time(std::size_t measured, double spent_s, double share_s);

struct transfer_params {
  trial_budget budget;
  int neighbours = 4;      // nearest measured problems whose winners are tried; 0: none
  std::uint64_t seed = 1;  // of the random order of the rest
};

// Where a problem sits: its key, its group (shapes that share configurations) and its features
// (log2 of its sizes: catalog::op_desc::features_of).
struct shape_point {
  std::string key;
  std::string group;
  std::vector<double> features;
};

// A verified trial: its configuration and timing.
struct outcome {
  std::string instance;
  double median_us = 0;
  double ci_lo_us = 0, ci_hi_us = 0;  // 95% CI of the median
};

// A problem measured before (this run, or an earlier one on the same GPU model): its verified trials.
struct measured_problem {
  shape_point shape;
  std::vector<outcome> verified;
};

// The order problems are visited in (indices into `shapes`): by group, then by features
// (lexicographic), then by key, so that each problem comes after the ones that share its first
// features. Depends only on the shapes, not on their order.
std::vector<std::size_t> visit_order(std::span<const shape_point> shapes);

// L1 distance of two feature vectors (of one length), as the dispatch model measures it.
double feature_distance(std::span<const double> a, std::span<const double> b);

// The `k` nearest problems of `known` in the group of `s` that have a verified trial (of one of
// `candidates`, when given: a neighbour that measured none of them has nothing to suggest),
// nearest first (indices into `known`; equal distances by key). A problem of `s`'s own key
// counts: it was measured before, which says the most.
std::vector<std::size_t> nearest_measured(const shape_point& s, std::span<const measured_problem> known, int k,
                                          const std::set<std::string>* candidates = nullptr);

// What a measured problem suggests: its winner, and the verified trials that the data cannot tell
// from it (CI overlapping the winner's) or within near_winner of its median; each with its median
// over the winner's (1 for the winner), fastest first. With `candidates`, among those only (the
// best of what the problem asking can run).
struct suggestion {
  std::string instance;
  double ratio = 1;
};
inline constexpr double near_winner = 0.03;
std::vector<suggestion> winners_of(const measured_problem& p, const std::set<std::string>* candidates = nullptr);

// Why a candidate is where it is in a problem's order.
enum class pick_reason { baseline, neighbour, random };
std::string_view name_of(pick_reason r);

struct pick {
  std::string instance;
  pick_reason reason = pick_reason::random;
  std::string from;  // neighbour: the problem that suggested it
};

// Every candidate of a problem, in the order the transfer strategy measures them: the baseline
// (when it is a candidate), then the suggestions of the nearest measured problems (winners_of of
// each among this problem's candidates; by ratio, then by the neighbour's rank), then the rest in
// the problem's random order (seeded_order of all its candidates, `seed` and its key: the same
// whatever the neighbours suggested). Candidates are taken as a set: their order does not
// matter, duplicates count once.
std::vector<pick> transfer_order(const shape_point& s, std::span<const std::string> candidates,
                                 const std::string& baseline, std::span<const measured_problem> known,
                                 const transfer_params& params);

// The names in a random order that depends only on the names (as a set), `seed` and `salt`: the same
// on every platform (splitmix64 and a Fisher-Yates shuffle, no std:: distribution).
std::vector<std::string> seeded_order(std::vector<std::string> names, std::uint64_t seed, std::string_view salt);

// The candidates to measure now: walking `order`, the ones not `already` measured (a resumed sweep,
// an earlier run of the same environment), until the problem has `budget` trials in all, the
// already measured ones counted.
std::vector<pick> to_measure(std::span<const pick> order, std::span<const std::string> already, std::size_t budget);

}  // namespace cuop::strategy
