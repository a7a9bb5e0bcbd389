#include "cuop/detail/memory_ranges.hpp"

#include <algorithm>
#include <limits>

namespace cuop::detail {

namespace {

// Floor and ceiling of x / d for d > 0, whatever the sign of x.
std::int64_t floor_div(std::int64_t x, std::int64_t d) noexcept {
  std::int64_t q = x / d;
  if (x % d != 0 && x < 0) --q;
  return q;
}

std::int64_t ceil_div(std::int64_t x, std::int64_t d) noexcept { return -floor_div(-x, d); }

}  // namespace

bool make_range(const void* base, long long rows, long long cols, long long ld, std::size_t elem,
                strided_range& out) noexcept {
  out = {};
  if (rows < 0 || cols < 0 || ld < 0 || elem == 0 || elem > max_span_bytes) return false;
  if (rows > 1 && ld < cols) return false;
  out.base = reinterpret_cast<std::uintptr_t>(base);
  out.rows = static_cast<std::uint64_t>(rows);
  if (rows == 0 || cols == 0) return true;  // empty: covers nothing
  const std::uint64_t max_elems = max_span_bytes / elem;
  const auto c = static_cast<std::uint64_t>(cols), l = static_cast<std::uint64_t>(ld);
  if (c > max_elems) return false;
  std::uint64_t span_elems = c;
  if (rows > 1) {
    if (l > (max_elems - c) / (out.rows - 1)) return false;
    span_elems = (out.rows - 1) * l + c;
  }
  out.row_bytes = c * elem;
  out.ld_bytes = (rows > 1 ? l : c) * elem;
  const std::uint64_t span = span_elems * elem;  // <= max_span_bytes
  if (out.base > std::numeric_limits<std::uintptr_t>::max() - span) return false;
  return true;
}

bool overlaps(const strided_range& a, const strided_range& b) noexcept {
  if (a.empty() || b.empty()) return false;
  if (a.base + a.span() <= b.base || b.base + b.span() <= a.base) return false;  // spans apart
  if (a.rows == 1 && b.rows == 1) return true;                                   // two intervals that meet
  std::uint64_t pitch = 0;
  if (a.rows == 1) pitch = b.ld_bytes;
  else if (b.rows == 1 || a.ld_bytes == b.ld_bytes) pitch = a.ld_bytes;
  else return true;  // different pitches: the spans meet, taken as overlap
  // Row i of a covers [a.base + i * pitch, + a.row_bytes), row j of b [b.base + j * pitch,
  // + b.row_bytes): they meet when -b.row_bytes < delta + t * pitch < a.row_bytes for t = j - i in
  // [-(a.rows - 1), b.rows - 1], delta = b.base - a.base. The t that satisfy it are an interval.
  // Spans that meet put |delta| below the larger span (<= max_span_bytes): all of it fits in int64.
  const auto delta = static_cast<std::int64_t>(b.base - a.base);
  const auto p = static_cast<std::int64_t>(pitch);
  const auto wa = static_cast<std::int64_t>(a.row_bytes), wb = static_cast<std::int64_t>(b.row_bytes);
  const std::int64_t t_lo = std::max(floor_div(-wb - delta, p) + 1, -static_cast<std::int64_t>(a.rows - 1));
  const std::int64_t t_hi = std::min(ceil_div(wa - delta, p) - 1, static_cast<std::int64_t>(b.rows - 1));
  return t_lo <= t_hi;
}

bool written_overlap(std::span<const operand_range> operands) noexcept {
  for (std::size_t i = 0; i < operands.size(); ++i)
    for (std::size_t j = i + 1; j < operands.size(); ++j)
      if ((operands[i].written || operands[j].written) && overlaps(operands[i].range, operands[j].range)) return true;
  return false;
}

std::uint32_t alignment_of(const void* p, std::uint32_t cap) noexcept {
  const auto v = reinterpret_cast<std::uintptr_t>(p);
  if (v == 0) return cap;
  const std::uintptr_t low = v & (~v + 1);  // the lowest set bit
  return low >= cap ? cap : static_cast<std::uint32_t>(low);
}

std::uint64_t capped_product(std::uint64_t a, std::uint64_t b, std::uint64_t limit) noexcept {
  if (a == 0 || b == 0) return 0;
  if (a > limit / b) return limit + 1;
  const std::uint64_t p = a * b;
  return p > limit ? limit + 1 : p;
}

}  // namespace cuop::detail
