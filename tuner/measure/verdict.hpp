// The verdict of one comparison: is the candidate's median really slower or faster than the
// baseline's, beyond a threshold that says how much change matters (docs/measurement.md).
#pragma once

#include <string_view>

#include "tuner/measure/bootstrap.hpp"

namespace cuop::measure {

enum class verdict { same, faster, slower, ambiguous };

struct verdict_rule {
  double threshold = 0.02;  // relative change that matters (0.02: 2%)
  double floor_us = 1.0;    // absolute change in microseconds that never matters
};

// The floor as a relative change of this baseline: max(threshold, floor_us / baseline median).
// A 4 us kernel with a 1 us floor needs a 25% change to be called slower or faster.
double effective_threshold(const verdict_rule& rule, double baseline_median_us);

// With t the effective threshold: SLOWER when the whole interval lies above 1 + t, FASTER when it
// lies below 1 - t, SAME when it lies inside [1 - t, 1 + t], AMBIGUOUS when it straddles a bound.
// A difference of medians under the floor is never SLOWER or FASTER, whatever the interval.
verdict decide(const ratio_interval& ci, double baseline_median_us, const verdict_rule& rule);

// "SAME", "FASTER", "SLOWER", "AMBIGUOUS"
std::string_view verdict_name(verdict v) noexcept;

}  // namespace cuop::measure
