// When to stop taking samples: the median's 95% CI is tight enough ("ci"), the CI has stopped
// shrinking ("stable_noise"), or a hard cap ("max_samples", "max_time"). Fed after every batch
// by the timer; deterministic, so it is tested on synthetic samples.
#pragma once

#include <span>
#include <string>
#include <vector>

namespace cuop::measure {

struct stop_rule {
  int min_samples = 10;
  int max_samples = 300;
  double max_time_s = 2.0;
  double rel_ci = 0.01;
  // "stable_noise": once min_samples are in, the relative CI half-width at the last
  // `stable_batches` + 1 batch ends (all at >= min_samples) spans less than `stable_change` of
  // its largest value: more samples stopped narrowing it. 0 batches turns the exit off.
  int stable_batches = 3;
  double stable_change = 0.03;
};

class stopping_rule {
 public:
  explicit stopping_rule(const stop_rule& rule) : m_rule(rule) {}

  // After a batch: every sample so far and the seconds spent sampling. Returns the stop reason,
  // or "" to take another batch. Checked in this order: ci, stable_noise, max_samples, max_time.
  std::string after_batch(std::span<const double> samples_us, double elapsed_s);

  // Relative CI half-width after each batch (infinite until there are samples).
  const std::vector<double>& widths() const { return m_widths; }

 private:
  stop_rule m_rule;
  std::vector<double> m_widths;
  std::vector<int> m_counts;
};

}  // namespace cuop::measure
