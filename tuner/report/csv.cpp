#include "tuner/report/csv.hpp"

#include <fmt/format.h>

#include <cmath>

#include "tuner/core/text.hpp"

namespace cuop::report {

std::string csv_text(std::string_view raw) {
  const std::string text = core::printable(raw);  // control characters and invalid bytes shown escaped
  std::string cell;
  if (!text.empty() && std::string_view("=+-@").find(text.front()) != std::string_view::npos) cell += '\'';
  cell += text;
  if (cell.find_first_of(",\"\r\n") == std::string::npos) return cell;
  std::string quoted = "\"";
  for (const char c : cell) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + '"';
}

std::string csv_number(double value) { return std::isfinite(value) ? fmt::format("{}", value) : std::string(); }

std::string csv_row(const std::vector<std::string>& cells) {
  std::string row;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (i > 0) row += ',';
    row += cells[i];
  }
  return row + "\r\n";
}

}  // namespace cuop::report
