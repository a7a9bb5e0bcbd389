// compare's verdicts: the rule on given intervals, then end to end on synthetic samples
// (A/A -> SAME, injected shifts -> SLOWER/FASTER, noise -> AMBIGUOUS), the floor, and the
// threshold chosen per kind of kernel.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "tuner/gate/thresholds.hpp"
#include "tuner/measure/bootstrap.hpp"
#include "tuner/measure/verdict.hpp"

using namespace cuop::measure;

namespace {

ratio_interval interval(double ratio, double lo, double hi) {
  ratio_interval ci;
  ci.ratio = ratio;
  ci.lo = lo;
  ci.hi = hi;
  return ci;
}

const verdict_rule three_percent{0.03, 1.0};

std::vector<double> timings(std::mt19937_64& rng, int n, double median, double sigma) {
  std::normal_distribution<double> z(0, 1);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(median * std::exp(sigma * z(rng)));
  return v;
}

verdict compare_samples(std::mt19937_64& rng, int n, double base_us, double shift, double sigma,
                        const verdict_rule& rule, std::uint64_t seed = 1) {
  const auto a = timings(rng, n, base_us, sigma), b = timings(rng, n, base_us * shift, sigma);
  bootstrap_options o;
  o.seed = seed;
  return decide(bootstrap_median_ratio(a, b, o), base_us, rule);
}

}  // namespace

TEST(verdict, the_rule_on_given_intervals) {
  EXPECT_EQ(decide(interval(1.00, 0.99, 1.01), 100, three_percent), verdict::same);
  EXPECT_EQ(decide(interval(1.05, 1.04, 1.06), 100, three_percent), verdict::slower);
  EXPECT_EQ(decide(interval(0.95, 0.94, 0.96), 100, three_percent), verdict::faster);
  EXPECT_EQ(decide(interval(1.03, 1.02, 1.04), 100, three_percent), verdict::ambiguous);
  EXPECT_EQ(decide(interval(0.97, 0.96, 0.98), 100, three_percent), verdict::ambiguous);
  EXPECT_EQ(decide(interval(1.00, 0.90, 1.10), 100, three_percent), verdict::ambiguous);
  // The bounds themselves are inside: SAME needs the interval within [1 - t, 1 + t].
  EXPECT_EQ(decide(interval(1.00, 0.97, 1.03), 100, three_percent), verdict::same);
}

TEST(verdict, names) {
  EXPECT_EQ(verdict_name(verdict::same), "SAME");
  EXPECT_EQ(verdict_name(verdict::faster), "FASTER");
  EXPECT_EQ(verdict_name(verdict::slower), "SLOWER");
  EXPECT_EQ(verdict_name(verdict::ambiguous), "AMBIGUOUS");
}

TEST(verdict, a_difference_under_the_floor_is_never_slower_or_faster) {
  // 5 us kernel, 10% slower, known exactly: 0.5 us is under the 1 us floor, which on a 5 us
  // baseline is a 20% threshold.
  EXPECT_DOUBLE_EQ(effective_threshold(three_percent, 5), 0.2);
  EXPECT_EQ(decide(interval(1.10, 1.09, 1.11), 5, three_percent), verdict::same);
  EXPECT_EQ(decide(interval(0.90, 0.89, 0.91), 5, three_percent), verdict::same);
  // Without the floor the same interval is a regression.
  EXPECT_EQ(decide(interval(1.10, 1.09, 1.11), 5, {0.03, 0.0}), verdict::slower);
  // An interval beyond the threshold whose point estimate is under the floor is not SLOWER.
  EXPECT_EQ(decide(interval(1.005, 1.02, 1.03), 100, {0.01, 1.0}), verdict::ambiguous);
  // Large kernels: the floor does not widen the class threshold.
  EXPECT_DOUBLE_EQ(effective_threshold(three_percent, 1000), 0.03);
}

TEST(verdict, a_a_data_is_same) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 30; ++i)
    EXPECT_EQ(compare_samples(rng, 40, 100, 1.0, 0.01, three_percent, static_cast<std::uint64_t>(i)), verdict::same)
        << "repeat " << i;
}

TEST(verdict, injected_shifts_are_slower_or_faster) {
  std::mt19937_64 rng(12);
  EXPECT_EQ(compare_samples(rng, 40, 100, 1.10, 0.01, three_percent), verdict::slower);
  EXPECT_EQ(compare_samples(rng, 40, 100, 1.05, 0.01, three_percent), verdict::slower);
  EXPECT_EQ(compare_samples(rng, 40, 100, 0.90, 0.01, three_percent), verdict::faster);
  EXPECT_EQ(compare_samples(rng, 40, 1000, 1.04, 0.005, {0.02, 1.0}), verdict::slower);
}

TEST(verdict, noisy_data_is_ambiguous) {
  // 10% noise and 12 samples: a 3% change cannot be told from none, either way.
  std::mt19937_64 rng(13);
  EXPECT_EQ(compare_samples(rng, 12, 100, 1.03, 0.10, three_percent), verdict::ambiguous);
  EXPECT_EQ(compare_samples(rng, 12, 100, 1.00, 0.10, three_percent), verdict::ambiguous);
}

TEST(thresholds, per_kind_of_kernel) {
  using cuop::gate::op_class;
  using cuop::gate::threshold_for;
  EXPECT_EQ(op_class("gemm", {{"m", 4096}, {"n", 4096}, {"k", 4096}}), "compute");
  EXPECT_EQ(op_class("conv2d", {{"c", 64}, {"groups", 1}}), "compute");
  EXPECT_EQ(op_class("conv2d", {{"c", 96}, {"groups", 96}}), "memory");  // depthwise
  EXPECT_EQ(op_class("softmax", {{"rows", 8}, {"cols", 8}}), "memory");
  const cuop::gate::thresholds t;
  EXPECT_DOUBLE_EQ(threshold_for(t, "gemm", {}, 900).rule.threshold, 0.02);
  EXPECT_DOUBLE_EQ(threshold_for(t, "softmax", {}, 900).rule.threshold, 0.03);
  const auto short_one = threshold_for(t, "gemm", {}, 12);
  EXPECT_EQ(short_one.kind, "short");
  EXPECT_DOUBLE_EQ(short_one.rule.threshold, 0.05);
  EXPECT_DOUBLE_EQ(short_one.rule.floor_us, 1.0);
  // A class looser than the short-kernel threshold keeps its own.
  auto loose = t;
  loose.memory = 0.08;
  EXPECT_EQ(threshold_for(loose, "softmax", {}, 12).kind, "memory");
  EXPECT_DOUBLE_EQ(threshold_for(loose, "softmax", {}, 12).rule.threshold, 0.08);
}
