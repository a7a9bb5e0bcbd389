// The fuzzers' findings (docs/ci.md, Fuzzing), one TEST per finding in the error catalogue's
// style: the reproducer (tests/data/fuzz/<target>/), read by the command a user runs on such a
// file, the exact message and exit code. Each crashed or broke a sanitizer's rule before its fix;
// fuzz.replay_* (tests/fuzz/) also runs them through the fuzz targets' code.
#include <gtest/gtest.h>

#include <string>

#include "cli_support.hpp"

namespace {

using cuop::test::cli_result;

const std::string findings = std::string(CUOP_TEST_DATA_DIR) + "/fuzz";

// What a command said about a reproducer, and the reproducer's path as the command was given it.
struct outcome {
  cli_result r;
  std::string file;
};

// cuop-tune validate on a sweep-file finding, as kept (nothing is written beside it).
outcome validate(const std::string& reproducer) {
  const auto file = findings + "/" + reproducer;
  return {cuop::test::run_cli("validate " + file), file};
}

}  // namespace

// A conv2d problem of 2^32 groups: conv_shape holds ints, so groups became 0 and the size check
// of spec loading divided by it (SIGFPE: `cuop-tune validate` died with exit code 136).
TEST(fuzz_findings, sweep_conv_groups_of_2_pow_32) {
  const auto v = validate("spec/conv_groups_2_pow_32.yaml");
  EXPECT_EQ(v.r.code, 1);
  EXPECT_EQ(v.r.out, "cuop-tune: error: " + v.file +
                         ":4:71: expected an integer in [1, 2147483647] for \"groups\", got \"4294967296\"\n");
}

// The same root for gemm, without a crash: m = 2^32 + 1 was accepted ("ok") and would have been
// measured as m = 1.
TEST(fuzz_findings, sweep_gemm_m_of_2_pow_32_plus_1) {
  const auto v = validate("spec/gemm_m_2_pow_32_plus_1.yaml");
  EXPECT_EQ(v.r.code, 1);
  EXPECT_EQ(v.r.out, "cuop-tune: error: " + v.file +
                         ":3:9: expected an integer in [1, 2147483647] for \"m\", got \"4294967297\"\n");
}
