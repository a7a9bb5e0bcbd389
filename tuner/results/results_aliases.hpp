// Results files (and baselines) written before issue 38 spell instance names and some parameters
// the old way; they are upgraded as they are read, so committed files and users' old files stay
// readable without being rewritten (store/key_aliases.hpp holds the renames).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace cuop::results {

// Rewrites, in place, the old problem keys and instance names of `j`'s trials (and its builds'
// instance names) and the old names of its trials' parameters to the current ones. Leaves anything malformed to the schema check. Throws
// cuop::error naming `path` for an old key that names no configuration, or for a trial holding a
// parameter under both its old and its current name.
void upgrade_result_keys(nlohmann::json& j, const std::string& path);

}  // namespace cuop::results
