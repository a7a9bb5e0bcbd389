// From a worker's answer to a stored trial: the fields it carries, and the summary statistics of
// the samples (shared by the exhaustive sweep and the race).
#pragma once

#include "tuner/store/store.hpp"
#include "tuner/trial/protocol.hpp"

namespace cuop::runner {

// Status, message (or, for "ok", the timer's note), samples and their clocks, warm-up, batch,
// clock source and stop reason of `r` into `t`.
void fill_trial(store::trial_record& t, const trial::trial_response& r);

// min, median, quartiles, mean, stdev, CI, count and GB/s (from problem.bytes) of t.sample_us.
void summarize_trial(store::trial_record& t);

}  // namespace cuop::runner
