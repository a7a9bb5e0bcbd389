// How each problem is timed, fixed from outside the sweep: `sweep --batch-plan FILE`. The gate
// writes one so that a build is timed the way its baseline was (a CUDA-graph batch or single
// launches, per configuration); without one, the timer decides from each kernel's own estimate,
// and a kernel near `batch_below_us` can fall either side from one run to the next.
#pragma once

#include <map>
#include <string>

namespace cuop::runner {

// Launches per sample: 1 single launches; > 1 CUDA graphs of that many; 0 the timer decides.
struct problem_plan {
  int launches = 0;  // the problem's configurations not listed below
  std::map<std::string, int> by_instance;

  bool operator==(const problem_plan&) const = default;
};

// Problem key -> its plan.
using batch_plan_map = std::map<std::string, problem_plan>;

// A JSON object; each problem's entry is either its launches ({"<problem>": 241}) or an object
// of configurations' launches with "*" for the others ({"<problem>": {"*": 241, "<instance>":
// 1}}). Throws cuop::error naming the file and the entry that is not a whole number from 1 to
// 4096.
batch_plan_map read_batch_plan(const std::string& path);

// Written atomically (core::write_atomically), in the form above.
void write_batch_plan(const std::string& path, const batch_plan_map& plan);

// The launches for `instance` of `problem`: its own, else the problem's, else 0 (the timer
// decides).
int planned_launches(const batch_plan_map& plan, const std::string& problem, const std::string& instance = "");

}  // namespace cuop::runner
