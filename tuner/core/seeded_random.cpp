#include "tuner/core/seeded_random.hpp"

#include <array>
#include <bit>

namespace cuop::core {

namespace {

constexpr std::uint64_t rotl(std::uint64_t x, int k) noexcept { return (x << k) | (x >> (64 - k)); }

constexpr int fraction_bits = 32;
constexpr std::uint64_t one = std::uint64_t{1} << 31;  // 1.0 in the 32-bit mantissas below (Q1.31)

// floor(sqrt(n)), digit by digit: exact, so the table below is the same everywhere.
constexpr std::uint64_t isqrt(std::uint64_t n) noexcept {
  std::uint64_t root = 0;
  std::uint64_t bit = std::uint64_t{1} << 62;
  while (bit > n) bit >>= 2;
  while (bit != 0) {
    if (n >= root + bit) {
      n -= root + bit;
      root = (root >> 1) + bit;
    } else {
      root >>= 1;
    }
    bit >>= 2;
  }
  return root;
}

// root[b] = 2^(2^-b) in Q1.31 for b = 1..32 (root[0] = 2): each the square root of the one before.
constexpr std::array<std::uint64_t, fraction_bits + 1> roots_of_two() noexcept {
  std::array<std::uint64_t, fraction_bits + 1> root{};
  root[0] = 2 * one;
  for (int b = 1; b <= fraction_bits; ++b) root[b] = isqrt(root[b - 1] << 31);
  return root;
}

constexpr auto root_of_two = roots_of_two();
static_assert(root_of_two[1] == 3037000499u);  // floor(sqrt(2) * 2^31)

}  // namespace

std::uint64_t splitmix64(std::uint64_t& state) noexcept {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

seeded_random::seeded_random(std::uint64_t seed) noexcept {
  // splitmix64's outputs are never four zeros (the one state xoshiro cannot leave).
  for (auto& word : m_state) word = splitmix64(seed);
}

std::uint64_t seeded_random::next() noexcept {
  const std::uint64_t result = rotl(m_state[1] * 5, 7) * 9;
  const std::uint64_t t = m_state[1] << 17;
  m_state[2] ^= m_state[0];
  m_state[3] ^= m_state[1];
  m_state[1] ^= m_state[2];
  m_state[0] ^= m_state[3];
  m_state[2] ^= t;
  m_state[3] = rotl(m_state[3], 45);
  return result;
}

std::uint64_t seeded_random::below(std::uint64_t n) noexcept {
  if (n == 0) return next();
  // 2^64 mod n: the outputs under it are the partial range that would favour small values.
  const std::uint64_t partial = (0 - n) % n;
  for (;;) {
    const std::uint64_t x = next();
    if (x >= partial) return x % n;
  }
}

std::int64_t seeded_random::uniform(std::int64_t lo, std::int64_t hi) noexcept {
  // In unsigned arithmetic, which wraps where signed would overflow: hi - lo + 1 is 0 (2^64) for
  // the whole int64 range.
  const std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) + 1;
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + below(span));
}

std::int64_t seeded_random::log_uniform(std::int64_t lo, std::int64_t hi) noexcept {
  const std::uint64_t from = fixed_log2(static_cast<std::uint64_t>(lo));
  const std::uint64_t to = fixed_log2(static_cast<std::uint64_t>(hi) + 1);
  // Neighbours past 2^32 can share a truncated logarithm: then there is nothing to draw.
  const std::uint64_t t = to > from ? from + below(to - from) : from;
  const auto v = static_cast<std::int64_t>(fixed_exp2(t));
  return v < lo ? lo : v > hi ? hi : v;
}

std::uint64_t fixed_log2(std::uint64_t x) noexcept {
  const int k = 63 - std::countl_zero(x);
  // x / 2^k in [1, 2) with 31 fraction bits: below 2^32, so its square fits in 64 bits.
  std::uint64_t y = k >= 31 ? x >> (k - 31) : x << (31 - k);
  std::uint64_t fraction = 0;
  for (int i = 0; i < fraction_bits; ++i) {
    y = (y * y) >> 31;  // squared: the next fraction bit is whether it reached 2
    fraction <<= 1;
    if (y >= 2 * one) {
      y >>= 1;
      fraction |= 1;
    }
  }
  return (static_cast<std::uint64_t>(k) << fraction_bits) | fraction;
}

std::uint64_t fixed_exp2(std::uint64_t t) noexcept {
  const std::uint64_t whole = t >> fraction_bits;
  std::uint64_t m = one;  // stays in [1, 2): a product of roots of two whose exponents sum below 1
  for (int b = 1; b <= fraction_bits; ++b)
    if ((t >> (fraction_bits - b)) & 1) m = (m * root_of_two[b]) >> 31;
  return whole >= 31 ? m << (whole - 31) : m >> (31 - whole);
}

}  // namespace cuop::core
