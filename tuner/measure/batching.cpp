#include "tuner/measure/batching.hpp"

#include <algorithm>
#include <cmath>

namespace cuop::measure {

namespace {

// Sets that together exceed 2 x L2 (floor + 1), capped; at most `launches` of them; the flush
// before each graph is needed when they do not exceed it.
batch_plan with_sets(int launches, std::size_t set_bytes, long long l2_bytes, const batch_limits& limits) {
  batch_plan p;
  const double cold = 2.0 * static_cast<double>(std::max(0LL, l2_bytes));
  const double needed = std::floor(cold / static_cast<double>(set_bytes)) + 1;
  p.launches = launches;
  p.sets = static_cast<int>(std::clamp(needed, 2.0, static_cast<double>(std::min(limits.max_sets, launches))));
  p.flush = static_cast<double>(p.sets) * static_cast<double>(set_bytes) <= cold;
  return p;
}

}  // namespace

batch_plan plan_batch(double estimate_us, double threshold_us, std::size_t set_bytes, long long l2_bytes,
                      const batch_limits& limits) {
  if (threshold_us <= 0 || estimate_us <= 0 || estimate_us >= threshold_us || set_bytes == 0) return {};
  const double cold = 2.0 * static_cast<double>(std::max(0LL, l2_bytes));
  const double needed =
      std::min(std::floor(cold / static_cast<double>(set_bytes)) + 1, static_cast<double>(limits.max_sets));
  const double by_time = std::ceil(limits.graph_target_us / estimate_us);
  const int launches =
      static_cast<int>(std::clamp(std::max(by_time, needed), 2.0, static_cast<double>(limits.max_launches)));
  return with_sets(launches, set_bytes, l2_bytes, limits);
}

batch_plan plan_forced_batch(int launches, std::size_t set_bytes, long long l2_bytes, const batch_limits& limits) {
  if (launches <= 1 || set_bytes == 0) return {};
  return with_sets(std::min(launches, limits.max_launches), set_bytes, l2_bytes, limits);
}

}  // namespace cuop::measure
