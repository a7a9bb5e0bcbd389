#include "tuner/measure/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace cuop::measure {

double quantile(std::span<const double> sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

summary summarize(std::span<const double> samples) {
  summary s;
  if (samples.empty()) return s;
  std::vector<double> v(samples.begin(), samples.end());
  std::sort(v.begin(), v.end());
  const auto n = v.size();
  s.count = static_cast<int>(n);
  s.min = v.front();
  s.max = v.back();
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(n);
  double sq = 0;
  for (double x : v) sq += (x - s.mean) * (x - s.mean);
  s.stdev = n > 1 ? std::sqrt(sq / static_cast<double>(n - 1)) : 0;
  s.q1 = quantile(v, 0.25);
  s.median = quantile(v, 0.5);
  s.q3 = quantile(v, 0.75);
  // The number of samples below the median is Binomial(n, 1/2); its normal approximation gives
  // the ranks bounding a 95% interval: n/2 -+ 1.96 sqrt(n)/2 (1-based, rounded outward).
  const double half = 1.96 * std::sqrt(static_cast<double>(n)) / 2.0;
  const auto lo_rank = static_cast<long>(std::floor(static_cast<double>(n) / 2.0 - half));
  const auto hi_rank = static_cast<long>(std::ceil(static_cast<double>(n) / 2.0 + half)) + 1;
  s.ci_lo = v[static_cast<std::size_t>(std::clamp<long>(lo_rank, 1, static_cast<long>(n)) - 1)];
  s.ci_hi = v[static_cast<std::size_t>(std::clamp<long>(hi_rank, 1, static_cast<long>(n)) - 1)];
  return s;
}

double relative_ci(const summary& s) {
  if (s.median <= 0) return INFINITY;
  return std::max(s.median - s.ci_lo, s.ci_hi - s.median) / s.median;
}

}  // namespace cuop::measure
