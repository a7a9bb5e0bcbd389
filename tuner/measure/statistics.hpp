// Summary statistics of timing samples and the confidence interval of their median.
#pragma once

#include <span>
#include <vector>

namespace cuop::measure {

struct summary {
  int count = 0;
  double min = 0, max = 0, mean = 0, stdev = 0;
  double q1 = 0, median = 0, q3 = 0;
  double ci_lo = 0, ci_hi = 0;  // distribution-free 95% CI of the median (order statistics)
};

// Quantile by linear interpolation between order statistics (type 7); `sorted` must be sorted.
double quantile(std::span<const double> sorted, double q);

// Empty input gives a zero summary.
summary summarize(std::span<const double> samples);

// Half-width of the median's CI relative to the median: max(median - lo, hi - median) / median.
double relative_ci(const summary& s);

}  // namespace cuop::measure
