// The bootstrap interval of a ratio of medians, on synthetic samples with known answers.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "test_support.hpp"
#include "tuner/measure/bootstrap.hpp"

using namespace cuop::measure;

namespace {

// n times median * exp(sigma * N(0,1)): timing-like, positive, right-skewed noise.
std::vector<double> timings(std::mt19937_64& rng, int n, double median, double sigma) {
  std::normal_distribution<double> z(0, 1);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(median * std::exp(sigma * z(rng)));
  return v;
}

bootstrap_options seeded(std::uint64_t seed, int resamples = 2000) {
  bootstrap_options o;
  o.seed = seed;
  o.resamples = resamples;
  return o;
}

}  // namespace

TEST(bootstrap, identical_distributions_give_an_interval_containing_1) {
  std::mt19937_64 rng(1);
  const auto a = timings(rng, 200, 100, 0.01), b = timings(rng, 200, 100, 0.01);
  const auto ci = bootstrap_median_ratio(a, b, seeded(7));
  EXPECT_LE(ci.lo, 1.0);
  EXPECT_GE(ci.hi, 1.0);
  EXPECT_LE(ci.lo, ci.ratio);
  EXPECT_GE(ci.hi, ci.ratio);
  EXPECT_LT(ci.hi - ci.lo, 0.01);  // 1% noise, 200 samples: the medians are known to ~0.2%
  EXPECT_FALSE(ci.approximate);
}

TEST(bootstrap, a_10_percent_shift_gives_an_interval_around_1_10_that_excludes_1) {
  std::mt19937_64 rng(2);
  const auto a = timings(rng, 100, 100, 0.01), b = timings(rng, 100, 110, 0.01);
  const auto ci = bootstrap_median_ratio(a, b, seeded(3));
  EXPECT_NEAR(ci.ratio, 1.10, 0.005);
  EXPECT_GT(ci.lo, 1.08);
  EXPECT_LT(ci.hi, 1.12);
  EXPECT_LE(ci.lo, 1.10);
  EXPECT_GE(ci.hi, 1.10);
}

TEST(bootstrap, constant_samples_give_the_exact_ratio) {
  const std::vector<double> a(9, 4.0), b(15, 5.0);
  const auto ci = bootstrap_median_ratio(a, b, seeded(1, 100));
  EXPECT_DOUBLE_EQ(ci.ratio, 1.25);
  EXPECT_DOUBLE_EQ(ci.lo, 1.25);
  EXPECT_DOUBLE_EQ(ci.hi, 1.25);
}

TEST(bootstrap, the_point_ratio_is_the_ratio_of_the_medians) {
  const std::vector<double> a = {3, 1, 2, 100}, b = {5, 4, 6};  // medians 2.5 and 5
  EXPECT_DOUBLE_EQ(bootstrap_median_ratio(a, b, seeded(1, 100)).ratio, 2.0);
}

TEST(bootstrap, the_same_seed_gives_the_same_interval_and_another_seed_another) {
  std::mt19937_64 rng(4);
  const auto a = timings(rng, 40, 100, 0.02), b = timings(rng, 40, 101, 0.02);
  const auto x = bootstrap_median_ratio(a, b, seeded(5)), y = bootstrap_median_ratio(a, b, seeded(5));
  EXPECT_EQ(x.lo, y.lo);  // bit for bit: no implementation-defined distribution inside
  EXPECT_EQ(x.hi, y.hi);
  const auto z = bootstrap_median_ratio(a, b, seeded(6));
  EXPECT_TRUE(z.lo != x.lo || z.hi != x.hi);
  EXPECT_NEAR(z.lo, x.lo, 0.01);  // the seed moves the interval by Monte Carlo error only
  EXPECT_NEAR(z.hi, x.hi, 0.01);
}

TEST(bootstrap, covers_the_true_ratio_about_95_percent_of_the_time) {
  std::mt19937_64 rng(8);
  int covered = 0;
  const int repeats = 200;
  for (int i = 0; i < repeats; ++i) {
    const auto a = timings(rng, 60, 100, 0.02), b = timings(rng, 60, 105, 0.02);
    const auto ci = bootstrap_median_ratio(a, b, seeded(static_cast<std::uint64_t>(i), 1000));
    covered += ci.lo <= 1.05 && 1.05 <= ci.hi ? 1 : 0;
  }
  // The percentile bootstrap of a median runs a little under nominal at small n.
  EXPECT_GT(covered, repeats * 0.85);
  EXPECT_LT(covered, repeats * 0.995);
}

TEST(bootstrap, without_samples_a_side_is_drawn_from_its_stored_median_ci) {
  // Both sides known only by median and 95% CI: se = 1 us each, so the log-ratio's sd is about
  // sqrt((1/100)^2 + (1/110)^2) = 0.0135 and the interval about 1.1 * exp(-+1.96 * 0.0135).
  median_evidence base, cand;
  base.median = 100;
  base.ci_lo = 100 - 1.96;
  base.ci_hi = 100 + 1.96;
  cand.median = 110;
  cand.ci_lo = 110 - 1.96;
  cand.ci_hi = 110 + 1.96;
  const auto ci = bootstrap_median_ratio(base, cand, seeded(1, 10000));
  EXPECT_TRUE(ci.approximate);
  EXPECT_DOUBLE_EQ(ci.ratio, 1.1);
  EXPECT_NEAR(ci.lo, 1.1 * std::exp(-1.96 * 0.01351), 0.003);
  EXPECT_NEAR(ci.hi, 1.1 * std::exp(1.96 * 0.01351), 0.003);
}

TEST(bootstrap, one_side_with_samples_and_one_without_is_approximate) {
  std::mt19937_64 rng(9);
  median_evidence base, cand;
  base.samples = timings(rng, 50, 100, 0.01);
  cand.median = 100;
  cand.ci_lo = 99.5;
  cand.ci_hi = 100.5;
  const auto ci = bootstrap_median_ratio(base, cand, seeded(1));
  EXPECT_TRUE(ci.approximate);
  EXPECT_LT(ci.lo, 1.0);
  EXPECT_GT(ci.hi, 1.0);
}

TEST(bootstrap, a_side_with_nothing_to_compare_is_an_error) {
  median_evidence empty, some;
  some.samples = {1, 2, 3};
  EXPECT_NE(cuop::test::error_of([&] { bootstrap_median_ratio(empty, some, {}); }).find("baseline"), std::string::npos);
  const std::vector<double> bad = {1, -2, 3};
  EXPECT_NE(cuop::test::error_of([&] {
              bootstrap_median_ratio(some.samples, bad, {});
            }).find("candidate: a sample is not a positive finite time"),
            std::string::npos);
}
