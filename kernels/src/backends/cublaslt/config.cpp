#include <array>
#include <cstdint>
#include <limits>
#include <tuple>

#include "cuop/backends/cublaslt.hpp"

namespace cuop::backends {

namespace {

// The identifier's fields, in identifier order, with the range of the attribute's C type.
struct field_spec {
  std::string_view key;
  long long min;
  long long max;
};

constexpr std::size_t field_count = 9;

constexpr long long i32_min = std::numeric_limits<std::int32_t>::min();
constexpr long long i32_max = std::numeric_limits<std::int32_t>::max();
constexpr long long u32_max = std::numeric_limits<std::uint32_t>::max();
constexpr long long u16_max = std::numeric_limits<std::uint16_t>::max();

constexpr std::array<field_spec, field_count> fields{{
    {"a", i32_min, i32_max},  // algo id
    {"t", 0, u32_max},        // tile
    {"s", 0, u32_max},        // stages
    {"k", i32_min, i32_max},  // split-K
    {"r", 0, u32_max},        // reduction scheme
    {"w", 0, u32_max},        // CTA swizzling
    {"c", 0, u32_max},        // custom option
    {"i", 0, u16_max},        // inner shape
    {"cl", 0, u16_max},       // cluster shape
}};

constexpr std::string_view example_id = "lt_a66_t18_s22_k1_r0_w0_c0_i0_cl0";

using values = std::array<long long, field_count>;

values values_of(const lt_config& c) {
  return {c.algo_id, c.tile, c.stages, c.split_k, c.reduction, c.swizzle, c.custom, c.inner_shape, c.cluster_shape};
}

auto identity_tuple(const lt_config& c) {
  return std::make_tuple(c.algo_id, c.tile, c.stages, c.split_k, c.reduction, c.swizzle, c.custom, c.inner_shape,
                         c.cluster_shape);
}

// The text quoted in messages: printable ASCII as is, anything else as \xNN, long texts cut.
std::string quoted(std::string_view s) {
  constexpr std::size_t max_shown = 80;
  static constexpr char hex[] = "0123456789abcdef";
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size() && i < max_shown; ++i) {
    const auto ch = static_cast<unsigned char>(s[i]);
    if (ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\') {
      out += static_cast<char>(ch);
    } else {
      out += "\\x";
      out += hex[ch >> 4];
      out += hex[ch & 0xf];
    }
  }
  if (s.size() > max_shown) out += "...";
  out += '"';
  return out;
}

std::string key_list() {
  std::string out;
  for (const auto& f : fields) {
    if (!out.empty()) out += ", ";
    out += f.key;
  }
  return out;
}

bool fail(std::string* why, std::string message) {
  if (why != nullptr) *why = std::move(message);
  return false;
}

int field_index(std::string_view key) {
  for (std::size_t i = 0; i < fields.size(); ++i)
    if (fields[i].key == key) return static_cast<int>(i);
  return -1;
}

// A canonical decimal: an optional "-" (only where min < 0, never "-0"), digits, no leading
// zero unless the value is 0, within [min, max].
enum class number { ok, malformed, out_of_range };

number parse_decimal(std::string_view s, const field_spec& f, long long& out) {
  const bool negative = !s.empty() && s[0] == '-' && f.min < 0;
  if (negative) s.remove_prefix(1);
  if (s.empty() || (s.size() > 1 && s[0] == '0') || (negative && s == "0")) return number::malformed;
  const unsigned long long limit =
      negative ? static_cast<unsigned long long>(-(f.min + 1)) + 1 : static_cast<unsigned long long>(f.max);
  unsigned long long v = 0;
  bool too_large = false;
  for (const char ch : s) {
    if (ch < '0' || ch > '9') return number::malformed;
    const unsigned d = static_cast<unsigned>(ch - '0');
    if (too_large || v > (limit - d) / 10) {
      too_large = true;  // keep scanning: a later non-digit makes it malformed instead
      continue;
    }
    v = v * 10 + d;
  }
  if (too_large) return number::out_of_range;
  out = negative ? -static_cast<long long>(v - 1) - 1 : static_cast<long long>(v);
  return number::ok;
}

}  // namespace

bool same_identity(const lt_config& a, const lt_config& b) noexcept { return identity_tuple(a) == identity_tuple(b); }

bool identity_less(const lt_config& a, const lt_config& b) noexcept { return identity_tuple(a) < identity_tuple(b); }

std::string lt_config_id(const lt_config& c) {
  const values v = values_of(c);
  std::string out = "lt";
  for (std::size_t i = 0; i < field_count; ++i) {
    out += '_';
    out += fields[i].key;
    out += std::to_string(v[i]);
  }
  return out;
}

bool parse_lt_config_id(std::string_view text, lt_config& out, std::string* why) {
  constexpr std::string_view prefix = "lt_";
  if (text.substr(0, prefix.size()) != prefix || text.size() == prefix.size())
    return fail(why, "not a cublaslt config id: " + quoted(text) + " (expected \"lt_\" and the fields " + key_list() +
                         ", e.g. \"" + std::string(example_id) + "\")");

  values v{};
  std::array<bool, field_count> seen{};
  std::array<int, field_count> order{};  // field index of each segment, in the order given
  std::size_t segments = 0;

  std::string_view rest = text.substr(prefix.size());
  while (true) {
    const std::size_t end = rest.find('_');
    const std::string_view seg = rest.substr(0, end);
    if (seg.empty()) return fail(why, "empty field in " + quoted(text) + " (fields are separated by one \"_\")");
    std::size_t name_len = 0;
    while (name_len < seg.size() && seg[name_len] >= 'a' && seg[name_len] <= 'z') ++name_len;
    const std::string_view key = seg.substr(0, name_len);
    const std::string_view digits = seg.substr(name_len);
    if (key.empty())
      return fail(why, "field " + quoted(seg) + " has no name in " + quoted(text) +
                           " (expected a name and a decimal value, e.g. \"t18\")");
    const int idx = field_index(key);
    if (idx < 0)
      return fail(why,
                  "unknown field " + quoted(key) + " in " + quoted(text) + " (expected one of: " + key_list() + ")");
    if (seen[idx]) return fail(why, "duplicate field " + quoted(key) + " in " + quoted(text));
    long long value = 0;
    const std::string range = std::to_string(fields[idx].min) + " to " + std::to_string(fields[idx].max);
    switch (parse_decimal(digits, fields[idx], value)) {
      case number::ok: break;
      case number::malformed:
        return fail(why, "bad value " + quoted(digits) + " of field " + quoted(key) + " in " + quoted(text) +
                             " (expected a decimal integer from " + range + ", without leading zeros)");
      case number::out_of_range:
        return fail(why, "value " + quoted(digits) + " of field " + quoted(key) + " in " + quoted(text) +
                             " out of range (expected " + range + ")");
    }
    seen[idx] = true;
    v[idx] = value;
    order[segments++] = idx;
    if (end == std::string_view::npos) break;
    rest = rest.substr(end + 1);
  }

  for (std::size_t i = 0; i < field_count; ++i)
    if (!seen[i])
      return fail(why, "missing field " + quoted(fields[i].key) + " in " + quoted(text) +
                           " (expected all of: " + key_list() + ")");
  for (std::size_t i = 0; i < segments; ++i)
    if (order[i] != static_cast<int>(i))
      return fail(why, "field " + quoted(fields[order[i]].key) + " out of order in " + quoted(text) +
                           " (expected the order " + key_list() + ")");

  lt_config c = out;  // keeps workspace_bytes and waves: they are not part of the identifier
  c.algo_id = static_cast<std::int32_t>(v[0]);
  c.tile = static_cast<std::uint32_t>(v[1]);
  c.stages = static_cast<std::uint32_t>(v[2]);
  c.split_k = static_cast<std::int32_t>(v[3]);
  c.reduction = static_cast<std::uint32_t>(v[4]);
  c.swizzle = static_cast<std::uint32_t>(v[5]);
  c.custom = static_cast<std::uint32_t>(v[6]);
  c.inner_shape = static_cast<std::uint16_t>(v[7]);
  c.cluster_shape = static_cast<std::uint16_t>(v[8]);
  out = c;
  return true;
}

}  // namespace cuop::backends
