// Which link of the fallback chain an entry or model comes from (DESIGN.md, Targets).
#pragma once

namespace cuop::detail {

enum class entry_source : int {
  tuned = 0,         // measured on a GPU of this architecture (the entry names the GPU)
  nearest_arch = 1,  // measured on the nearest architecture, legal on this one
  fallback = 2,      // conservative default, not tuned
};

constexpr const char* name_of(entry_source s) noexcept {
  switch (s) {
    case entry_source::tuned: return "tuned";
    case entry_source::nearest_arch: return "nearest-arch";
    case entry_source::fallback: return "default";
  }
  return "?";
}

}  // namespace cuop::detail
