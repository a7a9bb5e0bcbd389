// Enumeration of a sweep's configuration space and the constraints that filter it.
#include <gtest/gtest.h>

#include "test_support.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "tuner/core/error.hpp"
#include "tuner/space/space.hpp"
#include "tuner/spec/constraint.hpp"
#include "tuner/spec/spec.hpp"

namespace {

using cuop::space::enumerate;
using cuop::space::verdict;

using cuop::test::error_of;

std::size_t accepted(const std::vector<verdict>& vs) {
  return static_cast<std::size_t>(std::count_if(vs.begin(), vs.end(), [](const verdict& v) { return v.accepted; }));
}

std::vector<std::int64_t> values_of(const cuop::space::point& p) {
  std::vector<std::int64_t> out;
  for (const auto& [name, v] : p.params) out.push_back(v);
  return out;
}

const char* order_sweep = R"(op: softmax
problems:
  - {rows: 64, cols: 128, dtypes: [f32, f16]}
candidates:
  - family: warp_row
    params:
      vec: [1, 2]
      threads_per_row: {pow2: [16, 32]}
      rows_per_block: {range: [1, 5, 2]}
      chunks: [4, 1]
  - family: block_row
    params:
      chunks: [1, 2]
      vec: 4
      block_threads: {pow2: [32, 128]}
)";

TEST(space, enumeration_order_and_counts) {
  const auto s = cuop::spec::parse(order_sweep, "order.yaml");
  EXPECT_EQ(cuop::space::space_size(s), 2u * 2 * 3 * 2 + 2 * 1 * 3);
  const auto vs = enumerate(s, s.problems[0]);
  ASSERT_EQ(vs.size(), 30u);
  EXPECT_EQ(accepted(vs), 30u);  // no constraints
  // Nested loops in the listed parameter order, values in listed order (chunks 4 before 1).
  EXPECT_EQ(values_of(vs[0].config), (std::vector<std::int64_t>{1, 16, 1, 4}));
  EXPECT_EQ(values_of(vs[1].config), (std::vector<std::int64_t>{1, 16, 1, 1}));
  EXPECT_EQ(values_of(vs[2].config), (std::vector<std::int64_t>{1, 16, 3, 4}));
  EXPECT_EQ(values_of(vs[6].config), (std::vector<std::int64_t>{1, 32, 1, 4}));
  EXPECT_EQ(values_of(vs[23].config), (std::vector<std::int64_t>{2, 32, 5, 1}));
  EXPECT_EQ(vs[0].config.family, "warp_row");
  EXPECT_EQ(cuop::space::str(vs[0].config), "warp_row(vec=1, threads_per_row=16, rows_per_block=1, chunks=4)");
  // Parameters keep the candidate's order, not the family's.
  EXPECT_EQ(vs[24].config.family, "block_row");
  EXPECT_EQ(cuop::space::str(vs[24].config), "block_row(chunks=1, vec=4, block_threads=32)");
  EXPECT_EQ(cuop::space::str(vs[29].config), "block_row(chunks=2, vec=4, block_threads=128)");
  // Same order for every problem: deterministic.
  const auto again = enumerate(s, s.problems[1]);
  ASSERT_EQ(again.size(), vs.size());
  for (std::size_t i = 0; i < vs.size(); ++i)
    EXPECT_EQ(cuop::space::str(again[i].config), cuop::space::str(vs[i].config));
}

TEST(space, problem_symbols_include_elem_bytes) {
  const auto s = cuop::spec::parse(order_sweep, "order.yaml");
  const auto f32 = cuop::space::problem_symbols(s.problems[0]);
  EXPECT_EQ(f32.at("rows"), 64);
  EXPECT_EQ(f32.at("cols"), 128);
  EXPECT_EQ(f32.at("elem_bytes"), 4);
  EXPECT_EQ(cuop::space::problem_symbols(s.problems[1]).at("elem_bytes"), 2);
}

TEST(space, constraints_use_problem_fields_and_report_the_failed_one) {
  const char* text = R"(op: softmax
problems:
  - {rows: 64, cols: 256, dtype: f32}
  - {rows: 64, cols: 256, dtype: f16}
candidates:
  - family: warp_row
    params:
      vec: [1, 2, 4, 8]
      threads_per_row: [32]
      rows_per_block: [4]
      chunks: [1, 2, 4]
    constraints:
      - "vec * threads_per_row * chunks >= cols"
      - vec * threads_per_row * chunks < 2 * cols
constraints: ["vec * elem_bytes <= 8"]
)";
  const auto s = cuop::spec::parse(text, "c.yaml");
  const auto f32 = enumerate(s, s.problems[0]);
  ASSERT_EQ(f32.size(), 12u);
  // f32: vec <= 2, and 32 * vec * chunks in [256, 512): (2, 4) only.
  EXPECT_EQ(accepted(f32), 1u);
  EXPECT_TRUE(f32[5].accepted);
  EXPECT_EQ(values_of(f32[5].config), (std::vector<std::int64_t>{2, 32, 4, 4}));
  // vec=1, chunks=1: the sweep-wide constraint holds, the candidate's first does not.
  EXPECT_FALSE(f32[0].accepted);
  EXPECT_EQ(f32[0].reason, "constraint \"vec * threads_per_row * chunks >= cols\" (c.yaml:13:9) is false");
  // vec=8: the sweep-wide constraint is checked first.
  EXPECT_EQ(f32[11].reason, "constraint \"vec * elem_bytes <= 8\" (c.yaml:15:15) is false");
  // f16: vec <= 4 now: (2, 4) and (4, 2).
  const auto f16 = enumerate(s, s.problems[1]);
  EXPECT_EQ(accepted(f16), 2u);
  EXPECT_TRUE(f16[5].accepted);
  EXPECT_TRUE(f16[7].accepted);
  // vec=4, chunks=4: 512 columns held for 256, more than twice what the row needs.
  EXPECT_EQ(f16[8].reason, "constraint \"vec * threads_per_row * chunks < 2 * cols\" (c.yaml:14:9) is false");
}

TEST(space, guarded_division_and_operator_precedence) {
  const char* text = R"(op: softmax
problems: [{rows: 8, cols: 64, dtype: f32}]
candidates:
  - family: block_row
    params: {vec: [1, 2, 3], block_threads: 32, chunks: 1}
    constraints:
      - "vec > 1 ? cols / (vec - 1) >= 64 : 1"
      - "2 ^ 3 ^ 2 == 512 && 10 - 3 - 2 == 5 && -vec + 4 >= 1 && 1 + 2 * 3 == 7"
)";
  const auto s = cuop::spec::parse(text, "g.yaml");
  const auto vs = enumerate(s, s.problems[0]);  // the ternary skips the division for vec 1
  ASSERT_EQ(vs.size(), 3u);
  EXPECT_TRUE(vs[0].accepted);
  EXPECT_TRUE(vs[1].accepted);   // 64 / 1 >= 64
  EXPECT_FALSE(vs[2].accepted);  // 64 / 2 < 64
  EXPECT_EQ(vs[2].reason, "constraint \"vec > 1 ? cols / (vec - 1) >= 64 : 1\" (g.yaml:7:9) is false");
}

TEST(space, modulo_and_logic_operators) {
  const char* text = R"(op: softmax
problems: [{rows: 8, cols: 96, dtype: f32}]
candidates:
  - family: block_row
    params: {vec: [1, 2, 4, 8], block_threads: 32, chunks: 1}
    constraints: ["cols % (vec * 16) == 0 && vec != 1"]
)";
  const auto s = cuop::spec::parse(text, "m.yaml");
  const auto vs = enumerate(s, s.problems[0]);
  ASSERT_EQ(vs.size(), 4u);
  EXPECT_FALSE(vs[0].accepted);  // vec 1 excluded by the second clause
  EXPECT_TRUE(vs[1].accepted);   // 96 % 32 == 0
  EXPECT_FALSE(vs[2].accepted);  // 96 % 64 == 32
  EXPECT_FALSE(vs[3].accepted);  // 96 % 128 == 96
}

TEST(space, unknown_symbol_is_reported_by_check_constraints) {
  auto s = cuop::spec::parse(order_sweep, "order.yaml");
  s.candidates[1].constraints.push_back({"block_thread <= 1024", {"order.yaml", 20, 7}});
  EXPECT_EQ(error_of([&] {
              cuop::spec::check_constraints(s, {"rows", "cols"});
            }),
            "order.yaml:20:7: unknown symbol \"block_thread\" in constraint \"block_thread <= "
            "1024\" (did you mean \"block_threads\"?)");
  // A problem field the op does not have is unknown too.
  s.candidates[1].constraints.back() = {"batch * vec > 0", {"order.yaml", 21, 7}};
  EXPECT_EQ(error_of([&] {
              cuop::spec::check_constraints(s, {"rows", "cols"});
            }),
            "order.yaml:21:7: unknown symbol \"batch\" in constraint \"batch * vec > 0\" (expected "
            "one of: chunks, vec, block_threads, rows, cols, elem_bytes)");
}

TEST(space, syntax_error_names_the_constraint) {
  auto s = cuop::spec::parse(order_sweep, "order.yaml");
  s.constraints.push_back({"(vec + 1", {"order.yaml", 30, 3}});
  EXPECT_EQ(error_of([&] {
              cuop::spec::check_constraints(s, {"rows", "cols"});
            }),
            "order.yaml:30:3: constraint \"(vec + 1\": missing parenthesis");
}

TEST(space, division_by_zero_names_constraint_and_point) {
  const char* text = R"(op: softmax
problems: [{rows: 8, cols: 64, dtype: bf16}]
candidates:
  - family: block_row
    params: {vec: [2, 1], block_threads: 32, chunks: 1}
    constraints: ["cols / (vec - 1) >= 2"]
)";
  const auto s = cuop::spec::parse(text, "z.yaml");  // parsing alone does not evaluate points
  EXPECT_EQ(error_of([&] { enumerate(s, s.problems[0]); }),
            "z.yaml:6:19: constraint \"cols / (vec - 1) >= 2\" is not finite (inf) at problem "
            "softmax_bf16_8x64, block_row(vec=1, block_threads=32, chunks=1)");
}

TEST(space, empty_space_is_reported_per_problem) {
  const char* text = R"(op: softmax
problems:
  - {rows: 8, cols: 64, dtype: f32}
  - {rows: 8, cols: 4096, dtype: f32}
  - {rows: 8, cols: 8192, dtype: f16}
candidates:
  - family: block_row
    params: {vec: [1, 4], block_threads: {pow2: [32, 256]}, chunks: [1, 2]}
    constraints: ["vec * block_threads * chunks >= cols"]
)";
  const auto s = cuop::spec::parse(text, "configs/x.yaml");
  EXPECT_EQ(accepted(enumerate(s, s.problems[0])), 15u);  // all but 1 * 32 * 1
  EXPECT_EQ(cuop::space::empty_problems(s), (std::vector<std::string>{"softmax_f32_8x4096", "softmax_f16_8x8192"}));
  EXPECT_EQ(error_of([&] { cuop::space::require_nonempty(s); }),
            "configs/x.yaml: no configuration satisfies the constraints for problem "
            "softmax_f32_8x4096");
}

TEST(space, pow2_and_range_expand_in_order) {
  const char* text = R"(op: softmax
problems: [{rows: 8, cols: 64, dtype: f32}]
candidates:
  - family: block_row
    params: {vec: {pow2: [1, 8]}, block_threads: {range: [64, 256, 96]}, chunks: {range: [3, 3]}}
)";
  const auto s = cuop::spec::parse(text, "e.yaml");
  EXPECT_EQ(s.candidates[0].params[0].values, (std::vector<std::int64_t>{1, 2, 4, 8}));
  EXPECT_EQ(s.candidates[0].params[1].values, (std::vector<std::int64_t>{64, 160, 256}));
  EXPECT_EQ(s.candidates[0].params[2].values, (std::vector<std::int64_t>{3}));
  const auto vs = enumerate(s, s.problems[0]);
  ASSERT_EQ(vs.size(), 12u);
  EXPECT_EQ(values_of(vs[4].config), (std::vector<std::int64_t>{2, 160, 3}));
  EXPECT_EQ(cuop::space::space_size(s), 12u);
}

TEST(space, real_sweeps_load_and_have_no_empty_problem) {
  // Each shipped sweep with the most trials its GPU-minute budget allows.
  const std::pair<const char*, std::size_t> sweeps[] = {{"softmax.yaml", 900},  {"softmax-smoke.yaml", 650},
                                                        {"gemm.yaml", 3700},    {"conv.yaml", 900},
                                                        {"gate/gemm.yaml", 60}, {"gate/conv.yaml", 60}};
  for (const auto& [name, budget] : sweeps) {
    SCOPED_TRACE(name);
    const std::string path = std::string(CUOP_TEST_DATA_DIR) + "/../../configs/" + name;
    const auto s = cuop::spec::load(path);
    EXPECT_NO_THROW(cuop::space::require_nonempty(s));
    std::size_t total = 0;
    for (const auto& p : s.problems) total += accepted(enumerate(s, p));
    EXPECT_GT(total, 0u);
    EXPECT_LE(total, budget);
  }
}

}  // namespace
