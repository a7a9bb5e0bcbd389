// A model's group default (docs/dispatch.md, "Group defaults"): the candidate that runs wherever
// the nearest anchors choose none, so that a shape far from every tuned one still gets a
// configuration that beat the baseline across the group. It must beat the baseline clearly at
// every anchor, and leave-one-out must agree: chosen from the other anchors, the pick for each
// anchor may not be slower than the baseline there. An op may let it hold above a floor on the
// shape's size only (the anchors there, all of them won), where no candidate wins everywhere.
#pragma once

#include <string>
#include <vector>

#include "tuner/model/fit.hpp"

namespace cuop::model {

// A group default needs a clear win of 10% (its conservative speedup) at every anchor, since it
// runs far from them, and at least three anchors, so that each is chosen for from two others.
inline constexpr double group_default_log_margin = 0.09531017980432493;  // log(1.1)
inline constexpr int group_default_min_anchors = 3;

// A group default, and the floor it holds above (floored: the sizes of
// detail::floor_size; otherwise the whole group).
struct default_pick {
  std::string candidate;  // the instance; empty: none (the baseline)
  bool floored = false;
  double floor = 0;
};

struct group_default_fit {
  default_pick pick;
  std::vector<default_pick> held_out;  // per anchor: the pick made without it
  std::string why_none;                // when there is none: why not
};

// Deterministic: among the instances verified at every anchor (the baseline's aside) whose
// conservative speedup exceeds the margin at each, the highest mean log speedup, ties in name
// order. With floor_features > 0 and no such instance, the same over the anchors at or above a
// floor on their size (at least group_default_min_anchors of them), the lowest floor that has one.
group_default_fit fit_group_default(const std::vector<anchor>& anchors, int floor_features = 0);

}  // namespace cuop::model
