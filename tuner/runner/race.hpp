// `strategy: race`: one problem's candidates measured in short rounds (samples pooled per
// candidate, one batch size per candidate), the clearly slower dropped after each round, the
// finalists re-measured interleaved (A B C, C B A, ...) before the winner is chosen.
// docs/measurement.md, racing. The decisions are tuner/strategy/race.hpp's.
#pragma once

#include <functional>
#include <vector>

#include "tuner/spec/spec.hpp"
#include "tuner/store/store.hpp"
#include "tuner/trial/protocol.hpp"

namespace cuop::runner {

struct race_contender {
  store::trial_record trial;     // problem, config, run, device: the race fills and stores the rest
  trial::trial_request request;  // the full request; each round's budget is race_round_s
  bool baseline = false;         // what the dispatch model must beat: never dropped, always a finalist
};

struct race_callbacks {
  std::function<trial::trial_response(const trial::trial_request&)> measure;  // one round in the worker
  std::function<void(store::trial_record&)> store;  // summarizes ("ok", "dropped_race") and stores
  std::function<void()> between;                    // after every round of a contender
};

// Every contender ends stored once: "ok" (a finalist, all its rounds' samples, stop reason
// "race"), "dropped_race" (the same, for one clearly slower), or the failure its first failing
// round answered. A round whose batch size differs from the contender's first (its graph failed)
// is not pooled: batched and single-launch samples never mix.
void run_race(std::vector<race_contender> field, const measure::settings& settings, const race_callbacks& callbacks);

}  // namespace cuop::runner
