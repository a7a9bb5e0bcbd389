// The seeded generator behind sweep files' samples (tuner/core/seeded_random.hpp). Its outputs
// are part of the file format: `seed: 7` must mean the same problems everywhere and in every
// version, so these tests pin exact values (from an independent Python transcription of the same
// integer algorithms) and fail on any change of the generator.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "tuner/core/seeded_random.hpp"

namespace {

using cuop::core::fixed_exp2;
using cuop::core::fixed_log2;
using cuop::core::seeded_random;

// Vigna's reference splitmix64 from state 0.
TEST(seeded_random, splitmix64_matches_the_reference) {
  std::uint64_t state = 0;
  EXPECT_EQ(cuop::core::splitmix64(state), 0xe220a8397b1dcdafull);
  EXPECT_EQ(cuop::core::splitmix64(state), 0x6e789e6aa1b965f4ull);
  EXPECT_EQ(cuop::core::splitmix64(state), 0x06c45d188009454full);
}

TEST(seeded_random, xoshiro256_starstar_outputs_are_fixed) {
  seeded_random rng(7);
  EXPECT_EQ(rng.next(), 0xb358faf74ef9765aull);
  EXPECT_EQ(rng.next(), 0x475c3d964f482cd2ull);
  EXPECT_EQ(rng.next(), 0xd6f1d349952c7996ull);
  EXPECT_EQ(rng.next(), 0xfb2938731e807240ull);
}

TEST(seeded_random, draws_are_fixed) {
  {
    seeded_random rng(7);
    std::vector<std::uint64_t> got;
    for (int i = 0; i < 10; ++i) got.push_back(rng.below(10));
    EXPECT_EQ(got, (std::vector<std::uint64_t>{4, 4, 8, 4, 4, 1, 6, 6, 8, 9}));
  }
  {
    seeded_random rng(7);
    std::vector<std::int64_t> got;
    for (int i = 0; i < 10; ++i) got.push_back(rng.uniform(-5, 5));
    EXPECT_EQ(got, (std::vector<std::int64_t>{1, -3, 5, 3, -2, -4, -4, 4, 5, -3}));
  }
  {
    seeded_random rng(7);
    std::vector<std::int64_t> got;
    for (int i = 0; i < 10; ++i) got.push_back(rng.log_uniform(1, 16384));
    EXPECT_EQ(got, (std::vector<std::int64_t>{6, 1, 7, 118, 6010, 49, 11586, 1195, 11881, 32}));
  }
  // The whole int64 range: a span of 2^64, which wraps to 0 in the arithmetic.
  seeded_random rng(0);
  EXPECT_EQ(rng.uniform(INT64_MIN, INT64_MAX), 1867972634398290612);
  EXPECT_EQ(rng.uniform(INT64_MIN, INT64_MAX), 4570625273314559274);
}

TEST(seeded_random, same_seed_same_draws_other_seed_others) {
  seeded_random a(42), b(42), c(43);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    const auto x = a.next();
    EXPECT_EQ(x, b.next());
    differs = differs || x != c.next();
  }
  EXPECT_TRUE(differs);
}

TEST(seeded_random, fixed_log2_is_exact_at_powers_of_two_and_close_elsewhere) {
  for (int k = 0; k < 63; ++k) EXPECT_EQ(fixed_log2(std::uint64_t{1} << k), static_cast<std::uint64_t>(k) << 32) << k;
  EXPECT_EQ(fixed_log2(3), 6807362105u);  // log2(3) * 2^32 = 6807362105.98, truncated
  for (std::uint64_t x : {3ull, 77ull, 1000ull, 4097ull, 123456789ull, (1ull << 62) - 1})
    EXPECT_NEAR(static_cast<double>(fixed_log2(x)) / 4294967296.0, std::log2(static_cast<double>(x)), 1e-8) << x;
}

TEST(seeded_random, fixed_exp2_inverts_fixed_log2_up_to_rounding_down) {
  for (int k = 0; k < 62; ++k) EXPECT_EQ(fixed_exp2(static_cast<std::uint64_t>(k) << 32), std::uint64_t{1} << k) << k;
  EXPECT_EQ(fixed_exp2(fixed_log2(1000)), 999u);  // both truncate: floor lands one below
  for (std::uint64_t x : {3ull, 77ull, 1000ull, 4097ull, 123456789ull, 12345678901ull}) {
    const std::uint64_t back = fixed_exp2(fixed_log2(x));
    EXPECT_LE(back, x);  // one below at most, or a few parts in 10^8 of a large x
    EXPECT_LE(static_cast<double>(x - back), std::max(1.0, static_cast<double>(x) * 2e-8)) << x;
  }
}

TEST(seeded_random, below_and_uniform_stay_in_range_and_cover_it) {
  seeded_random rng(1);
  std::vector<int> seen(7, 0);
  for (int i = 0; i < 7000; ++i) {
    const std::int64_t v = rng.uniform(3, 9);
    ASSERT_GE(v, 3);
    ASSERT_LE(v, 9);
    ++seen[static_cast<std::size_t>(v - 3)];
  }
  for (int count : seen) EXPECT_NEAR(count, 1000, 150);
  EXPECT_EQ(rng.uniform(5, 5), 5);
  EXPECT_EQ(rng.below(1), 0u);
}

// Log-uniform: each octave of [1, 2^20) gets about the same share, and the bounds hold.
TEST(seeded_random, log_uniform_spreads_over_octaves_within_bounds) {
  seeded_random rng(3);
  std::vector<int> per_octave(20, 0);
  for (int i = 0; i < 40000; ++i) {
    const std::int64_t v = rng.log_uniform(1, (1 << 20) - 1);
    ASSERT_GE(v, 1);
    ASSERT_LE(v, (1 << 20) - 1);
    ++per_octave[static_cast<std::size_t>(std::log2(static_cast<double>(v)))];
  }
  for (int count : per_octave) EXPECT_NEAR(count, 2000, 250);
  for (int i = 0; i < 100; ++i) {
    const std::int64_t v = rng.log_uniform(77, 80);
    EXPECT_GE(v, 77);
    EXPECT_LE(v, 80);
  }
  EXPECT_EQ(rng.log_uniform(4097, 4097), 4097);
  const std::int64_t big = cuop::core::max_log_uniform;
  for (int i = 0; i < 100; ++i) EXPECT_GE(rng.log_uniform(big - 10, big), big - 10);
}

}  // namespace
