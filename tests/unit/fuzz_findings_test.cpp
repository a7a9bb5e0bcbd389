// Findings of the sweep-file fuzz target (tests/fuzz/fuzz_spec.cpp) that are valid files: each
// once broke a sanitizer's rule (signed overflow, division by zero) and now parses to exactly
// the values it means. The findings that are errors are CLI tests (tests/cli/fuzz_findings_cli_test.cpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "tuner/spec/spec.hpp"

namespace {

using cuop::spec::load;

std::string finding(const std::string& name) { return std::string(CUOP_TEST_DATA_DIR) + "/fuzz/spec/" + name; }

constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();

std::vector<std::int64_t> vec_values(const std::string& file) {
  const auto s = load(finding(file));
  EXPECT_EQ(s.candidates.size(), 1u);
  EXPECT_EQ(s.candidates.at(0).params.at(0).name, "vec");
  return s.candidates.at(0).params.at(0).values;
}

}  // namespace

// {range: [max - 1, max]}: `v <= hi; v += step` overflowed past INT64_MAX after the last value.
TEST(fuzz_findings, range_to_int64_max) {
  EXPECT_EQ(vec_values("range_to_int64_max.yaml"), (std::vector<std::int64_t>{max - 1, max}));
}

// {range: [0, max, max]}: the step to the second value is fine, the one after it overflowed.
TEST(fuzz_findings, range_step_of_int64_max) {
  EXPECT_EQ(vec_values("range_step_of_int64_max.yaml"), (std::vector<std::int64_t>{0, max}));
}

// {pow2: [1, 2^62]}: `v *= 2` overflowed after 2^62.
TEST(fuzz_findings, pow2_to_2_pow_62) {
  std::vector<std::int64_t> expected;
  for (int i = 0; i <= 62; ++i) expected.push_back(std::int64_t{1} << i);
  EXPECT_EQ(vec_values("pow2_to_2_pow_62.yaml"), expected);
}
