// Findings of the sweep-file fuzz target (tests/fuzz/fuzz_spec.cpp) that once broke a
// sanitizer's rule (signed overflow) while loading: now refused with the place named. The other
// findings are CLI tests (tests/cli/fuzz_findings_cli_test.cpp).
#include <gtest/gtest.h>

#include <exception>
#include <string>

#include "tuner/spec/spec.hpp"

namespace {

using cuop::spec::load;

std::string finding(const std::string& name) { return std::string(CUOP_TEST_DATA_DIR) + "/fuzz/spec/" + name; }

// What loading the finding says: the error's text, "" when it loads.
std::string load_error(const std::string& file) {
  try {
    load(finding(file));
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// Each once overflowed int64 while the values were enumerated ({range: [max - 1, max]}, {range:
// [0, max, max]}, {pow2: [1, 2^62]}); parameter values are ints now, so the bound is refused
// where it stands, before any enumeration.
TEST(fuzz_findings, range_to_int64_max) {
  EXPECT_EQ(load_error("range_to_int64_max.yaml"), finding("range_to_int64_max.yaml") +
                                                       ":6:28: expected an integer from 0 to 2147483647 for \"range\" "
                                                       "of parameter \"vec\", got \"9223372036854775806\"");
}

TEST(fuzz_findings, range_step_of_int64_max) {
  EXPECT_NE(load_error("range_step_of_int64_max.yaml").find("expected an integer from 0 to 2147483647"),
            std::string::npos);
}

TEST(fuzz_findings, pow2_to_2_pow_62) {
  EXPECT_NE(load_error("pow2_to_2_pow_62.yaml").find("expected an integer from 0 to 2147483647"), std::string::npos);
}
