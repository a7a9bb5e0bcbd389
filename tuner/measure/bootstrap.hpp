// The confidence interval of a ratio of medians (candidate / baseline) by a seeded percentile
// bootstrap: what `cuop-tune compare` decides on (docs/measurement.md, "How compare decides").
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace cuop::measure {

// What is known of one side's median: its raw samples, or, when the source kept none (a results
// file exported before samples were), only the median and its stored 95% CI.
struct median_evidence {
  std::vector<double> samples;  // raw times; empty: use median and CI below
  double median = 0;
  double ci_lo = 0, ci_hi = 0;  // 95% CI of the median, used only without samples

  bool has_samples() const noexcept { return !samples.empty(); }
};

struct bootstrap_options {
  int resamples = 5000;
  std::uint64_t seed = 1;
  double confidence = 0.95;
};

struct ratio_interval {
  double ratio = 0;          // median(candidate) / median(baseline), from all samples
  double lo = 0, hi = 0;     // percentile bootstrap interval of that ratio
  bool approximate = false;  // a side had no samples: its median was drawn from a normal
                             // approximation of its stored CI instead of resampled
};

// Each resample draws every side's samples with replacement and takes the ratio of the two
// medians; the interval is the (1-c)/2 and (1+c)/2 quantiles of those ratios. A side without
// samples contributes Normal(median, se) draws with se = (ci_hi - ci_lo) / (2 * 1.96).
// Deterministic for a given seed on every platform (no implementation-defined distributions).
// Throws cuop::error when a side has neither samples nor a positive median.
ratio_interval bootstrap_median_ratio(const median_evidence& baseline, const median_evidence& candidate,
                                      const bootstrap_options& options);

// The same from raw samples only.
ratio_interval bootstrap_median_ratio(std::span<const double> baseline, std::span<const double> candidate,
                                      const bootstrap_options& options);

}  // namespace cuop::measure
