#include <fmt/format.h>

#include <cstdio>

#include "tuner/cli/commands.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/text.hpp"

namespace cuop::cli {

namespace {

// One line, whatever the message holds: a value a throw site quoted raw is escaped here (printable()
// leaves what is already escaped as it is).
// A stderr that cannot be written (a full disk) makes fmt throw; from here, inside main's catch,
// that would end in std::terminate and SIGABRT instead of the exit code.
void print_line(const std::string& message) {
  try {
    fmt::print(stderr, "cuop-tune: error: {}\n", core::printable(message));
  } catch (const std::exception&) {
  }
}

}  // namespace

int report_error(const std::exception& e) {
  if (const auto* list = dynamic_cast<const error_list*>(&e); list && list->total() > 1) {
    for (const auto& m : list->messages()) print_line(m);
    const auto shown = list->messages().size();
    print_line(fmt::format("{}: {} errors{}", list->source(), list->total(),
                           shown < list->total() ? fmt::format(" (the first {} shown)", shown) : ""));
  } else {
    print_line(e.what());
  }
  if (dynamic_cast<const usage_error*>(&e)) return exit_code::usage;
  return exit_code::error;
}

}  // namespace cuop::cli
