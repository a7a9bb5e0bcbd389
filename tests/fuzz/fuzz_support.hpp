// What every fuzz target shares: the input as a string, and the rule for what is a finding.
//
// Bad input must end in a cuop::error (the CLI prints it as "cuop-tune: error: ..."). Anything
// else is a finding, as a sanitizer report is: another exception type (std::out_of_range from a
// map::at, a nlohmann::json exception, std::bad_alloc ...) reaches the user as an unclear message,
// and cuop::fatal means an invariant broke. Those are not caught: with no handler left, the
// runtime calls std::terminate at the throw, so libFuzzer's report shows the stack of the throw
// (and libstdc++ the exception's type and what()), and the input is kept as a crash reproducer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "tuner/core/error.hpp"

namespace cuop::fuzz {

inline std::string text_of(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Runs `body`; a cuop::error is the expected end of bad input, anything else escapes.
template <typename Body>
void expect_only_cuop_errors(Body&& body) {
  try {
    body();
  } catch (const cuop::error&) {
    // bad input, reported clearly
  }
}

}  // namespace cuop::fuzz
