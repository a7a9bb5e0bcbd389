#include <fmt/format.h>

#include <cstdio>
#include <string_view>

#include "tuner/cli/commands.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/text.hpp"

namespace cuop::cli {

int report_error(const std::exception& e) {
  // Line by line, each escaped: a value a throw site quoted raw cannot reach the terminal as an
  // escape sequence (printable() leaves what is already escaped as it is). The first line carries
  // the prefix; the others continue the same error (several errors of one file, error_list). A
  // stderr that cannot be written (a full disk) makes fmt throw; from here, inside main's catch,
  // that would end in std::terminate and SIGABRT instead of the exit code.
  try {
    std::string_view text = e.what();
    std::string out = "cuop-tune: error: ";
    for (bool first = true;; first = false) {
      const auto end = text.find('\n');
      out += (first ? "" : "\n") + core::printable(text.substr(0, end));
      if (end == std::string_view::npos) break;
      text.remove_prefix(end + 1);
    }
    fmt::print(stderr, "{}\n", out);
  } catch (const std::exception&) {
  }
  if (dynamic_cast<const usage_error*>(&e)) return exit_code::usage;
  return exit_code::error;
}

}  // namespace cuop::cli
