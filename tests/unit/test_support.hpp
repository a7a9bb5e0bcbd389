// Helpers shared by the CPU unit tests.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <regex>
#include <string>

#include "tuner/compile/compile.hpp"
#include "tuner/core/error.hpp"

namespace cuop::test {

// The stored parameters of a softmax block_row instance named as the library names it
// ("softmax_f32_block_row_vec4_threads256_chunks1": vec, block_threads, chunks): exported results must agree
// with their names (tuner/results/results_schema.hpp), so a test's trial takes them from its name.
inline std::string block_row_params(const std::string& instance) {
  std::smatch m;
  if (!std::regex_match(instance, m,
                        std::regex("softmax_[a-z0-9]+_block_row_vec([0-9]+)_threads([0-9]+)_chunks([0-9]+)"))) {
    ADD_FAILURE() << instance << " is not a block_row instance name";
    return "{}";
  }
  return "{\"block_threads\":" + m[2].str() + ",\"chunks\":" + m[3].str() + ",\"vec\":" + m[1].str() + "}";
}

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

// Configuration `name`, built by `build(target)` for every target of the default build: ok, 1 to 255
// registers, and (no_spills) none spilled.
template <class Build>
void expect_builds_everywhere(const std::string& name, Build&& build, bool no_spills) {
  // The default build's targets: the families were designed for them. The other validated
  // targets (sm_75's instructions, 99 KB parts) are judged per configuration by add-targets.
  for (const auto& target : compile::default_target_names()) {
    SCOPED_TRACE(name + " on " + target);
    const compile::result r = build(target.c_str());
    ASSERT_EQ(r.status, compile::build_status::ok) << r.message;
    EXPECT_GT(r.usage.registers, 0);
    EXPECT_LE(r.usage.registers, 255);
    if (no_spills) {
      EXPECT_EQ(r.usage.spill_stores, 0);
    }
  }
}

}  // namespace cuop::test
