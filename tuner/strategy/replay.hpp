// Replays the transfer strategy on results where every candidate of every problem was measured
// (an exhaustive or raced sweep): per problem, which candidates the strategy would have measured
// under a budget, knowing only what it would have measured at the problems before it, and the best
// of them against the best of all (`cuop-tune replay`, docs/measurement.md, budgeted search).
#pragma once

#include <cstddef>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "tuner/strategy/transfer.hpp"

namespace cuop::strategy {

// One problem of the complete results.
struct replay_problem {
  shape_point shape;
  std::string baseline;                     // its baseline's instance ("" none)
  std::vector<std::string> candidates;      // every configuration measured there, failures included
  std::map<std::string, outcome> verified;  // the verified ones, by instance
};

struct replay_row {
  std::string key;
  std::size_t visit = 0;       // 0-based place in the visit order
  std::size_t candidates = 0;  // what the exhaustive sweep measured
  std::size_t used = 0;        // what the strategy measured
  std::string best;            // the fastest of all ("" none verified)
  std::string chosen;          // the fastest of those measured ("" none verified)
  double best_us = 0, chosen_us = 0;
  bool baseline_measured = false;
  std::size_t neighbour_picks = 0;  // of `used`, suggested by neighbours

  // chosen_us / best_us - 1; scored only when both are verified.
  bool scored() const { return !best.empty() && !chosen.empty(); }
  double regret() const { return scored() ? chosen_us / best_us - 1 : 0; }
};

struct replay_summary {
  trial_budget budget;
  std::vector<replay_row> rows;  // by problem key
  std::size_t trials = 0;        // measured by the strategy
  std::size_t exhaustive_trials = 0;
  std::size_t scored = 0;     // problems with a verified best and a verified choice
  std::size_t missed = 0;     // a verified best, but nothing verified among those measured
  std::size_t unscored = 0;   // nothing verified at all: no best to compare with
  double geomean_regret = 0;  // exp(mean log(chosen / best)) - 1 over the scored problems
  double worst_regret = 0;
  std::string worst;         // its problem
  std::size_t within_5 = 0;  // scored problems with a regret of at most 5%
  std::size_t exact = 0;     // scored problems where the strategy found the best itself

  double fraction() const {
    return exhaustive_trials ? static_cast<double>(trials) / static_cast<double>(exhaustive_trials) : 0;
  }
};

// What the database knows before the replayed sweep starts.
enum class prior_knowledge {
  none,        // nothing: each problem knows what the strategy measured at those visited before it
  exhaustive,  // every other problem, measured fully (an earlier exhaustive sweep of the other
               // shapes on the same GPU: leave-one-out)
};

// The transfer strategy over `problems` in its visit order.
replay_summary replay_transfer(std::span<const replay_problem> problems, const transfer_params& params,
                               prior_knowledge prior = prior_knowledge::none);

}  // namespace cuop::strategy
