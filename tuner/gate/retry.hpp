// The gate's retries (docs/measurement.md, "The gate"): which rows of a comparison to measure
// again, with how many samples, and how the new trials take the place of the old ones.
#pragma once

#include <compare>
#include <map>
#include <string>
#include <vector>

#include "tuner/gate/comparison.hpp"
#include "tuner/gate/result_set.hpp"
#include "tuner/spec/spec.hpp"

namespace cuop::gate {

// A row of a comparison as something to measure again.
struct retry_target {
  std::string problem;
  std::string instance;  // "": the problem's winner row (its winner is chosen again from all)
  auto operator<=>(const retry_target&) const = default;
};

retry_target target_of(const comparison_row& row);

// The AMBIGUOUS rows, in row order, once each.
std::vector<retry_target> select_retries(const comparison& c);

// The problems a retry measures again: every target's, sorted, once each.
std::vector<std::string> retry_problems(const std::vector<retry_target>& targets);

// `old` with `fresh`'s trials in place of its own: for a winner target every trial of the problem
// that `fresh` verified, for a configuration target that configuration's trial. A trial of `fresh`
// outside the targets is ignored; an old trial that `fresh` did not verify again stays. The
// result keeps `old`'s source and kind, with `fresh`'s environments added as needed.
result_set merge_retry(const result_set& old, const result_set& fresh,
                       const std::vector<retry_target>& targets);

// Retries per row: the number of the last retry pass that measured it again (0: never). A
// winner target measures its whole problem again, so its configuration rows count it too.
using retry_counts = std::map<retry_target, int>;
void record_retry_pass(retry_counts& counts, const std::vector<retry_target>& targets, int pass);
void apply_retry_counts(comparison& c, const retry_counts& counts);

// How a retry measures: every trial takes `samples` samples (min_samples = max_samples), unless
// `max_time_s` ends it first; `timeout_s` grows with it.
struct retry_measure {
  int samples = 0;
  double max_time_s = 0;
  double timeout_s = 0;
};

// Retry pass 1 takes the suite's max_samples (at least 4 x min_samples) on every trial, each
// later pass twice the one before; the time cap is 2^pass times the suite's, the timeout grows by
// twice what the cap grew. Throws cuop::error when pass < 1.
retry_measure raised_measure(const spec::measure_settings& m, int pass);

// A sweep file's text with its `measure` settings raised as `r` says (min_samples, max_samples,
// max_time_s, timeout_s; keys every build's sweep files accept); everything else is kept.
// `file` names the file in errors. Throws cuop::error when the text is not a YAML map.
std::string raise_measure_yaml(const std::string& text, const retry_measure& r, const std::string& file);

}  // namespace cuop::gate
