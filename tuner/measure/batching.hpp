// Kernels too short for one event pair are timed in batches: a CUDA graph of `launches` launches
// over `sets` rotated buffer sets, each sample the graph's time over `launches`. Pure planning,
// tested on synthetic figures.
#pragma once

#include <cstddef>

namespace cuop::measure {

struct batch_plan {
  int launches = 1;   // per sample; 1: single launches, no graph
  int sets = 1;       // buffer sets the launches rotate over (launch j uses set j % sets)
  bool flush = true;  // flush L2 before each graph: the sets together do not exceed 2 x L2
};

struct batch_limits {
  double graph_target_us = 200;  // a graph long enough that event resolution is < 0.5% of it
  int max_launches = 1024;
  int max_sets = 256;
};

// Single launches when `threshold_us` <= 0, the estimate is unknown (<= 0) or not below the
// threshold, or the op offers no buffer sets (`set_bytes` 0). Otherwise: enough sets that they
// together exceed twice the L2 (capped at max_sets; if the cap stops short, each graph is
// preceded by an L2 flush, as single launches are), and launches = max(sets, graph_target_us /
// estimate) capped at max_launches, so every set is used in every graph and a set comes round
// again only after more than twice the L2 of other data.
batch_plan plan_batch(double estimate_us, double threshold_us, std::size_t set_bytes, long long l2_bytes,
                      const batch_limits& limits = {});

// Exactly `launches` per sample (a later round of a trial whose first round chose them): the sets
// as above, at most `launches` of them. launches <= 1: single launches.
batch_plan plan_forced_batch(int launches, std::size_t set_bytes, long long l2_bytes, const batch_limits& limits = {});

}  // namespace cuop::measure
