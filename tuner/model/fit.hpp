// The dispatch model of one (op, GPU, dtype, group): the tuned shapes ("anchors"), the candidates
// worth shipping, their measured speedups over the baseline at each anchor, and which of them
// leave-one-out validation trusts (docs/dispatch.md). The choice itself is
// cuop/detail/nearest_choice.hpp, the same code the library runs.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cuop/detail/nearest_choice.hpp"
#include "tuner/results/results_file.hpp"

namespace cuop::model {

// One tuned shape.
struct anchor {
  std::string problem;
  std::vector<double> features;
  const results::result_trial* baseline = nullptr;             // the library's choice (or the default rule's) there
  std::map<std::string, const results::result_trial*> trials;  // verified trials that may ship, by instance
};

// Leave-one-out over the anchors: each anchor's choice made from the others, and what it measured.
struct validation {
  int anchors = 0;
  int chosen = 0;      // a candidate, not the baseline
  int unknown = 0;     // a candidate never measured at the held-out anchor: no outcome to score
  int slower = 0;      // realized speedup below slower_than
  double geomean = 1;  // of the realized speedups over the baseline (1 where the baseline ran)
  double worst = 1;
};

// A realized speedup below this is a loss (docs/dispatch.md, "Validation").
inline constexpr double slower_than = 0.97;

struct fitted {
  std::vector<std::string> candidates;                 // instances: the model's columns
  std::vector<const results::result_trial*> examples;  // per candidate, a trial naming its configuration
  std::vector<anchor> anchors;
  std::vector<double> features;        // anchors x feature count
  std::vector<float> log_speedup;      // anchors x candidates (NaN: not measured)
  std::vector<unsigned char> trusted;  // per candidate
  detail::choice_params params;
  int group_default = -1;  // the column of the group default (group_default.hpp); -1: none
  int floor_features = 0;  // > 0: the group default holds at or above default_floor only
  double default_floor = 0;
  validation loo;  // with the final trust, the group default's pick made without each anchor
  int feature_count = 0;

  detail::choice_model_view view() const;
};

// k = 4 nearest within an L1 radius of 3 (a factor 8 on one size, or 2 on three), a clear win
// of 2% at every one of them, and the call within their span in every feature, give or take a
// factor 1.41 (half an octave).
inline const detail::choice_params default_params{4, 3.0, 0.0198, 0.5};

// Fits a model from anchors that each have a baseline: the candidates are each anchor's two
// fastest trials that beat its baseline (by its conservative, interval-based speedup), and the
// group default if there is one; a candidate loses its trust when leave-one-out chooses it for an
// anchor where it then measured slower than the baseline (repeated until no trusted candidate
// loses). Where the vote declines a held-out anchor, leave-one-out scores the group default picked
// without that anchor. `floor_features`: the op lets a group default hold above a floor on the
// size of that many leading features (detail::floor_size, group_default.hpp). Deterministic.
fitted fit(std::vector<anchor> anchors, detail::choice_params params = default_params, int floor_features = 0);

// log(baseline / candidate) of their medians where the candidate's 95% interval lies entirely
// below the baseline's; otherwise no gain (0, or the loss where its median is slower). With the
// margin, a candidate wins at an anchor only where the data tell it from the baseline and it is
// more than 2% faster (emit's former tie rule: closer wins did not hold side by side, lab/JOURNAL.md).
double conservative_log_speedup(const results::result_trial& baseline, const results::result_trial& candidate);

}  // namespace cuop::model
