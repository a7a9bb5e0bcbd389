// The address arithmetic behind the ops' argument checks (cuop/detail/memory_ranges.hpp): the
// bytes a strided operand covers, whether two operands share one (exactly for slices of one
// packed buffer), pointer alignment, and sizes that would overflow. Also the status names the
// checks and the stream-capture rules return.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cuop/detail/memory_ranges.hpp"
#include "cuop/status.hpp"

namespace {

using cuop::detail::alignment_of;
using cuop::detail::make_range;
using cuop::detail::max_span_bytes;
using cuop::detail::overlaps;
using cuop::detail::strided_range;

// A fake device address: never dereferenced.
const void* at(std::uintptr_t address) {
  return reinterpret_cast<const void*>(address);  // NOLINT(performance-no-int-to-ptr): by design
}

strided_range range(std::uintptr_t base, long long rows, long long cols, long long ld, std::size_t elem) {
  strided_range r;
  EXPECT_TRUE(make_range(at(base), rows, cols, ld, elem, r)) << rows << "x" << cols << " ld " << ld;
  return r;
}

}  // namespace

TEST(memory_ranges, spans_of_strided_operands) {
  const strided_range r = range(0x10000, 3, 5, 8, 2);
  EXPECT_EQ(r.rows, 3u);
  EXPECT_EQ(r.row_bytes, 10u);
  EXPECT_EQ(r.ld_bytes, 16u);
  EXPECT_EQ(r.span(), 2u * 16 + 10);
  EXPECT_TRUE(range(0x10000, 0, 5, 8, 2).empty());
  EXPECT_TRUE(range(0x10000, 4, 0, 0, 2).empty());
  EXPECT_EQ(range(0x10000, 1, 7, 0, 4).span(), 28u);  // one row: ld does not matter
}

TEST(memory_ranges, malformed_or_oversized_operands_are_refused) {
  strided_range r;
  EXPECT_FALSE(make_range(at(0x1000), -1, 4, 4, 2, r));
  EXPECT_FALSE(make_range(at(0x1000), 4, -1, 4, 2, r));
  EXPECT_FALSE(make_range(at(0x1000), 4, 4, -4, 2, r));
  EXPECT_FALSE(make_range(at(0x1000), 2, 8, 7, 2, r));  // ld < cols
  EXPECT_FALSE(make_range(at(0x1000), 2, 8, 8, 0, r));  // no element size
  // Spans past max_span_bytes: a shape whose byte offsets would overflow, or past any memory.
  EXPECT_FALSE(make_range(at(0x1000), 1LL << 40, 1LL << 20, 1LL << 20, 2, r));
  EXPECT_FALSE(make_range(at(0x1000), 3, 1, 1LL << 62, 2, r));  // (rows - 1) * ld overflows int64 bytes
  EXPECT_FALSE(make_range(at(0x1000), 9223372036854775807LL, 9223372036854775807LL, 9223372036854775807LL, 4, r));
  EXPECT_FALSE(make_range(at(0x1000), 1, static_cast<long long>(max_span_bytes / 2) + 1, 0, 2, r));
  EXPECT_TRUE(make_range(at(0x1000), 1, static_cast<long long>(max_span_bytes / 2), 0, 2, r));
  // A range that would wrap past the end of the address space.
  EXPECT_FALSE(make_range(at(~std::uintptr_t{0} - 15), 1, 16, 16, 1, r));
  EXPECT_TRUE(make_range(at(~std::uintptr_t{0} - 15), 1, 15, 15, 1, r));
}

TEST(memory_ranges, contiguous_operands_overlap_when_their_bytes_meet) {
  const auto a = range(0x1000, 1, 100, 100, 2);              // [0x1000, 0x10c8)
  EXPECT_FALSE(overlaps(a, range(0x10c8, 1, 4, 4, 2)));      // right after
  EXPECT_TRUE(overlaps(a, range(0x10c6, 1, 4, 4, 2)));       // last element shared
  EXPECT_FALSE(overlaps(a, range(0x0f00, 1, 128, 128, 2)));  // ends at 0x1000
  EXPECT_TRUE(overlaps(a, range(0x0f00, 1, 129, 129, 2)));
  EXPECT_TRUE(overlaps(a, a));                           // in place
  EXPECT_FALSE(overlaps(a, range(0x1000, 0, 4, 4, 2)));  // nothing
}

TEST(memory_ranges, only_what_is_written_may_not_share_a_byte) {
  using cuop::detail::operand_range;
  using cuop::detail::written_overlap;
  const auto x = range(0x1000, 1, 100, 100, 2), w = range(0x2000, 1, 16, 16, 2);
  EXPECT_FALSE(written_overlap(std::vector<operand_range>{{x, false}, {w, false}, {w, false}}));  // weight as bias
  EXPECT_FALSE(written_overlap(std::vector<operand_range>{{x, false}, {range(0x10c8, 1, 4, 4, 2), true}}));
  EXPECT_TRUE(written_overlap(std::vector<operand_range>{{x, false}, {range(0x10c6, 1, 4, 4, 2), true}}));
  EXPECT_TRUE(written_overlap(std::vector<operand_range>{{w, true}, {x, false}, {w, false}}));
  EXPECT_FALSE(written_overlap(std::vector<operand_range>{}));
}

// Column slices of one row-major buffer (a fused QKV projection, a concatenation): the spans
// interleave, the elements do not.
TEST(memory_ranges, slices_of_one_packed_buffer_are_exact) {
  const long long ld = 192;  // elements per row of the packed buffer, f16
  const std::uintptr_t base = 0x100000;
  const auto q = range(base, 64, 64, ld, 2);            // columns [0, 64)
  const auto k = range(base + 64 * 2, 64, 64, ld, 2);   // [64, 128)
  const auto v = range(base + 128 * 2, 64, 64, ld, 2);  // [128, 192)
  EXPECT_FALSE(overlaps(q, k));
  EXPECT_FALSE(overlaps(k, q));
  EXPECT_FALSE(overlaps(q, v));
  EXPECT_FALSE(overlaps(v, k));
  const auto k_wide = range(base + 63 * 2, 64, 64, ld, 2);  // one column into q
  EXPECT_TRUE(overlaps(q, k_wide));
  EXPECT_TRUE(overlaps(k_wide, q));
  // Shifted down by rows: still apart column-wise, and sharing where columns meet.
  EXPECT_FALSE(overlaps(q, range(base + 64 * 2 + 5 * ld * 2, 64, 64, ld, 2)));
  EXPECT_TRUE(overlaps(q, range(base + 5 * ld * 2, 64, 64, ld, 2)));
  // Only the last row of a reaches the first row of b.
  EXPECT_TRUE(overlaps(range(base, 4, 8, ld, 2), range(base + 3 * ld * 2 + 14, 4, 8, ld, 2)));
  EXPECT_FALSE(overlaps(range(base, 4, 8, ld, 2), range(base + 3 * ld * 2 + 16, 4, 8, ld, 2)));
  // b starts in a's padding after its last row, before the pitch comes round.
  EXPECT_FALSE(overlaps(range(base, 4, 8, ld, 2), range(base + 3 * ld * 2 + 100, 2, 8, ld, 2)));
}

TEST(memory_ranges, a_row_beside_a_strided_matrix_is_exact) {
  const auto m = range(0x2000, 8, 4, 16, 4);                    // rows of 16 bytes every 64
  EXPECT_FALSE(overlaps(m, range(0x2000 + 16, 1, 12, 12, 4)));  // the gap after row 0
  EXPECT_TRUE(overlaps(m, range(0x2000 + 16, 1, 13, 13, 4)));   // reaches row 1
  EXPECT_TRUE(overlaps(range(0x2000 + 16, 1, 13, 13, 4), m));
  EXPECT_FALSE(overlaps(range(0x2000 + 7 * 64 + 16, 1, 100, 100, 4), m));  // after the last row
}

TEST(memory_ranges, different_pitches_are_judged_by_their_spans) {
  const auto a = range(0x4000, 4, 4, 8, 2);
  const auto b = range(0x4000 + 8, 4, 4, 12, 2);  // interleaves without touching, but another pitch
  EXPECT_TRUE(overlaps(a, b));
  EXPECT_FALSE(overlaps(a, range(0x4000 + a.span(), 4, 4, 12, 2)));
}

TEST(memory_ranges, alignment_of_pointers) {
  EXPECT_EQ(alignment_of(at(0x1000)), 256u);
  EXPECT_EQ(alignment_of(at(0x1000), 4096), 4096u);
  EXPECT_EQ(alignment_of(at(0x1002)), 2u);
  EXPECT_EQ(alignment_of(at(0x1001)), 1u);
  EXPECT_EQ(alignment_of(at(0x1010)), 16u);
  EXPECT_EQ(alignment_of(at(0x1040)), 64u);
  EXPECT_EQ(alignment_of(nullptr), 256u);
}

TEST(memory_ranges, capped_products) {
  using cuop::detail::capped_product;
  EXPECT_EQ(capped_product(6, 7, 100), 42u);
  EXPECT_EQ(capped_product(0, ~std::uint64_t{0}, 100), 0u);
  EXPECT_EQ(capped_product(11, 10, 100), 101u);
  EXPECT_EQ(capped_product(~std::uint64_t{0}, ~std::uint64_t{0}, 1000), 1001u);
  EXPECT_EQ(capped_product(10, 10, 100), 100u);
}

TEST(library_status, every_status_has_a_name) {
  EXPECT_EQ(std::string(cuop::to_string(cuop::status::success)), "success");
  EXPECT_EQ(std::string(cuop::to_string(cuop::status::invalid_argument)), "invalid argument");
  EXPECT_EQ(std::string(cuop::to_string(cuop::status::capture_conflict)), "conflicts with a CUDA stream capture");
  for (int s = 0; s <= static_cast<int>(cuop::status::capture_conflict); ++s)
    EXPECT_NE(std::string(cuop::to_string(static_cast<cuop::status>(s))), "unknown status") << s;
  EXPECT_EQ(std::string(cuop::to_string(static_cast<cuop::status>(99))), "unknown status");
}
