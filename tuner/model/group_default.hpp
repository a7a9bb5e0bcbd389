// A model's group default (docs/dispatch.md, "Group defaults"): the candidate that runs wherever
// the nearest anchors choose none, so that a shape far from every tuned one still gets a
// configuration that beat the baseline across the group. It must beat the baseline clearly at
// every anchor, and leave-one-out must agree: chosen from the other anchors, the pick for each
// anchor may not be slower than the baseline there.
#pragma once

#include <string>
#include <vector>

#include "tuner/model/fit.hpp"

namespace cuop::model {

// A group default needs a clear win of 10% (its conservative speedup) at every anchor, since it
// runs far from them, and at least three anchors, so that each is chosen for from two others.
inline constexpr double group_default_log_margin = 0.09531017980432493;  // log(1.1)
inline constexpr int group_default_min_anchors = 3;

struct group_default_fit {
  std::string candidate;              // the instance; empty: none (the baseline)
  std::vector<std::string> held_out;  // per anchor: the pick made without it (empty: none)
  std::string why_none;               // when there is none: why not
};

// Deterministic: among the instances verified at every anchor (the baseline's aside) whose
// conservative speedup exceeds the margin at each, the highest mean log speedup, ties in name
// order.
group_default_fit fit_group_default(const std::vector<anchor>& anchors);

}  // namespace cuop::model
