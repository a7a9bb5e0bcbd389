// The targets the tuner validates for, with their published per-block limits (CUDA C++
// programming guide, "Technical Specifications per Compute Capability").
#include <array>

#include "tuner/compile/compile.hpp"

namespace cuop::compile {

namespace {

// Opt-in shared memory per block: 64 KB on 7.5, 163 KB on 8.0, 99 KB on 8.6, 8.9 and 12.0,
// 227 KB on 9.0 and 10.0. sm_90a and sm_100a run on their own compute capability only; the
// others' code runs on later ones too (docs/packaging.md, "Architectures").
const std::array<target, 8> k_targets = {{
    {"sm_75", 75, 65536, false},
    {"sm_80", 80, 166912, false},
    {"sm_86", 86, 101376, false},
    {"sm_89", 89, 101376, false},
    {"sm_90", 90, 232448, false},
    {"sm_90a", 90, 232448, true},
    {"sm_100a", 100, 232448, true},
    {"sm_120", 120, 101376, false},
}};

// What a sweep compiles for when its file names no targets: the tables the library ships by
// default (CMAKE_CUDA_ARCHITECTURES 80;90a;100a).
constexpr std::array<std::string_view, 3> k_default_targets = {"sm_80", "sm_90a", "sm_100a"};

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

std::vector<std::string> default_target_names() { return {k_default_targets.begin(), k_default_targets.end()}; }

const target* measuring_target(int cc) noexcept {
  const target* found = nullptr;
  for (const auto& t : k_targets)
    if (t.cc == cc && (!found || t.arch_specific)) found = &t;
  return found;
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
