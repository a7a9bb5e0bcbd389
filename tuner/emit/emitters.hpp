// Every op's emitter, in one table: `emit` writes each one's pair of files, and the sweep prints
// each one's model validation from what it just measured.
#pragma once

#include <string>
#include <vector>

#include "tuner/emit/softmax_emit.hpp"

namespace cuop::emit {

struct emitter {
  std::string op;    // the op of its results files ("conv2d")
  std::string name;  // of its generated files: <name>_dispatch.hpp, <name>_instances.cu ("conv")
  emitted (*emit)(const std::vector<result_file>& results, const std::vector<std::string>& targets);
};

const std::vector<emitter>& emitters();

}  // namespace cuop::emit
