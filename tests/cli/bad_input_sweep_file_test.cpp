// The bad-input catalogue, sweep files (issue 36, item 3): constraints that are not finite
// anywhere, several YAML documents, values with control characters, every error of a file
// reported, and `validate` and `sweep` agreeing. Each case runs through both commands
// (expect_sweep_file_error: exit 1, the exact message, the database untouched).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>

#include "bad_input_support.hpp"

namespace {

using namespace cuop::test::bad_input;

// A one-problem softmax sweep with `constraint` on its block_row candidate (vec 1 and 2).
std::string with_constraint(const std::string& constraint) {
  return R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: block_row
    params: {vec: [1, 2], block_threads: 32, chunks: 1}
    constraints: [")yaml" +
         constraint + R"yaml("]
)yaml";
}

const std::string at_first_point = " at problem softmax_f16_8x32, block_row(vec=1, block_threads=32, chunks=1)";

// ---------------------------------------------------------------------------------------------
// Constraints: a NaN or an infinity anywhere, constant sub-expressions and functions included, is
// the non-finite error (docs/configs.md, Constraints). Before, functions and constants bypassed
// the watched operators: `sqrt(-1) > 0` rejected every configuration, `log(0) < 0` kept them all.

TEST(bad_input_sweep_file, constraint_sqrt_of_a_negative_constant) {
  expect_sweep_file_error(with_constraint("sqrt(-1) > 0"),
                          "7:19: constraint \"sqrt(-1) > 0\" is not finite (nan)" + at_first_point);
}

TEST(bad_input_sweep_file, constraint_log_of_zero) {
  expect_sweep_file_error(with_constraint("log(0) < 0"),
                          "7:19: constraint \"log(0) < 0\" is not finite (-inf)" + at_first_point);
}

TEST(bad_input_sweep_file, constraint_function_of_a_parameter) {
  expect_sweep_file_error(with_constraint("log2(vec - 1) < 4"),
                          "7:19: constraint \"log2(vec - 1) < 4\" is not finite (-inf)" + at_first_point);
}

// A function that turns an infinity into a finite number (atan) or a comparison inside max().
TEST(bad_input_sweep_file, constraint_infinity_hidden_by_a_function) {
  expect_sweep_file_error(with_constraint("atan(exp(1000)) > 1"),
                          "7:19: constraint \"atan(exp(1000)) > 1\" is not finite (inf)" + at_first_point);
  expect_sweep_file_error(with_constraint("max(1, sqrt(-vec)) > 0"),
                          "7:19: constraint \"max(1, sqrt(-vec)) > 0\" is not finite (nan)" + at_first_point);
}

// A number too large for a double: muparser called it an unexpected token (or an unknown symbol).
TEST(bad_input_sweep_file, constraint_number_too_large) {
  expect_sweep_file_error(
      with_constraint("1e400"),
      "7:19: constraint \"1e400\" is not finite (inf): the number \"1e400\" is too large for a double");
  expect_sweep_file_error(with_constraint("vec < 1e400 ? 1 : 0"),
                          "7:19: constraint \"vec < 1e400 ? 1 : 0\" is not finite (inf): the number \"1e400\" is too "
                          "large for a double");
}

// A condition's untaken branch is still skipped: a guarded division is no error.
TEST(bad_input_sweep_file, a_guarded_division_stays_valid) {
  temp_dir tmp;
  write_file(tmp / "sweep.yaml", with_constraint("vec > 1 ? cols / (vec - 1) >= 4 : 1"));
  const auto r = run("validate " + (tmp / "sweep.yaml"));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            tmp / "sweep.yaml" + ": ok (softmax op, 1 problems, 1 candidates, 2 points, 2 trials after constraints)\n");
}

TEST(bad_input_sweep_file, constraint_with_an_unknown_function) {
  expect_sweep_file_error(
      with_constraint("fmod(vec, 2) == 0"),
      "7:19: constraint \"fmod(vec, 2) == 0\": unknown function \"fmod\" (expected one of: abs, "
      "acos, acosh, asin, asinh, atan, atan2, atanh, avg, cos, cosh, exp, ln, log, log10, log2, max, "
      "min, rint, sign, sin, sinh, sqrt, sum, tan, tanh)");
  expect_sweep_file_error(with_constraint("sqr(vec) > 0"),
                          "7:19: constraint \"sqr(vec) > 0\": unknown function \"sqr\" (did you mean \"sqrt\"?)");
  expect_sweep_file_error(with_constraint("vec(2) > 0"),
                          "7:19: constraint \"vec(2) > 0\": \"vec\" is a value, not a function");
}

// ---------------------------------------------------------------------------------------------
// YAML.

// Several documents: only the first was read, the rest ignored without a word.
TEST(bad_input_sweep_file, several_yaml_documents) {
  expect_sweep_file_error(
      R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: block_row
    params: {vec: 1, block_threads: 32, chunks: 1}
---
op: gemm
)yaml",
      "8:1: a second YAML document starts here (2 in all): a sweep file is one document (no \"---\" "
      "between two)");
}

// An empty document after "---" counts too.
TEST(bad_input_sweep_file, a_trailing_document_marker) {
  expect_sweep_file_error(
      "op: softmax\n---\n",
      "3:1: a second YAML document starts here (2 in all): a sweep file is one document (no \"---\" "
      "between two)");
}

// Nesting past yaml-cpp's depth guard: its own message was "bad file".
TEST(bad_input_sweep_file, nesting_too_deep) {
  expect_sweep_file_error("op: softmax\nproblems: " + std::string(600, '[') + std::string(600, ']') + "\n",
                          "2:1211: lists and maps nested more than 499 deep");
}

// A NUL byte (binary data): yaml-cpp said "unknown escape character" somewhere after it.
TEST(bad_input_sweep_file, a_nul_byte) {
  const char text[] = "op: softmax\nproblems: [{rows: 8\0, cols: 32}]\n";
  expect_sweep_file_error(std::string(text, sizeof text - 1), "2:20: a NUL byte: a sweep file is text");
}

// ---------------------------------------------------------------------------------------------
// Values with control characters are shown escaped: no raw terminal escape reaches the terminal.

TEST(bad_input_sweep_file, escape_sequence_in_a_value) {
  expect_sweep_file_error(
      R"yaml(op: "soft\e[2Jmax"
)yaml",
      "1:5: unknown op \"soft\\x1b[2Jmax\" (expected one of: softmax, gemm, conv2d, layernorm, rmsnorm, groupnorm)");
}

TEST(bad_input_sweep_file, control_characters_in_a_key) {
  expect_sweep_file_error(R"yaml(op: softmax
"col\tour\r": blue
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: block_row
    params: {vec: 1, block_threads: 32, chunks: 1}
)yaml",
                          "2:1: unknown key \"col\\tour\\r\" (expected one of: op, dtypes, problems, candidates, "
                          "constraints, targets, measure, strategy, budget, transfer_neighbours, transfer_seed)");
}

// A bidirectional override (U+202E) could make a name read backwards.
TEST(bad_input_sweep_file, bidirectional_override_in_a_family) {
  expect_sweep_file_error(
      "op: softmax\nproblems:\n  - {rows: 8, cols: 32, dtype: f16}\ncandidates:\n"
      "  - family: \"block\\u202erow\"\n    params: {vec: 1}\n",
      "5:13: unknown family \"block\\u202erow\" for op \"softmax\" (did you mean \"block_row\"?)");
}

TEST(bad_input_sweep_file, control_character_in_a_constraint) {
  expect_sweep_file_error(with_constraint("vec \\e[31m > 1"),
                          "7:19: constraint \"vec \\x1b[31m > 1\": invalid non printable characters found in "
                          "expression/identifer");
}

// Bytes that are not UTF-8 in a value.
TEST(bad_input_sweep_file, invalid_utf8_in_a_value) {
  expect_sweep_file_error(
      "op: softmax\nproblems:\n  - {rows: 8, cols: 32, dtype: \"f1\xff\"}\ncandidates:\n"
      "  - family: block_row\n    params: {vec: 1, block_threads: 32, chunks: 1}\n",
      "3:32: unknown dtype \"f1\\xff\" (did you mean \"f16\"?)");
}

// ---------------------------------------------------------------------------------------------
// Every error of a file, not only the first: one error whose lines are the errors, each as it
// would be alone, then a count line.

TEST(bad_input_sweep_file, every_error_is_reported) {
  expect_sweep_file_error(
      R"yaml(op: softmax
colour: blue
problems:
  - {rows: eight, cols: 32, dtype: f16}
  - {rows: 8, cols: 32, dtype: fp16}
  - {rows: 8, cols: 32, dtype: f16}
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: block_row
    params: {vec: four, block_threads: 32, chunks: 1}
  - family: blockrow
    params: {vec: 1, block_threads: 32, chunks: 1}
  - family: warp_row
    params: {vec: 1, threads_per_row: 32, rows_per_block: 1, chunks: 1}
    constraints: ["vec * <= 16", "vecc > 1"]
constraints: ["warps > 1"]
targets: [sm_80, sm_91]
measure: {min_samples: 0, timeout_s: -1}
strategy: fastest
)yaml",
      "2:1: unknown key \"colour\" (expected one of: op, dtypes, problems, candidates, constraints, "
      "targets, measure, strategy, budget, transfer_neighbours, transfer_seed)\n"
      "$FILE:4:12: expected a positive integer for \"rows\", got \"eight\"\n"
      "$FILE:5:32: unknown dtype \"fp16\" (did you mean \"f16\"?)\n"
      "$FILE:7:5: duplicate problem \"softmax_f16_8x32\" (first at $FILE:6:5)\n"
      "$FILE:10:19: expected an integer for parameter \"vec\", got \"four\"\n"
      "$FILE:11:13: unknown family \"blockrow\" for op \"softmax\" (did you mean "
      "\"block_row\"?)\n"
      "$FILE:17:18: unknown target \"sm_91\" (did you mean \"sm_90\"?)\n"
      "$FILE:18:24: expected an integer in [1, 1000000] for \"min_samples\", got "
      "\"0\"\n"
      "$FILE:18:38: expected a number in (0, 86400) for \"timeout_s\", got \"-1\"\n"
      "$FILE:19:11: unknown strategy \"fastest\" (expected one of: exhaustive, race, transfer)\n"
      "$FILE:16:15: unknown symbol \"warps\" in constraint \"warps > 1\" for family "
      "\"warp_row\" (expected one of: vec, threads_per_row, rows_per_block, chunks, rows, cols, "
      "elem_bytes)\n"
      "$FILE:15:19: constraint \"vec * <= 16\": unexpected token \"<= 16 \" found at "
      "position 6\n"
      "$FILE:15:34: unknown symbol \"vecc\" in constraint \"vecc > 1\" (did you "
      "mean \"vec\"?)\n"
      "$FILE: 13 errors");
}

// A misspelt parameter is one error, not also a missing one; a top-level constraint that no
// candidate can evaluate is said once per family, not once per candidate.
TEST(bad_input_sweep_file, consequences_are_not_errors_of_their_own) {
  expect_sweep_file_error(R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: block_row
    params: {vec: 1, block_thread: 32, chunks: 1}
  - family: block_row
    params: {vec: 2, block_threads: 32, chunks: 1}
  - family: block_row
    params: {vec: 4, block_threads: 32, chunks: 1}
constraints: ["vec * <= 16"]
)yaml",
                          "6:22: unknown parameter \"block_thread\" for family \"block_row\" (did you mean "
                          "\"block_threads\"?)\n"
                          "$FILE:11:15: constraint \"vec * <= 16\": unexpected token \"<= 16 \" found at "
                          "position 6\n"
                          "$FILE: 2 errors");
}

// Past 20 errors the rest are counted.
TEST(bad_input_sweep_file, errors_past_twenty_are_counted) {
  std::string yaml = "op: softmax\nproblems:\n";
  std::string message;
  for (int i = 0; i < 25; ++i) {
    yaml += "  - {rows: x" + std::to_string(i) + ", cols: 32, dtype: f16}\n";
    if (i < 20)
      message += (i ? "$FILE:" : "") + std::to_string(i + 3) +
                 ":12: expected a positive integer for "
                 "\"rows\", got \"x" +
                 std::to_string(i) + "\"\n";
  }
  yaml += "candidates:\n  - family: block_row\n    params: {vec: 1, block_threads: 32, chunks: 1}\n";
  expect_sweep_file_error(yaml, message + "$FILE: 25 errors (the first 20 shown)");
}

// validate checks every file it is given, like a compiler: the good ones say ok, each bad one its
// errors, and the exit code is 1.
TEST(bad_input_sweep_file, validate_checks_every_file) {
  temp_dir tmp;
  write_file(tmp / "bad.yaml", "op: softmaxx\n");
  const auto r = run("validate " + (tmp / "bad.yaml") + " " + tiny_sweep + " " + (tmp / "bad.yaml"));
  EXPECT_EQ(r.code, 1);
  const std::string error = "cuop-tune: error: " + (tmp / "bad.yaml") +
                            ":1:5: unknown op \"softmaxx\" (did you mean "
                            "\"softmax\"?)\n";
  EXPECT_EQ(r.err, error + error);
  EXPECT_EQ(r.out, tiny_sweep + ": ok (softmax op, 1 problems, 1 candidates, 1 points, 1 trials after constraints)\n");
}

// ---------------------------------------------------------------------------------------------
// validate and sweep agree: a range of negative numbers passed validate and failed sweep with
// "unknown parameter \"vec\" of family \"block_row\"" (the library's configurations hold
// non-negative ints). Both now refuse it at its place, and both take the same path for the rest
// (runner::plan_sweep).

TEST(bad_input_sweep_file, range_of_negative_numbers) {
  expect_sweep_file_error(
      R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: block_row
    params: {vec: {range: [-4, -1]}, block_threads: 32, chunks: 1}
)yaml",
      "6:28: expected an integer from 0 to 2147483647 for \"range\" of parameter \"vec\", got \"-4\"");
}

TEST(bad_input_sweep_file, negative_parameter_value) {
  expect_sweep_file_error(R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: block_row
    params: {vec: [1, -2], block_threads: 32, chunks: 1}
)yaml",
                          "6:23: expected an integer from 0 to 2147483647 for parameter \"vec\", got \"-2\"");
}

TEST(bad_input_sweep_file, parameter_value_past_int) {
  expect_sweep_file_error(R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: block_row
    params: {vec: 1, block_threads: {pow2: [32, 4294967296]}, chunks: 1}
)yaml",
                          "6:49: expected an integer from 0 to 2147483647 for \"pow2\" of parameter \"block_threads\", "
                          "got \"4294967296\"");
}

// A range at int64's end is refused for its bound (a custom kernel's parameters are ints), before
// the expansion that used to overflow there.
TEST(bad_input_sweep_file, range_at_the_end_of_int64) {
  expect_sweep_file_error(
      R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: custom
    source: my.cuh
    kernel: my_ns::k
    params: {block_threads: 32, x: {range: [9223372036854775806, 9223372036854775807]}}
)yaml",
      "8:45: expected an integer from -2147483648 to 2147483647 for \"range\" of parameter \"x\", got "
      "\"9223372036854775806\"",
      {{"my.cuh", "namespace my_ns {}\n"}});
}

// The custom kernel's source must be a regular file: a FIFO was reported as missing.
TEST(bad_input_sweep_file, custom_source_that_is_a_fifo) {
  temp_dir tmp;
  ASSERT_EQ(mkfifo((tmp / "my.cuh").c_str(), 0600), 0);
  write_file(tmp / "sweep.yaml", R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - {family: custom, source: my.cuh, kernel: my_ns::k, params: {block_threads: 32}}
)yaml");
  const auto r = run("validate " + (tmp / "sweep.yaml"), "timeout 20 ");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "cuop-tune: error: " + (tmp / "sweep.yaml") +
                       ":5:30: source file \"my.cuh\" is a FIFO, not a regular file\n");
}

}  // namespace
