// Helpers shared by the CPU unit tests.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "tuner/core/error.hpp"

namespace cuop::test {

// The message of the cuop::error `f` throws; a test failure (and "") if it throws none.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const cuop::error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a cuop::error";
  return "";
}

}  // namespace cuop::test
