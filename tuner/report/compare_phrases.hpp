// Sentences shared by compare's text formats (table, markdown, JUnit), so they say the same.
#pragma once

#include <string>
#include <vector>

#include "tuner/gate/comparison.hpp"

namespace cuop::report::detail {

// The distinct GPUs/environments of one side, "; "-separated.
std::string describe_envs(const std::vector<gate::measured_env>& envs);

// "1 SLOWER, 2 FASTER, 30 SAME, 1 AMBIGUOUS"
std::string verdict_counts(const gate::comparison& c);

// "thresholds: compute 2%, memory 3%, short (< 20 us) 5%, floor 1 us; 95% bootstrap interval of
// median(candidate) / median(baseline), 5000 resamples, seed 1"
std::string settings_text(const gate::comparison& c);

// `gate`'s line: how the sides were measured and the retries (empty for `compare`).
std::string gate_text(const gate::comparison& c);

// "cuop-tune gate" or "cuop-tune compare": the report's title.
std::string title(const gate::comparison& c);

// Empty when every interval came from raw samples on both sides.
std::string approximation_note(const gate::comparison& c);

// "1.027 [1.019, 1.034]" (with a trailing "~" when approximate)
std::string interval_text(const gate::comparison_row& r);

// "+-3.0%" : the effective threshold
std::string limit_text(const gate::comparison_row& r);

// The row's verdict, and for a SLOWER/FASTER/AMBIGUOUS one why, in words.
std::string verdict_reason(const gate::comparison_row& r);

}  // namespace cuop::report::detail
