// Where an op's operands lie in memory, for the argument checks of cuop::softmax, cuop::gemm and
// cuop::conv2d: the bytes a strided matrix covers, whether two operands share a byte, and how far a
// pointer is aligned. Arithmetic on addresses only (no CUDA call), so the CPU tests cover it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace cuop::detail {

// The most bytes one operand may span: more than any device holds (256 TiB), and small enough that
// no product of the checks below leaves 64 bits. A larger span is a bad argument, never a launch.
inline constexpr std::uint64_t max_span_bytes = std::uint64_t{1} << 48;

// rows of row_bytes bytes each, ld_bytes apart (ld_bytes >= row_bytes), from address `base`.
// A dense tensor is one row.
struct strided_range {
  std::uintptr_t base = 0;
  std::uint64_t rows = 0;
  std::uint64_t row_bytes = 0;
  std::uint64_t ld_bytes = 0;

  bool empty() const noexcept { return rows == 0 || row_bytes == 0; }
  // Bytes from base to the end of the last row; 0 when empty.
  std::uint64_t span() const noexcept { return empty() ? 0 : (rows - 1) * ld_bytes + row_bytes; }
};

// The range of a rows x cols matrix of `elem`-byte elements, rows `ld` elements apart, at `base`.
// False when rows, cols or ld is negative, ld < cols (rows > 1), elem is 0, the span passes
// max_span_bytes, or the range would wrap past the end of the address space.
bool make_range(const void* base, long long rows, long long cols, long long ld, std::size_t elem,
                strided_range& out) noexcept;

// Whether some byte belongs to both ranges. Exact when the two share their row pitch or one of them
// is a single row (slices of one packed tensor, rows interleaved in a buffer, a vector beside a
// matrix); otherwise whether their spans [base, base + span) meet, which may refuse two strided
// operands that interleave without touching.
bool overlaps(const strided_range& a, const strided_range& b) noexcept;

// An operand of a call: its range, and whether the call writes it.
struct operand_range {
  strided_range range;
  bool written = false;
};

// Whether an operand the call writes shares a byte with another operand (operands it only reads
// may share with each other: a weight passed as the bias too, say).
bool written_overlap(std::span<const operand_range> operands) noexcept;

// The largest power of two, at most `cap` (a power of two), that divides the address; cap for null.
std::uint32_t alignment_of(const void* p, std::uint32_t cap = 256) noexcept;

// a * b, or `limit` + 1 when the product passes `limit` (both factors >= 0): element counts of
// tensors whose dimensions are ints, without overflow.
std::uint64_t capped_product(std::uint64_t a, std::uint64_t b, std::uint64_t limit) noexcept;

}  // namespace cuop::detail
