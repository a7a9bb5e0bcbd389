// The bad-input catalogue, problem sets in sweep files (grids and samples, docs/configs.md
// "Problem sets: grids and samples"): each error through `validate` and `sweep --validate-only`
// (expect_sweep_file_error: exit 1, the exact message, the database untouched), and `validate`'s
// count of problems after expansion.
#include <gtest/gtest.h>

#include <string>

#include "bad_input_support.hpp"

namespace {

using namespace cuop::test::bad_input;

const std::string block_row =
    "candidates:\n  - family: block_row\n    params: {vec: 1, block_threads: 32, chunks: 1}\n";
const std::string mma =
    "candidates:\n  - family: mma\n    params: {block_m: 128, block_n: 128, block_k: 32, warp_m: 64, warp_n: 64, "
    "stages: 3, group_m: 8, split_k: 1}\n";
const std::string depthwise =
    "candidates:\n  - family: depthwise\n    params: {vec: 8, cvecs: 1, block_c: 16, tile_h: 4, tile_w: 8, ph: 1, "
    "pw: 2, algo: smem}\n";

// A sweep of `op` whose problems (from line 3 on) are `problems`.
std::string with_problems(const std::string& op, const std::string& problems) {
  const std::string& cand = op == "softmax" ? block_row : op == "gemm" ? mma : depthwise;
  return "op: " + op + "\nproblems:\n" + problems + cand;
}

std::string softmax(const std::string& problems) { return with_problems("softmax", problems); }

// ---------------------------------------------------------------------------------------------
// validate counts the problems after expansion: 1 listed + 7 x 3 x 2 in the grid + 40 drawn.

TEST(bad_input_problem_sets, validate_counts_expanded_problems) {
  temp_dir tmp;
  write_file(tmp / "sweep.yaml", softmax(R"yaml(  - {rows: 3, cols: 5, dtype: f16}
  - grid: {rows: {log2: [10, 22, 2]}, cols: [64, 77, 4097], dtype: [f16, bf16]}
  - sample: {count: 40, seed: 7, rows: {log_uniform: [1, 16384]}, cols: {choice: [77, 197, 4097]}, dtype: [bf16, f16], where: "rows * cols <= 2^29"}
)yaml"));
  const auto r = run("validate " + (tmp / "sweep.yaml"));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, tmp / "sweep.yaml" +
                       ": ok (softmax op, 83 problems, 1 candidates, 1 points, 83 trials after constraints)\n");
  EXPECT_EQ(r.err, "");
}

// validate --problems: the problems after expansion as JSON lines, a named dimension by its name;
// a bad file is still its errors.
TEST(bad_input_problem_sets, validate_lists_expanded_problems) {
  temp_dir tmp;
  const auto file = tmp / "sweep.yaml";
  write_file(file,
             with_problems("conv2d", R"yaml(  - {n: 2, h: 8, w: 8, c: 16, k: 16, r: 3, s: 3, groups: 16, dtype: f16}
  - grid: {n: 1, h: 8, w: 8, c: 16, k: 16, r: 3, s: 3, groups: 16, layout: [nhwc, nchw], dtype: bf16}
)yaml"));
  const auto r = run("validate --problems " + file);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out,
            "{\"op\":\"conv2d\",\"key\":\"conv2d_f16_nhwc_2x8x8x16_k16_filter3x3_stride1_pad0_dil1_groups16\","
            "\"dtype\":\"f16\",\"n\":2,"
            "\"h\":8,\"w\":8,\"c\":16,\"k\":16,\"r\":3,\"s\":3,\"stride\":1,\"pad\":0,\"dilation\":1,\"groups\":16,"
            "\"tf32\":0,\"layout\":\"nhwc\",\"at\":\"" +
                file +
                ":3:5\"}\n"
                "{\"op\":\"conv2d\",\"key\":\"conv2d_bf16_nhwc_1x8x8x16_k16_filter3x3_stride1_pad0_dil1_groups16\","
                "\"dtype\":\"bf16\",\"n\":1,"
                "\"h\":8,\"w\":8,\"c\":16,\"k\":16,\"r\":3,\"s\":3,\"stride\":1,\"pad\":0,\"dilation\":1,\"groups\":16,"
                "\"tf32\":0,\"layout\":\"nhwc\",\"at\":\"" +
                file +
                ":4:5\"}\n"
                "{\"op\":\"conv2d\",\"key\":\"conv2d_bf16_nchw_1x8x8x16_k16_filter3x3_stride1_pad0_dil1_groups16\","
                "\"dtype\":\"bf16\",\"n\":1,"
                "\"h\":8,\"w\":8,\"c\":16,\"k\":16,\"r\":3,\"s\":3,\"stride\":1,\"pad\":0,\"dilation\":1,\"groups\":16,"
                "\"tf32\":0,\"layout\":\"nchw\",\"at\":\"" +
                file + ":4:5\"}\n");

  write_file(file, softmax("  - grid: {rows: [8, 0], cols: 32, dtype: f16}\n"));
  const auto bad = run("validate --problems " + file);
  EXPECT_EQ(bad.code, 1);
  EXPECT_EQ(bad.out, "");
  EXPECT_EQ(bad.err, "cuop-tune: error: " + file + ":3:22: expected a positive integer for \"rows\", got \"0\"\n");
}

// ---------------------------------------------------------------------------------------------
// The set's own map.

TEST(bad_input_problem_sets, key_next_to_grid) {
  expect_sweep_file_error(softmax("  - {grid: {rows: 8, cols: 32}, dtype: f16}\n"),
                          "3:33: key \"dtype\" next to \"grid\": a problem set is a map with the one key \"grid\" or "
                          "\"sample\"");
}

TEST(bad_input_problem_sets, grid_and_sample_together) {
  expect_sweep_file_error(softmax("  - {grid: {rows: 8, cols: 32, dtype: f16}, sample: {count: 1}}\n"),
                          "3:45: key \"sample\" next to \"grid\": a problem set is a map with the one key \"grid\" or "
                          "\"sample\"");
}

TEST(bad_input_problem_sets, grid_not_a_map) {
  expect_sweep_file_error(softmax("  - grid: [8, 32]\n"), "3:11: expected a map for \"grid\", got a list");
}

TEST(bad_input_problem_sets, misspelt_grid) {
  expect_sweep_file_error(softmax("  - gird: {rows: 8, cols: 32, dtype: f16}\n"),
                          "3:5: unknown key \"gird\" in problem (did you mean \"grid\"?)");
}

TEST(bad_input_problem_sets, unknown_key_in_grid) {
  expect_sweep_file_error(softmax("  - grid: {rows: 8, colls: [32, 64], dtype: f16}\n"),
                          "3:21: unknown key \"colls\" in grid (did you mean \"cols\"?)\n"
                          "$FILE:3:11: missing dimension \"cols\" in grid\n"
                          "$FILE: 2 errors");
}

TEST(bad_input_problem_sets, missing_dimension_in_sample) {
  expect_sweep_file_error(with_problems("gemm", "  - sample: {count: 4, seed: 1, m: [1, 2], k: 64, dtype: bf16}\n"),
                          "3:13: missing dimension \"n\" in sample");
}

// ---------------------------------------------------------------------------------------------
// Grid values: each form, each value within the dimension's rules.

TEST(bad_input_problem_sets, grid_value_below_the_minimum) {
  expect_sweep_file_error(softmax("  - grid: {rows: [8, 0], cols: 32, dtype: f16}\n"),
                          "3:22: expected a positive integer for \"rows\", got \"0\"");
}

TEST(bad_input_problem_sets, grid_value_past_the_maximum) {
  expect_sweep_file_error(with_problems("gemm", "  - grid: {m: 1, n: [64, 4294967296], k: 64, dtype: bf16}\n"),
                          "3:26: expected an integer in [1, 2147483647] for \"n\", got \"4294967296\"");
}

TEST(bad_input_problem_sets, grid_duplicate_value) {
  expect_sweep_file_error(softmax("  - grid: {rows: [8, 16, 8], cols: 32, dtype: f16}\n"),
                          "3:26: duplicate value \"8\" for \"rows\"");
}

TEST(bad_input_problem_sets, grid_range_lo_greater_than_hi) {
  expect_sweep_file_error(softmax("  - grid: {rows: {range: [64, 8]}, cols: 32, dtype: f16}\n"),
                          "3:26: \"range\" of \"rows\" has lo > hi: [64, 8]");
}

TEST(bad_input_problem_sets, grid_range_step_not_positive) {
  expect_sweep_file_error(softmax("  - grid: {rows: {range: [8, 64, 0]}, cols: 32, dtype: f16}\n"),
                          "3:34: expected a positive step for \"range\" of \"rows\", got \"0\"");
}

TEST(bad_input_problem_sets, grid_range_bound_below_the_minimum) {
  expect_sweep_file_error(with_problems("conv2d",
                                        "  - grid: {n: 1, h: 8, w: 8, c: 16, k: 16, r: 3, s: 3, pad: {range: [-1, 2]}, "
                                        "dtype: f16}\n"),
                          "3:70: expected an integer >= 0 for \"range\" of \"pad\", got \"-1\"");
}

TEST(bad_input_problem_sets, grid_range_too_long) {
  expect_sweep_file_error(softmax("  - grid: {rows: {range: [1, 1000000000]}, cols: 32, dtype: f16}\n"),
                          "3:26: \"range\" of \"rows\" has 1000000000 values, more than the limit of 100000");
}

TEST(bad_input_problem_sets, grid_pow2_bound_not_a_power_of_two) {
  expect_sweep_file_error(softmax("  - grid: {rows: {pow2: [8, 96]}, cols: 32, dtype: f16}\n"),
                          "3:29: bound \"96\" of \"pow2\" of \"rows\" is not a power of two");
}

TEST(bad_input_problem_sets, grid_log2_exponent_out_of_range) {
  expect_sweep_file_error(softmax("  - grid: {rows: {log2: [10, 63]}, cols: 32, dtype: f16}\n"),
                          "3:30: expected an integer in [0, 62] for \"log2\" of \"rows\", got \"63\"");
}

// 2^31 is past gemm's int dimensions: said with the power and its value.
TEST(bad_input_problem_sets, grid_log2_power_past_the_maximum) {
  expect_sweep_file_error(
      with_problems("gemm", "  - grid: {m: {log2: [0, 31]}, n: 64, k: 64, dtype: bf16}\n"),
      "3:26: expected an integer in [1, 2147483647] for \"log2\" of \"m\", got 2^31 = \"2147483648\"");
}

TEST(bad_input_problem_sets, grid_two_forms_at_once) {
  expect_sweep_file_error(softmax("  - grid: {rows: {range: [1, 4], pow2: [1, 4]}, cols: 32, dtype: f16}\n"),
                          "3:18: expected exactly one of \"range\", \"pow2\" or \"log2\" for \"rows\", got 2");
}

TEST(bad_input_problem_sets, grid_unknown_layout) {
  expect_sweep_file_error(with_problems("conv2d",
                                        "  - grid: {n: 1, h: 8, w: 8, c: 16, k: 16, r: 3, s: 3, layout: [nhwc, nhcw], "
                                        "dtype: f16}\n"),
                          "3:71: unknown layout \"nhcw\" (did you mean \"nhwc\"?)");
}

TEST(bad_input_problem_sets, grid_unknown_dtype) {
  expect_sweep_file_error(softmax("  - grid: {rows: 8, cols: 32, dtype: [f16, fp16]}\n"),
                          "3:44: unknown dtype \"fp16\" (did you mean \"f16\"?)");
}

TEST(bad_input_problem_sets, grid_with_dtype_and_dtypes) {
  expect_sweep_file_error(softmax("  - grid: {rows: 8, cols: 32, dtype: f16, dtypes: [bf16]}\n"),
                          "3:43: grid has both \"dtype\" and \"dtypes\"");
}

TEST(bad_input_problem_sets, grid_without_a_dtype) {
  expect_sweep_file_error(softmax("  - grid: {rows: 8, cols: 32}\n"),
                          "3:11: grid has no dtype (give \"dtype\" or \"dtypes\", here or at the top level)");
}

TEST(bad_input_problem_sets, grid_where_holds_for_none) {
  expect_sweep_file_error(softmax("  - grid: {rows: [8, 16], cols: 32, dtype: f16, where: \"rows > 16\"}\n"),
                          "3:5: where \"rows > 16\" holds for none of the grid's 2 problems");
}

// ---------------------------------------------------------------------------------------------
// Sample fields.

TEST(bad_input_problem_sets, sample_without_count_or_seed) {
  expect_sweep_file_error(softmax("  - sample: {rows: 8, cols: [32, 64], dtype: f16}\n"),
                          "3:13: missing required key \"count\" in sample\n"
                          "$FILE:3:13: missing required key \"seed\" in sample\n"
                          "$FILE: 2 errors");
}

// The brief spelling `n:`: softmax has no dimension n, and the size of a sample is `count`.
TEST(bad_input_problem_sets, sample_size_spelt_n) {
  expect_sweep_file_error(softmax("  - sample: {n: 4, seed: 1, rows: 8, cols: [32, 64], dtype: f16}\n"),
                          "3:14: unknown key \"n\" in sample (the number of problems is \"count\": other ops have a "
                          "dimension \"n\")");
}

TEST(bad_input_problem_sets, sample_count_past_the_limit) {
  expect_sweep_file_error(softmax("  - sample: {count: 1000000, seed: 1, rows: 8, cols: 32, dtype: f16}\n"),
                          "3:21: expected an integer in [1, 100000] for \"count\", got \"1000000\"");
}

TEST(bad_input_problem_sets, sample_negative_seed) {
  expect_sweep_file_error(softmax("  - sample: {count: 1, seed: -1, rows: 8, cols: 32, dtype: f16}\n"),
                          "3:30: expected an integer >= 0 for \"seed\", got \"-1\"");
}

TEST(bad_input_problem_sets, sample_unknown_law) {
  expect_sweep_file_error(softmax("  - sample: {count: 1, seed: 1, rows: {normal: [8, 2]}, cols: 32, dtype: f16}\n"),
                          "3:40: unknown key \"normal\" in \"rows\" (expected one of: choice, uniform, log_uniform)");
}

TEST(bad_input_problem_sets, sample_uniform_lo_greater_than_hi) {
  expect_sweep_file_error(softmax("  - sample: {count: 1, seed: 1, rows: {uniform: [64, 8]}, cols: 32, dtype: f16}\n"),
                          "3:49: \"uniform\" of \"rows\" has lo > hi: [64, 8]");
}

TEST(bad_input_problem_sets, sample_uniform_with_three_bounds) {
  expect_sweep_file_error(
      softmax("  - sample: {count: 1, seed: 1, rows: {uniform: [1, 8, 2]}, cols: 32, dtype: f16}\n"),
      "3:49: expected [lo, hi] for \"uniform\" of \"rows\", got 3 elements");
}

// A logarithm needs a lower bound of 1 at least, even where the dimension takes 0.
TEST(bad_input_problem_sets, sample_log_uniform_from_zero) {
  expect_sweep_file_error(with_problems("conv2d",
                                        "  - sample: {count: 1, seed: 1, n: 1, h: 8, w: 8, c: 16, k: 16, r: 3, s: 3, "
                                        "pad: {log_uniform: [0, 3]}, dtype: f16}\n"),
                          "3:97: expected a positive integer for \"log_uniform\" of \"pad\", got \"0\"");
}

TEST(bad_input_problem_sets, sample_log_uniform_past_the_maximum) {
  expect_sweep_file_error(
      with_problems("gemm",
                    "  - sample: {count: 1, seed: 1, m: {log_uniform: [1, 3000000000]}, n: 64, k: 64, "
                    "dtype: bf16}\n"),
      "3:54: expected an integer in [1, 2147483647] for \"log_uniform\" of \"m\", got \"3000000000\"");
}

TEST(bad_input_problem_sets, sample_layout_drawn_uniformly) {
  expect_sweep_file_error(with_problems("conv2d",
                                        "  - sample: {count: 1, seed: 1, n: 1, h: 8, w: 8, c: 16, k: 16, r: 3, s: 3, "
                                        "layout: {uniform: [0, 1]}, dtype: f16}\n"),
                          "3:86: unknown key \"uniform\" in \"layout\" (expected one of: choice)");
}

TEST(bad_input_problem_sets, sample_unknown_dtype_in_a_choice) {
  expect_sweep_file_error(softmax("  - sample: {count: 1, seed: 1, rows: 8, cols: 32, dtype: {choice: [bf16, bf8]}}\n"),
                          "3:75: unknown dtype \"bf8\" (expected one of: f32, f16, bf16)");
}

// `where` is a constraint: unknown symbols, syntax and non-finite values are said like one's.
TEST(bad_input_problem_sets, sample_where_unknown_symbol) {
  expect_sweep_file_error(
      softmax("  - sample: {count: 1, seed: 1, rows: 8, cols: 32, dtype: f16, where: \"vec > 1\"}\n"),
      "3:71: unknown symbol \"vec\" in constraint \"vec > 1\" (expected one of: rows, cols, elem_bytes)");
}

TEST(bad_input_problem_sets, sample_where_syntax) {
  expect_sweep_file_error(
      softmax("  - sample: {count: 1, seed: 1, rows: 8, cols: 32, dtype: f16, where: \"rows * <= 4\"}\n"),
      "3:71: constraint \"rows * <= 4\": unexpected token \"<= 4 \" found at position 7");
}

TEST(bad_input_problem_sets, sample_where_not_finite) {
  expect_sweep_file_error(
      softmax("  - sample: {count: 1, seed: 1, rows: 8, cols: 32, dtype: f16, where: \"rows / (cols - 32) "
              "< 1\"}\n"),
      "3:71: constraint \"rows / (cols - 32) < 1\" is not finite (inf) at problem softmax_f16_8x32");
}

// Fewer distinct problems than asked: two rows x two cols, five asked.
TEST(bad_input_problem_sets, sample_cannot_reach_its_count) {
  expect_sweep_file_error(
      softmax("  - sample: {count: 5, seed: 1, rows: [1, 2], cols: [32, 64], dtype: f16, where: \"rows < 3\"}\n"),
      "3:5: sample found 4 of the 5 problems asked in 500 draws (distinct, and where \"rows < 3\" "
      "holds): widen the ranges, loosen \"where\", lower \"count\" or change \"seed\"");
}

// ---------------------------------------------------------------------------------------------
// Limits and duplicates.

TEST(bad_input_problem_sets, grid_past_the_set_limit) {
  expect_sweep_file_error(softmax("  - grid: {rows: {range: [1, 1000]}, cols: {range: [1, 1000]}, dtype: f16}\n"),
                          "3:5: grid has 1000000 problems (1000 rows x 1000 cols x 1 dtype), more than the limit of "
                          "100000 per set");
}

// Each grid within its limit, the file past its own.
TEST(bad_input_problem_sets, sets_past_the_file_limit) {
  expect_sweep_file_error(softmax("  - grid: {rows: {range: [1, 1000]}, cols: {range: [1, 60]}, dtype: f16}\n"
                                  "  - grid: {rows: {range: [1, 1000]}, cols: {range: [61, 120]}, dtype: f16}\n"),
                          "4:5: grid has 60000 problems: with the 60000 before it, more than the limit of 100000 per "
                          "sweep file");
}

TEST(bad_input_problem_sets, sample_repeats_a_listed_problem) {
  expect_sweep_file_error(softmax("  - {rows: 2, cols: 32, dtype: f16}\n"
                                  "  - sample: {count: 2, seed: 1, rows: [1, 2], cols: 32, dtype: f16}\n"),
                          "4:5: duplicate problem \"softmax_f16_2x32\" in sample (first at $FILE:3:5)");
}

TEST(bad_input_problem_sets, listed_problem_repeats_a_grid) {
  expect_sweep_file_error(softmax("  - grid: {rows: [1, 2], cols: 32, dtype: f16}\n"
                                  "  - {rows: 2, cols: 32, dtype: f16}\n"),
                          "4:5: duplicate problem \"softmax_f16_2x32\" (first at $FILE:3:5, in grid)");
}

// One error per place repeated, with a count: not one line per problem.
TEST(bad_input_problem_sets, grids_overlapping) {
  expect_sweep_file_error(
      softmax("  - grid: {rows: {pow2: [1, 1024]}, cols: [32, 64], dtype: f16}\n"
              "  - {rows: 3, cols: 32, dtype: f16}\n"
              "  - grid: {rows: {range: [1, 4]}, cols: [32, 64], dtype: f16}\n"),
      "5:5: duplicate problem \"softmax_f16_1x32\" in grid (first at $FILE:3:5, in grid), and 5 more "
      "from there\n"
      "$FILE:5:5: duplicate problem \"softmax_f16_3x32\" in grid (first at $FILE:4:5)\n"
      "$FILE: 2 errors");
}

// Every bad set in a file is said, with the rest of the file's errors.
TEST(bad_input_problem_sets, every_error_is_reported) {
  expect_sweep_file_error(softmax("  - grid: {rows: {log2: [4, 2]}, cols: 32, dtype: f16}\n"
                                  "  - sample: {count: 3, seed: x, rows: 8, cols: {uniform: [1, 2]}, dtype: f16}\n"
                                  "  - {rows: 8, cols: 0, dtype: f16}\n"),
                          "3:25: \"log2\" of \"rows\" has lo > hi: [4, 2]\n"
                          "$FILE:4:30: expected an integer >= 0 for \"seed\", got \"x\"\n"
                          "$FILE:5:21: expected a positive integer for \"cols\", got \"0\"\n"
                          "$FILE: 3 errors");
}

}  // namespace
