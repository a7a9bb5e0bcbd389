#include "tuner/runner/shard.hpp"

#include <fmt/format.h>

#include <charconv>

#include "tuner/core/error.hpp"
#include "tuner/core/hash.hpp"

namespace cuop::runner {

bool shard::owns(const std::string& instance) const {
  return all() || fnv1a64(instance) % static_cast<std::uint64_t>(count) == static_cast<std::uint64_t>(index);
}

std::string shard::str() const { return all() ? std::string() : fmt::format("{}/{}", index + 1, count); }

shard parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  int k = 0, n = 0;
  const auto number = [](std::string_view s, int& out) {
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && end == s.data() + s.size() && !s.empty();
  };
  if (slash == std::string::npos || !number(std::string_view(text).substr(0, slash), k) ||
      !number(std::string_view(text).substr(slash + 1), n) || n < 1 || k < 1 || k > n)
    throw error(fmt::format("--shard \"{}\": expected K/N with 1 <= K <= N (e.g. 2/4)", text));
  return {k - 1, n};
}

}  // namespace cuop::runner
