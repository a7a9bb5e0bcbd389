// "Did you mean" for user-input errors: the closest valid name to a misspelled one, or the list
// of valid names when none is close.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cuop {

// Optimal string alignment distance (Levenshtein plus adjacent transpositions), case-sensitive.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The valid name closest to `bad`, if it is close enough to be a plausible typo (a case-only
// difference, or at most about a third of the name's characters edited). Ties go to the
// earlier name.
std::optional<std::string> closest_name(std::string_view bad, const std::vector<std::string>& names);

// Suffix for an error message: " (did you mean \"x\"?)" when a name is close, else
// " (expected one of: a, b, c)"; empty when `names` is empty.
std::string suggest_suffix(std::string_view bad, const std::vector<std::string>& names);

}  // namespace cuop
