// Inputs yaml-cpp cannot be trusted with. Debian's yaml-cpp 0.7 loops, allocating without bound,
// on a ',' that starts a value outside a flow collection (`, a` as a document, after `- `, after
// an anchor or tag, after `---`): a 120-byte sweep file took gigabytes and never returned (a
// finding of tests/fuzz/fuzz_spec). Such a ',' is not YAML (a plain scalar cannot start with a
// flow indicator), so refusing it before yaml-cpp sees the text loses no valid file. It loops the
// same way on text after a node that has ended on its line (`"a" l`, `[a] l`, `[],`) when a
// complex key (`?`) or a ',' follows: YAML allows only ':' or a comment there, so that is refused
// too.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace cuop::spec::detail {

struct yaml_hazard {
  int line = 0, column = 0;  // 1-based
  std::string what;
};

// The first such ',' or text in `text`, if any. Quoted scalars, comments, flow collections
// ([ ], { }: a ',' there separates items) and block scalars (| and >) are skipped.
std::optional<yaml_hazard> find_yaml_hazard(std::string_view text);

}  // namespace cuop::spec::detail
