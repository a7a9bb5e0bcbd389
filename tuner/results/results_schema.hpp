// The schema of a results file (results/<op>/<gpu>.json, docs/cli.md "Results files"). A results
// file is untrusted input: it comes from anyone's pull request and `emit` turns it into C++ at
// build time. It is checked as a whole before anything is read from it: required fields, types,
// ranges, closed sets (ops, families, dtypes, statuses, targets, parameter names and the values
// each family accepts), and the fields that follow from others (a problem's key from its dims, an
// instance name from its family and parameters, a trial's run among the runs) must agree.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cuop::results {

inline constexpr const char* results_format_tag = "cuop-tune results 1";

// Most errors one file reports; the count of the others follows them.
inline constexpr std::size_t max_reported_errors = 20;

// The schema errors of `j` (parsed from `text`), in file order, each
// "<path>:<line>: <field>: <what>", e.g.
//   results/gemm/nvidia-h200.json:57: trials[48].dtype: unknown dtype "f64" (expected one of: f32, f16, bf16)
// the first max_reported_errors of them, and how many there are (0: the file is valid).
struct schema_report {
  std::vector<std::string> messages;
  std::size_t total = 0;
};
schema_report schema_errors(const nlohmann::json& j, std::string_view text, const std::string& path);

}  // namespace cuop::results
