#include "tuner/core/hash.hpp"

namespace cuop {

std::uint64_t fnv1a64(std::string_view data, std::uint64_t seed) noexcept {
  constexpr std::uint64_t prime = 0x100000001b3ull;
  std::uint64_t h = seed;
  for (unsigned char c : data) {
    h ^= c;
    h *= prime;
  }
  return h;
}

std::string to_hex(std::uint64_t value) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, value >>= 4) s[static_cast<std::size_t>(i)] = digits[value & 0xf];
  return s;
}

std::string fnv1a_hex(std::string_view data) { return to_hex(fnv1a64(data)); }

}  // namespace cuop
