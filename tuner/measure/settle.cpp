#include "tuner/measure/settle.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace cuop::measure {

double median_of(std::span<const double> v) {
  if (v.empty()) return 0;
  std::vector<double> s(v.begin(), v.end());
  const auto mid = s.size() / 2;
  std::nth_element(s.begin(), s.begin() + static_cast<long>(mid), s.end());
  if (s.size() % 2 == 1) return s[mid];
  const double hi = s[mid];
  return (*std::max_element(s.begin(), s.begin() + static_cast<long>(mid)) + hi) / 2;
}

bool is_settled(std::span<const double> times_us, std::span<const double> clocks_mhz, const settle_rule& rule) {
  const auto k = static_cast<std::size_t>(std::max(1, rule.window));
  if (times_us.size() < 2 * k) return false;

  if (clocks_mhz.size() >= k) {
    const auto last = clocks_mhz.last(k);
    const bool known = std::none_of(last.begin(), last.end(), [](double c) { return c <= 0; });
    if (known) {
      const auto [lo, hi] = std::minmax_element(last.begin(), last.end());
      if (*hi - *lo > rule.clock_band * median_of(last)) return false;
    }
  }

  const double recent = median_of(times_us.last(k));
  const double before = median_of(times_us.subspan(times_us.size() - 2 * k, k));
  return std::fabs(recent - before) <= std::max(rule.time_band * before, rule.time_floor_us);
}

}  // namespace cuop::measure
