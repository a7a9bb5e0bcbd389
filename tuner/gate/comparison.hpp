// `cuop-tune compare`'s core: pairs two result sets per problem, bootstraps the ratio of medians
// and gives each pair a verdict. Rendering is in tuner/report/compare_report.hpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tuner/gate/result_set.hpp"
#include "tuner/gate/thresholds.hpp"
#include "tuner/measure/bootstrap.hpp"
#include "tuner/measure/verdict.hpp"

namespace cuop::gate {

struct compare_options {
  thresholds limits;
  measure::bootstrap_options bootstrap;
  bool per_config = false;           // also each configuration verified on both sides
  bool allow_different_env = false;  // compare across GPU models / environments, with a warning
};

struct compared_side {
  std::string instance;
  double median_us = 0;
  int sample_count = 0;      // samples behind the median
  bool raw_samples = false;  // false: only the median and its CI were available
  int env = 0;               // index into the side's envs
};

struct comparison_row {
  std::string problem, op;
  bool winner = true;  // the best of each side; false: one configuration on both sides
  compared_side baseline, candidate;
  std::string threshold_kind;  // "compute", "memory" or "short"
  measure::verdict_rule rule;
  double effective_threshold = 0;  // after the floor (measure::effective_threshold)
  measure::ratio_interval ci;
  measure::verdict verdict = measure::verdict::ambiguous;
  int retries = 0;  // `gate`: re-measurements before this verdict (tuner/gate/retry.hpp)
};

// What `cuop-tune gate` adds to its comparison (tuner/gate/gate_run.hpp); `compare` has none.
struct gate_notes {
  std::string mode;                    // "baseline": this build against results; "abba": against another build
  std::string schedule;                // abba: "A B B A" (A this build, B the other)
  int max_retries = 0;                 // --retries
  int retry_passes = 0;                // retry passes run
  std::vector<std::string> databases;  // kept databases, "PATH (what it holds)"
};

struct comparison {
  std::string baseline_source, candidate_source;
  std::vector<measured_env> baseline_envs, candidate_envs;
  compare_options options;
  std::vector<comparison_row> rows;                              // by problem: its winner row, then its configurations
  std::vector<std::string> only_in_baseline, only_in_candidate;  // problems verified on one side
  // Problems whose winners were timed one way on one side, another on the other (a CUDA-graph
  // batch against single launches): not compared, and a warning says so.
  std::vector<std::string> measured_differently;
  std::vector<std::string> warnings;  // said in every output format
  std::optional<gate_notes> gate;     // set by `gate`

  int count(measure::verdict v) const;
  int approximate_rows() const;  // rows whose interval is a normal approximation
  bool regression() const { return count(measure::verdict::slower) > 0; }
};

// Throws cuop::error when no problem is verified on both sides, and, unless
// allow_different_env, when a pair was measured on different GPU models or environments
// (same_measurement_env), naming both.
comparison compare(const result_set& baseline, const result_set& candidate, const compare_options& options);

}  // namespace cuop::gate
