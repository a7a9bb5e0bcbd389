// `sweep --shard K/N` (docs/scale-out.md): which configurations a shard measures. A configuration
// belongs to one shard, chosen by a hash of its instance name, so the partition does not depend
// on the order of the sweep file nor on which other configurations it lists, and every shard of
// a sweep holds some of every problem's configurations (the winner is chosen after `merge`).
#pragma once

#include <string>

namespace cuop::runner {

struct shard {
  int index = 0;  // 0-based
  int count = 1;  // 1: the whole sweep
  bool all() const { return count == 1; }
  bool owns(const std::string& instance) const;
  std::string str() const;  // "2/4" (1-based), "" for the whole sweep
};

// "K/N" with 1 <= K <= N; throws cuop::error naming the text otherwise.
shard parse_shard(const std::string& text);

}  // namespace cuop::runner
