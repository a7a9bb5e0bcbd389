// Element types of the ops' inputs and outputs.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace cuop {

enum class dtype : int { f32 = 0, f16 = 1, bf16 = 2 };

constexpr std::size_t size_of(dtype t) noexcept { return t == dtype::f32 ? 4 : 2; }

constexpr std::string_view name_of(dtype t) noexcept {
  switch (t) {
    case dtype::f32: return "f32";
    case dtype::f16: return "f16";
    case dtype::bf16: return "bf16";
  }
  return "?";
}

// The C++ element type spelled as device code sees it (cuda_fp16.h / cuda_bf16.h names).
constexpr std::string_view device_type_of(dtype t) noexcept {
  switch (t) {
    case dtype::f32: return "float";
    case dtype::f16: return "__half";
    case dtype::bf16: return "__nv_bfloat16";
  }
  return "?";
}

constexpr std::optional<dtype> parse_dtype(std::string_view s) noexcept {
  if (s == "f32") return dtype::f32;
  if (s == "f16") return dtype::f16;
  if (s == "bf16") return dtype::bf16;
  return std::nullopt;
}

}  // namespace cuop
