// Helpers shared by the CPU unit tests.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
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

// A fresh folder per test (temp dir / "<prefix>-<pid>-<test name>"), removed afterwards.
struct scratch {
  std::filesystem::path path;
  explicit scratch(const std::string& prefix)
      : path(std::filesystem::temp_directory_path() /
             (prefix + "-" + std::to_string(::getpid()) + "-" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~scratch() { std::filesystem::remove_all(path); }
  scratch(const scratch&) = delete;
  scratch& operator=(const scratch&) = delete;
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

}  // namespace cuop::test
