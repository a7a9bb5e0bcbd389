#include <fmt/format.h>

#include "tuner/compile/compile.hpp"

namespace cuop::compile {

std::string hash_hex(std::string_view data) {
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a 64 offset basis
  for (unsigned char c : data) {
    h ^= c;
    h *= 1099511628211ull;  // FNV prime
  }
  return fmt::format("{:016x}", h);
}

}  // namespace cuop::compile
