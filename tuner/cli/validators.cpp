#include "tuner/cli/validators.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <optional>

#include "tuner/core/text.hpp"

namespace cuop::cli {

namespace {

// The whole text as a T, or nothing: decimal only (no sign but '-' for signed types, no hex, no
// spaces, nothing after the number).
template <class T>
std::optional<T> parse_all(const std::string& text) {
  T value{};
  const char* last = text.data() + text.size();
  const auto [end, ec] = std::from_chars(text.data(), last, value);
  if (ec != std::errc() || end != last || text.empty()) return std::nullopt;
  return value;
}

std::string plain(double v) {
  return v == std::floor(v) && std::abs(v) < 1e15 ? fmt::format("{}", static_cast<long long>(v)) : fmt::format("{}", v);
}

}  // namespace

CLI::Validator number_in(double lo, double hi, bool lo_inclusive, const std::string& noun) {
  const std::string range =
      fmt::format("{} {} {} and at most {}", noun, lo_inclusive ? "from" : "greater than", plain(lo), plain(hi));
  const std::string wanted = lo_inclusive ? fmt::format("{} from {} to {}", noun, plain(lo), plain(hi)) : range;
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        const auto v = parse_all<double>(text);
        if (!v || !std::isfinite(*v) || *v > hi || (lo_inclusive ? *v < lo : *v <= lo))
          return fmt::format("expected {}, got {}", wanted, core::quoted(text));
        text = fmt::format("{}", *v);
        return {};
      },
      fmt::format("{}{}, {}]", lo_inclusive ? "[" : "(", plain(lo), plain(hi)));
}

CLI::Validator whole_number(long long lo, long long hi) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        const auto v = parse_all<long long>(text);
        if (!v || *v < lo || *v > hi)
          return fmt::format("expected a whole number from {} to {}, got {}", lo, hi, core::quoted(text));
        text = std::to_string(*v);
        return {};
      },
      fmt::format("[{}, {}]", lo, hi));
}

CLI::Validator unsigned_64() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const auto v = parse_all<std::uint64_t>(text);
        if (!v) return fmt::format("expected a whole number from 0 to {}, got {}", UINT64_MAX, core::quoted(text));
        text = std::to_string(*v);
        return {};
      },
      "[0, 2^64-1]");
}

CLI::Validator non_empty_path() {
  return CLI::Validator(
      [](std::string& text) -> std::string { return text.empty() ? "expected a path, got \"\"" : std::string(); }, "");
}

}  // namespace cuop::cli
