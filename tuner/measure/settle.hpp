// Warm-up: when have the SM clock and the launch times settled? Pure functions over the readings
// the timer collects during warm-up (tuner/measure/timer.cpp), tested on synthetic data.
#pragma once

#include <span>

namespace cuop::measure {

struct settle_rule {
  int window = 8;              // k: the last k readings are compared
  double clock_band = 0.01;    // the last k SM clocks within this fraction of their median
  double time_band = 0.02;     // median of the last k times within this fraction of the k before
  double time_floor_us = 0.5;  // ... or within this many microseconds (CUDA events' resolution)
};

// Median of `v` (unsorted; empty: 0).
double median_of(std::span<const double> v);

// True when the last `rule.window` clock readings lie within `clock_band` of their median (a
// reading of 0 is "unknown": the clock test is then skipped, the time test decides alone), and
// the median of the last `window` launch times is within max(time_band x it, time_floor_us) of
// the median of the `window` times before them. Fewer than 2 x window times: never settled.
bool is_settled(std::span<const double> times_us, std::span<const double> clocks_mhz, const settle_rule& rule);

}  // namespace cuop::measure
