// How much change matters, per kind of kernel: compare's verdict thresholds
// (docs/measurement.md, "How compare decides").
#pragma once

#include <map>
#include <string>

#include "tuner/measure/verdict.hpp"

namespace cuop::gate {

// Defaults to be calibrated on the H200 (issue 5): compute-bound kernels are the steadiest,
// memory-bound ones follow the HBM's noise, short ones the launch and event jitter.
struct thresholds {
  double compute = 0.02;       // GEMM, convolution
  double memory = 0.03;        // softmax, depthwise convolution, ops not known to be compute-bound
  double short_kernel = 0.05;  // any kernel whose baseline median is under short_below_us
  double short_below_us = 20;
  double floor_us = 1;  // a difference of medians below this is never SLOWER/FASTER
};

// "compute" or "memory": GEMM and convolution are compute-bound, except a depthwise convolution
// (groups == channels), which reads each input element for only r*s multiply-adds.
std::string op_class(const std::string& op, const std::map<std::string, long long>& dims);

struct chosen_threshold {
  std::string kind;            // "compute", "memory" or "short"
  measure::verdict_rule rule;  // the threshold of that kind, and the floor
};

// The class's threshold, or the short-kernel one when the baseline median is under
// short_below_us and that one is larger (a short kernel is never held tighter than its class).
chosen_threshold threshold_for(const thresholds& t, const std::string& op, const std::map<std::string, long long>& dims,
                               double baseline_median_us);

}  // namespace cuop::gate
