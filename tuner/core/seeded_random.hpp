// A seeded pseudo-random generator whose draws are the same on every platform, compiler and
// standard library: xoshiro256** (Blackman and Vigna, 2018) seeded through splitmix64, and
// integer-only ways to turn its 64-bit outputs into values. Sweep files say `seed: 7` and must
// mean the same problems everywhere, so nothing implementation-defined is used:
// std::uniform_int_distribution and friends draw differently under libstdc++ and libc++, and
// std::log / std::exp may differ in the last bit between C libraries (docs/configs.md, "Problem
// sets: grids and samples").
#pragma once

#include <cstdint>

namespace cuop::core {

// splitmix64 (Steele, Lea and Flood; Vigna's public-domain code): advances `state` and returns
// its next output. Seeds xoshiro's four words from one 64-bit seed.
std::uint64_t splitmix64(std::uint64_t& state) noexcept;

// The largest `hi` log_uniform() takes: log2(hi + 1) must stay below 62 in the fixed point.
inline constexpr std::int64_t max_log_uniform = (std::int64_t{1} << 62) - 1;

class seeded_random {
 public:
  explicit seeded_random(std::uint64_t seed) noexcept;

  // The next 64 bits of xoshiro256**.
  std::uint64_t next() noexcept;
  // Uniform in [0, n), n > 0; n == 0 stands for 2^64 (every output). Outputs in the top partial
  // range of 2^64 are drawn again, so there is no modulo bias.
  std::uint64_t below(std::uint64_t n) noexcept;
  // Uniform integer in [lo, hi], lo <= hi.
  std::int64_t uniform(std::int64_t lo, std::int64_t hi) noexcept;
  // Integer in [lo, hi] whose logarithm is uniform: floor(2^t) for t uniform in
  // [log2(lo), log2(hi + 1)), computed in 32-bit fixed point (fixed_log2 / fixed_exp2) and
  // clamped to [lo, hi]. 1 <= lo <= hi <= max_log_uniform.
  std::int64_t log_uniform(std::int64_t lo, std::int64_t hi) noexcept;

 private:
  std::uint64_t m_state[4];
};

// log2(x) for x >= 1 as a fixed-point number with 32 fraction bits, truncated: the integer part
// from the highest set bit, the fraction bit by bit by repeated squaring of x / 2^k held in 32
// bits. Only 64-bit integer operations, so every platform gets the same bits.
std::uint64_t fixed_log2(std::uint64_t x) noexcept;
// floor(2^(t / 2^32)) for t < 62 * 2^32, the inverse of fixed_log2 up to rounding: 2 to the
// integer part as a shift, to the fraction as a product of the constants 2^(2^-b), b = 1..32, in
// 32-bit fixed point (each the integer square root of the one before, computed at compile time).
std::uint64_t fixed_exp2(std::uint64_t t) noexcept;

}  // namespace cuop::core
