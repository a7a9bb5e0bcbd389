// The outputs of `cuop-tune compare` (docs/cli.md): a terminal table, markdown for a
// pull-request comment, JSON for programs, JUnit XML for CI test reports, CSV for spreadsheets and
// plots. Every format but CSV carries the comparison's warnings; every one says which intervals
// are approximations.
#pragma once

#include <string>
#include <string_view>

#include "tuner/gate/comparison.hpp"

namespace cuop::report {

enum class compare_format { table, markdown, json, junit, csv };

// "table", "markdown", "json", "junit", "csv"; throws cuop::usage_error for anything else.
compare_format parse_compare_format(std::string_view name);

std::string render_comparison(const gate::comparison& c, compare_format format);

std::string render_table(const gate::comparison& c);
std::string render_markdown(const gate::comparison& c);
std::string render_json(const gate::comparison& c);
std::string render_junit(const gate::comparison& c);
std::string render_csv(const gate::comparison& c);

}  // namespace cuop::report
