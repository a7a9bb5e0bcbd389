// FNV-1a 64: a small, stable, dependency-free digest for cache keys, environment keys and change
// detection. Not a security hash.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace cuop {

inline constexpr std::uint64_t fnv1a_offset = 0xcbf29ce484222325ull;

// Continues from `seed` so a digest can be built over several pieces.
std::uint64_t fnv1a64(std::string_view data, std::uint64_t seed = fnv1a_offset) noexcept;

// 16 lowercase hex digits.
std::string to_hex(std::uint64_t value);
std::string fnv1a_hex(std::string_view data);

}  // namespace cuop
