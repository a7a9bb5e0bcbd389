// The targets the tuner validates for, with their published per-block limits (CUDA C++
// programming guide, "Technical Specifications per Compute Capability").
#include <array>

#include "tuner/compile/compile.hpp"

namespace cuop::compile {

namespace {

// Opt-in shared memory per block: 163 KB on compute capability 8.0, 227 KB on 9.0 and 10.0.
const std::array<target, 3> k_targets = {{
    {"sm_80", 80, 166912},
    {"sm_90a", 90, 232448},
    {"sm_100a", 100, 232448},
}};

}  // namespace

const target* find_target(std::string_view name) noexcept {
  for (const auto& t : k_targets)
    if (t.name == name) return &t;
  return nullptr;
}

std::vector<std::string> target_names() {
  std::vector<std::string> out;
  for (const auto& t : k_targets) out.push_back(t.name);
  return out;
}

std::string_view name_of(build_status s) noexcept {
  switch (s) {
    case build_status::ok: return "ok";
    case build_status::compile_error: return "compile_error";
    case build_status::over_limit: return "over_limit";
  }
  return "?";
}

}  // namespace cuop::compile
