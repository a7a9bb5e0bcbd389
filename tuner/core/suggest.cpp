#include "tuner/core/suggest.hpp"

#include <algorithm>
#include <cctype>

namespace cuop {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rolling rows: transpositions look two rows back.
  const std::size_t n = b.size();
  std::vector<std::size_t> prev2(n + 1), prev(n + 1), cur(n + 1);
  for (std::size_t j = 0; j <= n; ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= n; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) cur[j] = std::min(cur[j], prev2[j - 2] + 1);
    }
    std::swap(prev2, prev);
    std::swap(prev, cur);
  }
  return prev[n];
}

std::optional<std::string> closest_name(std::string_view bad, const std::vector<std::string>& names) {
  const std::string bad_lower = lower(bad);
  std::optional<std::string> best;
  std::size_t best_score = 0;
  for (const auto& name : names) {
    const std::size_t d = edit_distance(bad_lower, lower(name));
    // A third of the longer name, at least one edit; fewer edits than the typo has characters
    // (so "x" does not suggest "y").
    const std::size_t limit = std::max<std::size_t>(1, std::max(bad.size(), name.size()) / 3);
    if (d > limit || d >= bad.size()) continue;
    // On equal distance prefer a name the typo begins ("sm_90" -> "sm_90a", not "sm_80").
    const std::size_t score = 2 * d + (lower(name).starts_with(bad_lower) ? 0 : 1);
    if (!best || score < best_score) {
      best = name;
      best_score = score;
    }
  }
  return best;
}

std::string suggest_suffix(std::string_view bad, const std::vector<std::string>& names) {
  if (names.empty()) return {};
  if (auto near = closest_name(bad, names)) return " (did you mean \"" + *near + "\"?)";
  std::string out = " (expected one of: ";
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i) out += ", ";
    out += names[i];
  }
  return out + ")";
}

}  // namespace cuop
