#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "tuner/measure/statistics.hpp"

using cuop::measure::relative_ci;
using cuop::measure::summarize;

TEST(statistics, summary_of_known_samples) {
  const std::vector<double> v = {5, 1, 4, 2, 3};
  const auto s = summarize(v);
  EXPECT_EQ(s.count, 5);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.q1, 2);
  EXPECT_DOUBLE_EQ(s.q3, 4);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_NEAR(s.stdev, 1.5811388, 1e-6);
}

TEST(statistics, median_ci_contains_the_median_and_shrinks_with_samples) {
  std::mt19937 rng(1);
  std::normal_distribution<double> noise(100.0, 2.0);
  std::vector<double> few, many;
  for (int i = 0; i < 20; ++i) few.push_back(noise(rng));
  for (int i = 0; i < 2000; ++i) many.push_back(noise(rng));
  const auto a = summarize(few), b = summarize(many);
  EXPECT_LE(a.ci_lo, a.median);
  EXPECT_GE(a.ci_hi, a.median);
  EXPECT_LT(relative_ci(b), relative_ci(a));
  EXPECT_LT(relative_ci(b), 0.005);  // 2% noise, 2000 samples: the median is known to < 0.5%
}

TEST(statistics, median_ci_covers_the_true_median_about_95_percent_of_the_time) {
  std::mt19937 rng(7);
  std::exponential_distribution<double> skewed(1.0);  // true median ln 2
  int covered = 0;
  const int trials = 400;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> v;
    for (int i = 0; i < 50; ++i) v.push_back(skewed(rng));
    const auto s = summarize(v);
    covered += (s.ci_lo <= std::log(2.0) && std::log(2.0) <= s.ci_hi) ? 1 : 0;
  }
  EXPECT_GT(covered, trials * 0.91);
  EXPECT_LT(covered, trials * 0.995);
}

TEST(statistics, empty_input_gives_zero_summary) {
  const auto s = summarize(std::vector<double>{});
  EXPECT_EQ(s.count, 0);
  EXPECT_TRUE(std::isinf(relative_ci(s)));
}
