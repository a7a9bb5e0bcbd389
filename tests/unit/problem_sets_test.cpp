// Problem sets in sweep files (tuner/spec/problem_sets.hpp, docs/configs.md "Problem sets: grids
// and samples"): each grid value form, the order of a grid's problems, samples pinned to exact
// problems for a fixed seed (a change of the generator or of the draw order fails here), `where`,
// duplicates against listed problems and other sets, and the limits.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "test_support.hpp"
#include "tuner/spec/spec.hpp"

namespace {

using cuop::spec::parse;
using cuop::test::error_of;

const std::string block_row = "candidates: [{family: block_row, params: {vec: 1, block_threads: 32, chunks: 1}}]\n";
const std::string depthwise =
    "candidates: [{family: depthwise, params: {vec: 8, cvecs: 1, block_c: 16, tile_h: 4, tile_w: 8, ph: 1, pw: 2, "
    "algo: smem}}]\n";
const std::string mma =
    "candidates: [{family: mma, params: {block_m: 128, block_n: 128, block_k: 32, warp_m: 64, warp_n: 64, stages: 3, "
    "group_m: 8, split_k: 1}}]\n";

// The sweep `op` with `problems` (YAML list items) and a one-configuration candidate.
std::string sweep(const std::string& op, const std::string& problems, const std::string& extra = "") {
  const std::string& cand = op == "softmax" ? block_row : op == "gemm" ? mma : depthwise;
  return "op: " + op + "\n" + extra + "problems:\n" + problems + cand;
}

std::vector<std::string> keys_of(const std::string& text) {
  const auto s = parse(text, "x.yaml");
  std::vector<std::string> out;
  for (const auto& p : s.problems) out.push_back(p.key(s.op));
  return out;
}

std::string softmax_error(const std::string& problems) {
  return error_of([&] { parse(sweep("softmax", problems), "x.yaml"); });
}

// The fixture (also a fuzzing seed): a listed problem, a grid of 7 x 3 x 2 and a sample of 40,
// each problem located at its entry.
TEST(problem_sets, fixture_expands_in_file_order) {
  const std::string path = std::string(CUOP_TEST_DATA_DIR) + "/spec/valid_problem_sets.yaml";
  const auto s = cuop::spec::load(path);
  ASSERT_EQ(s.problems.size(), 83u);
  EXPECT_EQ(s.problems[0].key(s.op), "softmax_f16_3x5");
  EXPECT_EQ(s.problems[1].key(s.op), "softmax_f16_1024x64");
  EXPECT_EQ(s.problems[1].where.str(), path + ":6:5");
  EXPECT_EQ(s.problems[42].key(s.op), "softmax_bf16_4194304x4097");
  EXPECT_EQ(s.problems[43].key(s.op), "softmax_bf16_6x4097");
  EXPECT_EQ(s.problems[43].where.str(), path + ":7:5");
  EXPECT_EQ(s.problems[82].where.str(), path + ":7:5");
}

TEST(problem_sets, grid_value_forms) {
  EXPECT_EQ(keys_of(sweep("softmax", "  - grid: {rows: 8, cols: [64, 77], dtype: f16}\n")),
            (std::vector<std::string>{"softmax_f16_8x64", "softmax_f16_8x77"}));
  EXPECT_EQ(keys_of(sweep("softmax", "  - grid: {rows: {range: [1, 3]}, cols: 5, dtype: f16}\n")),
            (std::vector<std::string>{"softmax_f16_1x5", "softmax_f16_2x5", "softmax_f16_3x5"}));
  EXPECT_EQ(keys_of(sweep("softmax", "  - grid: {rows: {range: [10, 31, 10]}, cols: 5, dtype: f16}\n")),
            (std::vector<std::string>{"softmax_f16_10x5", "softmax_f16_20x5", "softmax_f16_30x5"}));
  EXPECT_EQ(keys_of(sweep("softmax", "  - grid: {rows: {pow2: [1, 8]}, cols: 5, dtype: f16}\n")),
            (std::vector<std::string>{"softmax_f16_1x5", "softmax_f16_2x5", "softmax_f16_4x5", "softmax_f16_8x5"}));
  EXPECT_EQ(keys_of(sweep("softmax", "  - grid: {rows: {log2: [10, 16, 3]}, cols: 5, dtype: f16}\n")),
            (std::vector<std::string>{"softmax_f16_1024x5", "softmax_f16_8192x5", "softmax_f16_65536x5"}));
  EXPECT_EQ(keys_of(sweep("softmax", "  - grid: {rows: {log2: [0, 2]}, cols: 5, dtype: f16}\n")),
            (std::vector<std::string>{"softmax_f16_1x5", "softmax_f16_2x5", "softmax_f16_4x5"}));
}

// Nested loops over the op's dimensions in its order (not the file's), the last fastest; each
// shape in every dtype in the listed order, as a listed problem with `dtypes` is.
TEST(problem_sets, grid_order_and_dtypes) {
  EXPECT_EQ(
      keys_of(sweep("softmax", "  - grid: {cols: [77, 64], rows: [2, 1], dtypes: [bf16, f16]}\n")),
      (std::vector<std::string>{"softmax_bf16_2x77", "softmax_f16_2x77", "softmax_bf16_2x64", "softmax_f16_2x64",
                                "softmax_bf16_1x77", "softmax_f16_1x77", "softmax_bf16_1x64", "softmax_f16_1x64"}));
  // `dtype` with a list crosses too; no dtype: the top-level dtypes.
  EXPECT_EQ(keys_of(sweep("softmax", "  - grid: {rows: 1, cols: 2, dtype: [f32, f16]}\n")),
            (std::vector<std::string>{"softmax_f32_1x2", "softmax_f16_1x2"}));
  EXPECT_EQ(keys_of(sweep("softmax", "  - grid: {rows: 1, cols: 2}\n", "dtypes: [bf16, f32]\n")),
            (std::vector<std::string>{"softmax_bf16_1x2", "softmax_f32_1x2"}));
}

TEST(problem_sets, gemm_grid) {
  EXPECT_EQ(keys_of(sweep("gemm", "  - grid: {m: [1, 16], n: {pow2: [4096, 8192]}, k: 4096, dtype: bf16}\n")),
            (std::vector<std::string>{"gemm_bf16_1x4096x4096", "gemm_bf16_1x8192x4096", "gemm_bf16_16x4096x4096",
                                      "gemm_bf16_16x8192x4096"}));
}

// Named values (layout) by name, dimensions with a fallback left out.
TEST(problem_sets, conv2d_grid_names_and_fallbacks) {
  EXPECT_EQ(keys_of(sweep("conv2d",
                          "  - grid: {n: 1, h: 14, w: 14, c: 64, k: 64, r: [3, 5], s: 3, groups: 64, layout: [nhwc, "
                          "nchw], dtype: f16}\n")),
            (std::vector<std::string>{"conv2d_f16_nhwc_1x14x14x64_k64_filter3x3_stride1_pad0_dil1_groups64",
                                      "conv2d_f16_nchw_1x14x14x64_k64_filter3x3_stride1_pad0_dil1_groups64",
                                      "conv2d_f16_nhwc_1x14x14x64_k64_filter5x3_stride1_pad0_dil1_groups64",
                                      "conv2d_f16_nchw_1x14x14x64_k64_filter5x3_stride1_pad0_dil1_groups64"}));
}

TEST(problem_sets, grid_where_keeps_the_problems_it_holds_for) {
  EXPECT_EQ(keys_of(sweep("softmax",
                          "  - grid: {rows: [1, 2, 4], cols: [1, 2, 4], dtype: [f32, f16], where: \"rows * cols * "
                          "elem_bytes <= 8\"}\n")),
            (std::vector<std::string>{"softmax_f32_1x1", "softmax_f16_1x1", "softmax_f32_1x2", "softmax_f16_1x2",
                                      "softmax_f16_1x4", "softmax_f32_2x1", "softmax_f16_2x1", "softmax_f16_2x2",
                                      "softmax_f16_4x1"}));
  EXPECT_EQ(softmax_error("  - grid: {rows: [1, 2], cols: 4, dtype: f16, where: \"rows > 2\"}\n"),
            "x.yaml:3:5: where \"rows > 2\" holds for none of the grid's 2 problems");
}

// The exact problems of seed 7: the same on every platform, and a change of the generator or of
// the order of the draws (dimensions in the op's order, then the dtype) fails here. Checked
// against an independent transcription of the algorithm.
TEST(problem_sets, sample_is_pinned_for_a_seed) {
  const std::string text = sweep("softmax",
                                 "  - sample: {count: 8, seed: 7, rows: {log_uniform: [1, 16384]}, cols: {choice: [77, "
                                 "197, 4097]}, dtype: [bf16, f16], where: \"rows * cols <= 2^20\"}\n");
  const std::vector<std::string> expected = {"softmax_bf16_6x4097",  "softmax_f16_118x4097", "softmax_bf16_32x4097",
                                             "softmax_bf16_269x197", "softmax_f16_741x197",  "softmax_bf16_8x77",
                                             "softmax_f16_7206x77",  "softmax_f16_1225x77"};
  EXPECT_EQ(keys_of(text), expected);
  EXPECT_EQ(keys_of(text), expected);  // parsed again: the same
  const auto s = parse(text, "x.yaml");
  for (const auto& p : s.problems) EXPECT_EQ(p.where.str(), "x.yaml:3:5");
  // Another seed, other problems.
  std::string other = text;
  other.replace(other.find("seed: 7"), 7, "seed: 8");
  EXPECT_NE(keys_of(other), expected);
}

// conv2d: a uniform stride, named layouts drawn, fallbacks, and `dtypes` crossing each draw.
TEST(problem_sets, conv2d_sample_is_pinned_for_a_seed) {
  EXPECT_EQ(keys_of(sweep("conv2d",
                          "  - sample: {count: 4, seed: 11, n: 1, h: {choice: [56, 28, 14]}, w: 28, c: {log_uniform: "
                          "[16, 1024]}, k: 64, r: [1, 3], s: 3, stride: {uniform: [1, 2]}, layout: {choice: [nhwc, "
                          "nchw]}, dtypes: [f16, bf16]}\n")),
            (std::vector<std::string>{"conv2d_f16_nhwc_1x28x28x189_k64_filter3x3_stride1_pad0_dil1_groups1",
                                      "conv2d_bf16_nhwc_1x28x28x189_k64_filter3x3_stride1_pad0_dil1_groups1",
                                      "conv2d_f16_nchw_1x56x28x54_k64_filter3x3_stride2_pad0_dil1_groups1",
                                      "conv2d_bf16_nchw_1x56x28x54_k64_filter3x3_stride2_pad0_dil1_groups1",
                                      "conv2d_f16_nhwc_1x56x28x358_k64_filter3x3_stride1_pad0_dil1_groups1",
                                      "conv2d_bf16_nhwc_1x56x28x358_k64_filter3x3_stride1_pad0_dil1_groups1",
                                      "conv2d_f16_nchw_1x14x28x549_k64_filter1x3_stride2_pad0_dil1_groups1",
                                      "conv2d_bf16_nchw_1x14x28x549_k64_filter1x3_stride2_pad0_dil1_groups1"}));
}

// A sample's problems are distinct, within the laws' bounds, and satisfy `where`; duplicates and
// failures are drawn again, so asking for every problem there is gets them all.
TEST(problem_sets, sample_draws_distinct_problems_within_bounds_and_where) {
  const auto s =
      parse(sweep("softmax",
                  "  - sample: {count: 300, seed: 1, rows: {uniform: [1, 40]}, cols: {log_uniform: [2, 100]}, "
                  "dtype: f16, where: \"rows % 2 == 0\"}\n"),
            "x.yaml");
  ASSERT_EQ(s.problems.size(), 300u);
  std::set<std::string> keys;
  for (const auto& p : s.problems) {
    EXPECT_TRUE(keys.insert(p.key("softmax")).second) << p.key("softmax");
    EXPECT_EQ(p.dims.at("rows") % 2, 0);
    EXPECT_GE(p.dims.at("rows"), 1);
    EXPECT_LE(p.dims.at("rows"), 40);
    EXPECT_GE(p.dims.at("cols"), 2);
    EXPECT_LE(p.dims.at("cols"), 100);
  }
  // Every problem of a small space: 2 x 3 of them.
  EXPECT_EQ(
      parse(sweep("softmax", "  - sample: {count: 6, seed: 5, rows: [1, 2], cols: {choice: [3, 4, 5]}, dtype: f16}\n"),
            "x.yaml")
          .problems.size(),
      6u);
  EXPECT_EQ(softmax_error("  - sample: {count: 7, seed: 5, rows: [1, 2], cols: {choice: [3, 4, 5]}, dtype: f16}\n"),
            "x.yaml:3:5: sample found 6 of the 7 problems asked in 700 draws (distinct): widen the ranges, lower "
            "\"count\" or change \"seed\"");
}

// Expanded problems are problems: a set repeating a listed one, or another set, is an error
// naming both places, once per place with a count.
TEST(problem_sets, duplicates_between_sets_and_listed_problems) {
  EXPECT_EQ(softmax_error("  - {rows: 2, cols: 64, dtype: f16}\n"
                          "  - grid: {rows: [1, 2], cols: 64, dtype: f16}\n"),
            "x.yaml:4:5: duplicate problem \"softmax_f16_2x64\" in grid (first at x.yaml:3:5)");
  EXPECT_EQ(softmax_error("  - grid: {rows: [1, 2], cols: 64, dtype: f16}\n"
                          "  - {rows: 2, cols: 64, dtype: f16}\n"),
            "x.yaml:4:5: duplicate problem \"softmax_f16_2x64\" (first at x.yaml:3:5, in grid)");
  EXPECT_EQ(
      softmax_error("  - grid: {rows: {range: [1, 10]}, cols: 64, dtype: f16}\n"
                    "  - grid: {rows: {range: [5, 20]}, cols: 64, dtype: f16}\n"),
      "x.yaml:4:5: duplicate problem \"softmax_f16_5x64\" in grid (first at x.yaml:3:5, in grid), and 5 more from "
      "there");
}

TEST(problem_sets, limits) {
  // One set: 100000 problems at most.
  EXPECT_EQ(
      keys_of(sweep("softmax", "  - grid: {rows: {range: [1, 1000]}, cols: {range: [1, 100]}, dtype: f16}\n")).size(),
      100000u);
  EXPECT_EQ(softmax_error("  - grid: {rows: {range: [1, 1000]}, cols: {range: [1, 100]}, dtype: [f16, bf16]}\n"),
            "x.yaml:3:5: grid has 200000 problems (1000 rows x 100 cols x 2 dtypes), more than the limit of 100000 per "
            "set");
  EXPECT_EQ(softmax_error(
                "  - sample: {count: 60000, seed: 1, rows: {uniform: [1, 1000000]}, cols: 8, dtypes: [f16, bf16]}\n"),
            "x.yaml:3:5: sample has 120000 problems (count 60000 x 2 dtypes), more than the limit of 100000 per set");
  EXPECT_EQ(softmax_error("  - sample: {count: 100001, seed: 1, rows: 1, cols: 8, dtype: f16}\n"),
            "x.yaml:3:21: expected an integer in [1, 100000] for \"count\", got \"100001\"");
  // The file: 100000 problems at most, the sets' included.
  EXPECT_EQ(softmax_error("  - {rows: 1, cols: 1, dtype: f16}\n"
                          "  - grid: {rows: {range: [1, 1000]}, cols: {range: [2, 101]}, dtype: f16}\n"),
            "x.yaml:4:5: grid has 100000 problems: with the 1 before it, more than the limit of 100000 per sweep file");
  // A dimension's bounds: gemm's are ints.
  EXPECT_EQ(
      error_of([] { parse(sweep("gemm", "  - grid: {m: {log2: [0, 31]}, n: 8, k: 8, dtype: f16}\n"), "x.yaml"); }),
      "x.yaml:3:26: expected an integer in [1, 2147483647] for \"log2\" of \"m\", got 2^31 = \"2147483648\"");
  EXPECT_EQ(error_of([] {
              parse(sweep("gemm",
                          "  - sample: {count: 1, seed: 1, m: {uniform: [1, 4294967296]}, n: 8, k: 8, "
                          "dtype: f16}\n"),
                    "x.yaml");
            }),
            "x.yaml:3:50: expected an integer in [1, 2147483647] for \"uniform\" of \"m\", got \"4294967296\"");
  EXPECT_EQ(softmax_error("  - sample: {count: 1, seed: 1, rows: {log_uniform: [0, 8]}, cols: 8, dtype: f16}\n"),
            "x.yaml:3:54: expected a positive integer for \"log_uniform\" of \"rows\", got \"0\"");
  EXPECT_EQ(softmax_error("  - grid: {rows: {range: [1, 200000]}, cols: 8, dtype: f16}\n"),
            "x.yaml:3:26: \"range\" of \"rows\" has 200000 values, more than the limit of 100000");
}

TEST(problem_sets, every_bad_field_of_a_set_is_said) {
  EXPECT_EQ(
      softmax_error("  - sample: {count: 0, rows: {normal: [1, 2]}, cols: [a], dtype: f8, where: \"rowz > 1\"}\n"),
      "x.yaml:3:21: expected a positive integer for \"count\", got \"0\"\n"
      "x.yaml:3:13: missing required key \"seed\" in sample\n"
      "x.yaml:3:31: unknown key \"normal\" in \"rows\" (expected one of: choice, uniform, log_uniform)\n"
      "x.yaml:3:55: expected a positive integer for \"cols\", got \"a\"\n"
      "x.yaml:3:66: unknown dtype \"f8\" (expected one of: f32, f16, bf16)\n"
      "x.yaml:3:77: unknown symbol \"rowz\" in constraint \"rowz > 1\" (did you mean \"rows\"?)\n"
      "x.yaml: 6 errors");
}

}  // namespace
