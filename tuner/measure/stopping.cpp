#include "tuner/measure/stopping.hpp"

#include <algorithm>
#include <cmath>

#include "tuner/measure/statistics.hpp"

namespace cuop::measure {

std::string stopping_rule::after_batch(std::span<const double> samples_us, double elapsed_s) {
  const int n = static_cast<int>(samples_us.size());
  const double width = relative_ci(summarize(samples_us));
  m_widths.push_back(width);
  m_counts.push_back(n);

  if (n >= m_rule.min_samples && width <= m_rule.rel_ci) return "ci";

  const auto b = static_cast<std::size_t>(std::max(0, m_rule.stable_batches));
  if (b > 0 && m_widths.size() >= b + 1 && m_counts[m_counts.size() - b - 1] >= m_rule.min_samples) {
    const auto last = std::span<const double>(m_widths).last(b + 1);
    const auto [lo, hi] = std::minmax_element(last.begin(), last.end());
    if (std::isfinite(*hi) && *hi - *lo <= m_rule.stable_change * *hi) return "stable_noise";
  }

  if (n >= m_rule.max_samples) return "max_samples";
  if (elapsed_s >= m_rule.max_time_s && n >= 3) return "max_time";
  return "";
}

}  // namespace cuop::measure
