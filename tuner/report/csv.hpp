// CSV (RFC 4180) for the commands' `--format csv`: one header row, then one row per record. Names
// come from files and databases anyone can hand over, so a text cell shows control characters and
// invalid bytes escaped (core::printable), is quoted where it holds a comma or a quote, and one
// that a spreadsheet would take for a formula (starting with =, +, - or @) is prefixed with a
// single quote.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cuop::report {

std::string csv_text(std::string_view text);                 // a text cell
std::string csv_number(double value);                        // a number cell: shortest round-trip form
std::string csv_row(const std::vector<std::string>& cells);  // cells already formatted, "\r\n" ended

}  // namespace cuop::report
