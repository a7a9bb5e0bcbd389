// Two builds on one machine (`cuop-tune gate --against`): the order of their measurement rounds,
// and each build's rounds pooled into one result set (docs/measurement.md, "The gate").
#pragma once

#include <set>
#include <string>
#include <vector>

#include "tuner/gate/result_set.hpp"

namespace cuop::gate {

// a: this build (the candidate); b: the other build (the baseline).
enum class build { a, b };

// `cycles` times A B B A. Each build is measured as much early as late, so a drift of the machine
// that is linear in time (clocks, temperature, a neighbour's load) adds the same to both sides'
// pooled samples. Throws cuop::usage_error when cycles < 1.
std::vector<build> abba_schedule(int cycles);

// "A B B A"
std::string describe_schedule(const std::vector<build>& rounds);

// The 1-based numbers of the rounds of one build: {1, 4} for A in A B B A.
std::vector<int> rounds_of(const std::vector<build>& rounds, build side);

struct pooled_rounds {
  result_set set;
  // Configurations left out, one line each: "<problem> <instance>: verified in 1 of 2 rounds"
  std::vector<std::string> dropped;
  std::set<std::pair<std::string, std::string>> dropped_keys;  // (problem, instance) of those
};

// Each side without the configurations the other side's pooling left out, so that both builds'
// winners are chosen among the same configurations (a configuration near the batching threshold,
// timed one way in round 1 and the plan's way later, drops out of A's pool; B must lose it too).
// Returns how many configurations each side lost this way.
int drop_each_others_left_out(pooled_rounds& a, pooled_rounds& b);

// One build's rounds as one result set named `source`: for each (problem, configuration) verified
// in every round, the raw samples of all rounds together, summarized again (median, its 95% CI,
// the count). A configuration missing from a round, or without raw samples in one, is left out
// and named in `dropped`: its samples would not straddle the other build's rounds. Environments
// are kept once each. Throws cuop::error when no round was given or nothing is left.
pooled_rounds pool_rounds(const std::vector<const result_set*>& rounds, std::string source);

}  // namespace cuop::gate
