// The gate's retries (docs/measurement.md, "The gate"): which rows of a comparison to measure
// again, and how the new samples join the old ones.
#pragma once

#include <compare>
#include <map>
#include <string>
#include <vector>

#include "tuner/gate/comparison.hpp"
#include "tuner/gate/result_set.hpp"

namespace cuop::gate {

// A row of a comparison as something to measure again.
struct retry_target {
  std::string problem;
  std::string instance;  // "": the problem's winner row (its winner is chosen again from all)
  auto operator<=>(const retry_target&) const = default;  // NOLINT(modernize-use-nullptr): clang-tidy 14 misreads it
};

retry_target target_of(const comparison_row& row);

// The AMBIGUOUS rows, in row order, once each.
std::vector<retry_target> select_retries(const comparison& c);

// The problems a retry measures again: every target's, sorted, once each.
std::vector<std::string> retry_problems(const std::vector<retry_target>& targets);

// `old` with `fresh`'s trials pooled into its own: for a winner target every trial of the problem
// that `fresh` verified, for a configuration target that configuration's trial. Pooled means the
// raw samples of both, summarized again (median, CI); a trial that `old` lacks, or kept without
// raw samples, is taken from `fresh` as it is. A trial of `fresh` outside the targets is ignored;
// an old trial that `fresh` did not verify again stays. The result keeps `old`'s source and kind,
// with `fresh`'s environments added as needed.
result_set pool_retry(const result_set& old, const result_set& fresh, const std::vector<retry_target>& targets);

// Retries per row: the number of the last retry pass that measured it again (0: never). A
// winner target measures its whole problem again, so its configuration rows count it too.
using retry_counts = std::map<retry_target, int>;
void record_retry_pass(retry_counts& counts, const std::vector<retry_target>& targets, int pass);
void apply_retry_counts(comparison& c, const retry_counts& counts);

}  // namespace cuop::gate
