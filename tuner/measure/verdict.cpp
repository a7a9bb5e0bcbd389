#include "tuner/measure/verdict.hpp"

#include <algorithm>
#include <cmath>

namespace cuop::measure {

double effective_threshold(const verdict_rule& rule, double baseline_median_us) {
  if (!(baseline_median_us > 0)) return rule.threshold;
  return std::max(rule.threshold, rule.floor_us / baseline_median_us);
}

verdict decide(const ratio_interval& ci, double baseline_median_us, const verdict_rule& rule) {
  const double t = effective_threshold(rule, baseline_median_us);
  // The effective threshold already keeps an interval beyond it away from sub-floor changes; the
  // point estimate is checked too because a percentile interval need not contain it.
  const bool beyond_floor = std::fabs(ci.ratio - 1) * baseline_median_us >= rule.floor_us;
  if (ci.lo > 1 + t && beyond_floor) return verdict::slower;
  if (ci.hi < 1 - t && beyond_floor) return verdict::faster;
  if (ci.lo >= 1 - t && ci.hi <= 1 + t) return verdict::same;
  return verdict::ambiguous;
}

std::string_view verdict_name(verdict v) noexcept {
  switch (v) {
    case verdict::same: return "SAME";
    case verdict::faster: return "FASTER";
    case verdict::slower: return "SLOWER";
    case verdict::ambiguous: return "AMBIGUOUS";
  }
  return "AMBIGUOUS";
}

}  // namespace cuop::measure
