// The race strategy's decisions (`strategy: race`; docs/measurement.md, racing): candidates of one
// problem are measured in short rounds, samples pooled per candidate; after each round the clearly
// slower ones are dropped; the finalists are re-measured interleaved; the winner's ties are the
// finalists whose intervals overlap its own. Pure functions over the pooled intervals; the sweep
// (tuner/runner/sweep.cpp) runs the rounds.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace cuop::strategy {

struct race_entry {
  double median = 0;
  double ci_lo = 0, ci_hi = 0;  // 95% CI of the median
};

// The entry with the lowest median (the first on a tie); entries must not be empty.
std::size_t race_leader(std::span<const race_entry> entries);

// Indices (ascending) of the entries that stay: all but those whose CI low exceeds the leader's
// CI high by more than `margin` of it (ci_lo > leader.ci_hi x (1 + margin)). The leader stays.
std::vector<std::size_t> race_survivors(std::span<const race_entry> entries, double margin);

// Indices (ascending) of the entries other than the leader whose CI overlaps the leader's: the
// data cannot tell them from the winner.
std::vector<std::size_t> ties_with_leader(std::span<const race_entry> entries);

// The order of `n` finalists in interleaved round `round` (0-based): forward in even rounds,
// backward in odd ones (A B C, C B A, A B C, ...), so slow drift weighs on every finalist alike.
std::vector<std::size_t> interleaved_order(std::size_t n, int round);

}  // namespace cuop::strategy
