// The trials of a results file as CSV (`cuop-tune export --format csv`): for spreadsheets and
// plotting tools. Nothing reads it back; the JSON file stays the committed record.
#pragma once

#include <string>
#include <vector>

#include "tuner/results/results_file.hpp"

namespace cuop::report {

// Header then one row per trial, in the file's order: gpu, problem, dtype, one column per name in
// `dims` (the op's problem dimensions, in its key order), family, instance, params (name=value,
// space-separated, by name), status, median_us, min_us, q1_us, q3_us, ci_lo_us, ci_hi_us, samples,
// batch, gbps, run. A dimension a trial lacks is an empty cell.
std::string results_csv(const results::result_file& f, const std::vector<std::string>& dims);

}  // namespace cuop::report
