// How each problem is timed, fixed from outside the sweep: `sweep --batch-plan FILE`. The gate
// writes one so that a build is timed the way its baseline was (a CUDA-graph batch or single
// launches per problem); without one, the timer decides from each kernel's own estimate, and a
// kernel near `batch_below_us` can fall either side from one run to the next.
#pragma once

#include <map>
#include <string>

namespace cuop::runner {

// Problem key -> launches per sample (1: single launches; > 1: CUDA graphs of that many).
using batch_plan_map = std::map<std::string, int>;

// A JSON object {"<problem key>": launches, ...}. Throws cuop::error naming the file and the
// entry that is not a whole number from 1 to 4096.
batch_plan_map read_batch_plan(const std::string& path);

// Written atomically (core::write_atomically).
void write_batch_plan(const std::string& path, const batch_plan_map& plan);

// The plan's launches for `problem`; 0 (the timer decides) when the plan does not name it.
int planned_launches(const batch_plan_map& plan, const std::string& problem);

}  // namespace cuop::runner
