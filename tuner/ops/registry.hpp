// The ops the tuner knows: their problem dimensions and the candidate families (our kernel
// templates and library back ends) with their tunable parameters. Table-driven: adding an op is
// adding one entry in registry.cpp.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cuop::ops {

struct family_desc {
  std::string name;
  std::vector<std::string> params;  // in the order names and templates use
  std::string kind;                 // "kernel" or "library"
};

struct op_desc {
  std::string name;
  std::vector<std::string> problem_dims;  // in the order problem keys use ("rows", "cols")
  std::vector<family_desc> families;

  const family_desc* find_family(std::string_view family) const noexcept;
  std::vector<std::string> family_names() const;
};

const op_desc* find_op(std::string_view name) noexcept;
std::vector<std::string> op_names();

}  // namespace cuop::ops
