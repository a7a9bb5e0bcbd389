#include "tuner/strategy/race.hpp"

#include <algorithm>
#include <numeric>

namespace cuop::strategy {

std::size_t race_leader(std::span<const race_entry> entries) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < entries.size(); ++i)
    if (entries[i].median < entries[best].median) best = i;
  return best;
}

std::vector<std::size_t> race_survivors(std::span<const race_entry> entries, double margin) {
  std::vector<std::size_t> out;
  if (entries.empty()) return out;
  const auto& lead = entries[race_leader(entries)];
  for (std::size_t i = 0; i < entries.size(); ++i)
    if (!(entries[i].ci_lo > lead.ci_hi * (1 + margin))) out.push_back(i);
  return out;
}

std::vector<std::size_t> ties_with_leader(std::span<const race_entry> entries) {
  std::vector<std::size_t> out;
  if (entries.empty()) return out;
  const std::size_t l = race_leader(entries);
  const auto& lead = entries[l];
  for (std::size_t i = 0; i < entries.size(); ++i)
    if (i != l && entries[i].ci_lo <= lead.ci_hi && lead.ci_lo <= entries[i].ci_hi) out.push_back(i);
  return out;
}

std::vector<std::size_t> interleaved_order(std::size_t n, int round) {
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  if (round % 2 == 1) std::reverse(order.begin(), order.end());
  return order;
}

}  // namespace cuop::strategy
