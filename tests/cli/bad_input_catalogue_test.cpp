// A catalogue of bad input, one TEST per case: the exact input, the command, the exact message
// and exit code (docs/cli.md: 0 ok, 1 error, 2 usage, 3 regression), and, where a database or
// results are involved, that nothing already stored was lost or changed.
//
// Cases the tool does not handle as it should are written as it should behave and skipped with
// "known gap: ..." (the observed behaviour is in the skip message).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <string>

#include "bad_input_support.hpp"
#include "cli_support.hpp"
#include "results_database.hpp"
#include "tuner/store/store.hpp"

using namespace cuop::test::bad_input;

// ---------------------------------------------------------------------------------------------
// Sweep files: every case through `validate` and `sweep` (expect_sweep_file_error).

// Malformed YAML (an unclosed flow map) is reported where yaml-cpp stopped, with its message.
TEST(bad_input, yaml_unclosed_flow_map) {
  expect_sweep_file_error(R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16
candidates:
  - family: block_row
    params: {vec: 1, block_threads: 32, chunks: 1}
)yaml",
                          "5:3: illegal block entry");
}

// A flow map closed with the wrong bracket.
TEST(bad_input, yaml_mismatched_bracket) {
  expect_sweep_file_error(R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16]
)yaml",
                          "3:35: illegal flow end");
}

// A top-level key indented by one space.
TEST(bad_input, yaml_bad_indentation) {
  expect_sweep_file_error(R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
 candidates:
  - family: block_row
)yaml",
                          "4:2: end of map not found");
}

// An empty file is not a sweep.
TEST(bad_input, empty_sweep_file) { expect_sweep_file_error("", "1:1: empty sweep file"); }

// A string where a positive integer dimension is expected.
TEST(bad_input, string_where_an_integer_is_expected) {
  expect_sweep_file_error(R"yaml(op: softmax
problems:
  - {rows: eight, cols: 32, dtype: f16}
candidates:
  - family: block_row
    params: {vec: 1, block_threads: 32, chunks: 1}
)yaml",
                          "3:12: expected a positive integer for \"rows\", got \"eight\"");
}

// A string where a parameter value (an integer) is expected.
TEST(bad_input, string_where_a_parameter_value_is_expected) {
  expect_sweep_file_error(R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: block_row
    params: {vec: four, block_threads: 32, chunks: 1}
)yaml",
                          "6:19: expected an integer for parameter \"vec\", got \"four\"");
}

// A list where the parameters map is expected.
TEST(bad_input, list_where_a_map_is_expected) {
  expect_sweep_file_error(R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: block_row
    params: [vec, block_threads, chunks]
)yaml",
                          "6:13: expected a map for family \"block_row\", got a list");
}

// A list where the measure map is expected.
TEST(bad_input, list_where_the_measure_map_is_expected) {
  expect_sweep_file_error(R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: block_row
    params: {vec: 1, block_threads: 32, chunks: 1}
measure: [warmup_ms, 10]
)yaml",
                          "7:10: expected a map in \"measure\", got a list");
}

// A map where the list of problems is expected.
TEST(bad_input, map_where_a_list_is_expected) {
  expect_sweep_file_error(R"yaml(op: softmax
problems: {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: block_row
    params: {vec: 1, block_threads: 32, chunks: 1}
)yaml",
                          "2:11: expected a list for \"problems\", got a map");
}

// A misspelt top-level key gets the closest valid name.
TEST(bad_input, unknown_top_level_key_suggests_the_closest) {
  expect_sweep_file_error(R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: block_row
    params: {vec: 1, block_threads: 32, chunks: 1}
constraint:
  - "vec <= 4"
)yaml",
                          "7:1: unknown key \"constraint\" (did you mean \"constraints\"?)");
}

// A top-level key close to no valid name gets the list of valid names.
TEST(bad_input, unknown_top_level_key_lists_the_valid_ones) {
  expect_sweep_file_error(R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: block_row
    params: {vec: 1, block_threads: 32, chunks: 1}
colour: blue
)yaml",
                          "7:1: unknown key \"colour\" (expected one of: op, dtypes, problems, candidates, "
                          "constraints, targets, measure, strategy, budget, transfer_neighbours, transfer_seed)");
}

// A misspelt key in measure.
TEST(bad_input, unknown_key_in_measure) {
  expect_sweep_file_error(R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: block_row
    params: {vec: 1, block_threads: 32, chunks: 1}
measure: {warmup_ms: 10, min_sample: 5}
)yaml",
                          "7:26: unknown key \"min_sample\" in \"measure\" (did you mean \"min_samples\"?)");
}

// A misspelt key in a candidate.
TEST(bad_input, unknown_key_in_candidate) {
  expect_sweep_file_error(R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: block_row
    params: {vec: 1, block_threads: 32, chunks: 1}
    constraint: ["vec <= 4"]
)yaml",
                          "7:5: unknown key \"constraint\" in candidate (did you mean \"constraints\"?)");
}

// A misspelt dimension in a problem.
TEST(bad_input, unknown_key_in_problem) {
  expect_sweep_file_error(R"yaml(op: softmax
problems:
  - {rows: 8, colls: 32, dtype: f16}
candidates:
  - family: block_row
    params: {vec: 1, block_threads: 32, chunks: 1}
)yaml",
                          "3:15: unknown key \"colls\" in problem (did you mean \"cols\"?)");
}

// A misspelt parameter of a GEMM family.
TEST(bad_input, unknown_parameter) {
  expect_sweep_file_error(R"yaml(op: gemm
problems:
  - {m: 128, n: 128, k: 64, dtype: bf16}
candidates:
  - family: mma
    params: {block_m: 128, block_n: 128, block_k: 32, warp_m: 64, warp_n: 64, stages: 3, group_m: 8, splitk: 1}
)yaml",
                          "6:102: unknown parameter \"splitk\" for family \"mma\" (did you mean \"split_k\"?)");
}

// A key given twice in one map.
TEST(bad_input, duplicate_key) {
  expect_sweep_file_error(R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: block_row
    params: {vec: 1, block_threads: 32, chunks: 1}
op: gemm
)yaml",
                          "7:1: duplicate key \"op\"");
}

// A required key missing.
TEST(bad_input, missing_op) {
  expect_sweep_file_error(R"yaml(problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: block_row
    params: {vec: 1, block_threads: 32, chunks: 1}
)yaml",
                          "1:1: missing required key \"op\"");
}

// An empty list of candidates.
TEST(bad_input, empty_candidates) {
  expect_sweep_file_error(R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates: []
)yaml",
                          "4:13: empty list for \"candidates\"");
}

// An empty list of problems.
TEST(bad_input, empty_problems) {
  expect_sweep_file_error(R"yaml(op: softmax
problems: []
candidates:
  - family: block_row
    params: {vec: 1, block_threads: 32, chunks: 1}
)yaml",
                          "2:11: empty list for \"problems\"");
}

// A dtype listed twice.
TEST(bad_input, duplicate_dtype) {
  expect_sweep_file_error(R"yaml(op: softmax
dtypes: [f16, f32, f16]
problems:
  - {rows: 8, cols: 32}
candidates:
  - family: block_row
    params: {vec: 1, block_threads: 32, chunks: 1}
)yaml",
                          "2:20: duplicate dtype \"f16\"");
}

// A target listed twice.
TEST(bad_input, duplicate_target) {
  expect_sweep_file_error(R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: block_row
    params: {vec: 1, block_threads: 32, chunks: 1}
targets: [sm_80, sm_90a, sm_80]
)yaml",
                          "7:26: duplicate target \"sm_80\"");
}

// Two entries naming the same problem: the message names both places.
TEST(bad_input, duplicate_problem) {
  expect_sweep_file_error(R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
  - {rows: 8, cols: 32, dtypes: [f32, f16]}
candidates:
  - family: block_row
    params: {vec: 1, block_threads: 32, chunks: 1}
)yaml",
                          "4:5: duplicate problem \"softmax_f16_8x32\" (first at $FILE:3:5)");
}

// A range with lo > hi.
TEST(bad_input, range_lo_greater_than_hi) {
  expect_sweep_file_error(R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: block_row
    params: {vec: 1, block_threads: {range: [256, 32]}, chunks: 1}
)yaml",
                          "6:45: \"range\" of parameter \"block_threads\" has lo > hi: [256, 32]");
}

// A range whose step is not positive.
TEST(bad_input, range_step_zero) {
  expect_sweep_file_error(R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: block_row
    params: {vec: 1, block_threads: {range: [32, 256, 0]}, chunks: 1}
)yaml",
                          "6:55: expected a positive step for \"range\" of parameter \"block_threads\", got \"0\"");
}

// A pow2 bound that is not a power of two: the bad bound is the place.
TEST(bad_input, pow2_bound_not_a_power_of_two) {
  expect_sweep_file_error(R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: block_row
    params: {vec: 1, block_threads: {pow2: [32, 384]}, chunks: 1}
)yaml",
                          "6:49: bound \"384\" of \"pow2\" of parameter \"block_threads\" is not a power of two");
}

// A parameter expanding to more than 4096 values.
TEST(bad_input, parameter_with_too_many_values) {
  expect_sweep_file_error(R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: block_row
    params: {vec: 1, block_threads: {range: [1, 100000]}, chunks: 1}
)yaml",
                          "6:37: parameter \"block_threads\" expands to more than 4096 values");
}

// min_samples above max_samples.
TEST(bad_input, min_samples_above_max_samples) {
  expect_sweep_file_error(R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: block_row
    params: {vec: 1, block_threads: 32, chunks: 1}
measure: {min_samples: 50, max_samples: 20}
)yaml",
                          "7:24: min_samples \"50\" is greater than max_samples \"20\"");
}

// A constraint naming a symbol the candidate does not have: the closest one is suggested.
TEST(bad_input, constraint_with_an_unknown_symbol) {
  expect_sweep_file_error(R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: block_row
    params: {vec: 1, block_threads: 32, chunks: 1}
    constraints:
      - "block_thread * vec <= 1024"
)yaml",
                          "8:9: unknown symbol \"block_thread\" in constraint \"block_thread * vec <= 1024\" "
                          "(did you mean \"block_threads\"?)");
}

// A top-level constraint naming a symbol one family lacks: the family and its symbols are named.
TEST(bad_input, top_level_constraint_with_an_unknown_symbol) {
  expect_sweep_file_error(R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: block_row
    params: {vec: 1, block_threads: 32, chunks: 1}
constraints:
  - "warps <= 4"
)yaml",
                          "8:5: unknown symbol \"warps\" in constraint \"warps <= 4\" for family \"block_row\" "
                          "(expected one of: vec, block_threads, chunks, rows, cols, elem_bytes)");
}

// A constraint that does not parse: muparser's message with the place.
TEST(bad_input, constraint_syntax_error) {
  expect_sweep_file_error(R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: block_row
    params: {vec: 1, block_threads: 32, chunks: 1}
    constraints: ["vec * <= 16"]
)yaml",
                          "7:19: constraint \"vec * <= 16\": unexpected token \"<= 16 \" found at position 6");
}

// A division by zero in a constraint is an error naming the constraint, problem and
// configuration, not a silent rejection.
TEST(bad_input, constraint_dividing_by_zero) {
  expect_sweep_file_error(R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: block_row
    params: {vec: [1, 2], block_threads: 32, chunks: 1}
    constraints:
      - "cols / (vec - 1) >= 16"
)yaml",
                          "8:9: constraint \"cols / (vec - 1) >= 16\" is not finite (inf) at problem softmax_f16_8x32, "
                          "block_row(vec=1, block_threads=32, chunks=1)");
}

// Constraints that reject every configuration: sweep refuses before touching the database. The
// message names the file and the problem (docs/configs.md, "The configuration space").
TEST(bad_input, constraints_leaving_an_empty_space_stop_the_sweep) {
  temp_dir tmp;
  const auto file = tmp / "sweep.yaml";
  write_file(file, R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: block_row
    params: {vec: [1, 2], block_threads: 32, chunks: 1}
    constraints:
      - "vec > 4"
)yaml");
  const auto before = snapshot(stored_copy(tmp));
  const auto r = run("sweep --validate-only --db " + before.path + " --cache " + (tmp / "cache") + " " + file);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(r.err, "cuop-tune: error: " + file +
                       ": no configuration satisfies the constraints for problem softmax_f16_8x32\n");
  EXPECT_EQ(r.out, "");
  expect_intact(before);
}

// The same file through `validate`, which "checks the space per problem" (docs/cli.md), fails the
// same way.
TEST(bad_input, constraints_leaving_an_empty_space_fail_validate) {
  temp_dir tmp;
  const auto file = tmp / "sweep.yaml";
  write_file(file, R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: block_row
    params: {vec: [1, 2], block_threads: 32, chunks: 1}
    constraints:
      - "vec > 4"
)yaml");
  const auto r = run("validate " + file);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_EQ(r.err, "cuop-tune: error: " + file +
                       ": no configuration satisfies the constraints for problem softmax_f16_8x32\n");
}

// An unknown op.
TEST(bad_input, unknown_op) {
  expect_sweep_file_error(R"yaml(op: softmaxx
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: block_row
    params: {vec: 1, block_threads: 32, chunks: 1}
)yaml",
                          "1:5: unknown op \"softmaxx\" (did you mean \"softmax\"?)");
}

// An unknown family of the op.
TEST(bad_input, unknown_family) {
  expect_sweep_file_error(R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: blockrow
    params: {vec: 1, block_threads: 32, chunks: 1}
)yaml",
                          "5:13: unknown family \"blockrow\" for op \"softmax\" (did you mean \"block_row\"?)");
}

// An unknown dtype.
TEST(bad_input, unknown_dtype) {
  expect_sweep_file_error(R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: fp16}
candidates:
  - family: block_row
    params: {vec: 1, block_threads: 32, chunks: 1}
)yaml",
                          "3:32: unknown dtype \"fp16\" (did you mean \"f16\"?)");
}

// An architecture the tool does not build for.
TEST(bad_input, unknown_target_architecture) {
  expect_sweep_file_error(R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: block_row
    params: {vec: 1, block_threads: 32, chunks: 1}
targets: [sm_80, sm_91]
)yaml",
                          "7:18: unknown target \"sm_91\" (did you mean \"sm_90\"?)");
}

// A problem whose element count overflows any 64-bit size (2^62 x 2^62) is refused at its place:
// no GPU holds it.
TEST(bad_input, problem_too_large) {
  temp_dir tmp;
  const auto file = tmp / "sweep.yaml";
  write_file(file, R"yaml(op: softmax
problems:
  - {rows: 4611686018427387904, cols: 4611686018427387904, dtype: f32}
candidates:
  - family: block_row
    params: {vec: 1, block_threads: 32, chunks: 1}
)yaml");
  const auto r = run("validate " + file);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_EQ(r.err.rfind("cuop-tune: error: " + file + ":3:5: ", 0), 0u) << r.err;
}

// ---------------------------------------------------------------------------------------------
// family: custom (docs/configs.md, "Custom kernels").

const std::string custom_header = "// defines my_ns::my_softmax\nnamespace my_ns {}\n";

// source on a built-in family.
TEST(bad_input, custom_source_on_a_builtin_family) {
  expect_sweep_file_error(R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: block_row
    source: my_softmax.cuh
    params: {vec: 1, block_threads: 32, chunks: 1}
)yaml",
                          "6:5: \"source\" belongs to family \"custom\" only, not \"block_row\"",
                          {{"my_softmax.cuh", custom_header}});
}

// A custom candidate without kernel.
TEST(bad_input, custom_without_kernel) {
  expect_sweep_file_error(R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: custom
    source: my_softmax.cuh
    params: {block_threads: [64, 128]}
)yaml",
                          "5:5: missing required key \"kernel\" for family \"custom\"",
                          {{"my_softmax.cuh", custom_header}});
}

// A source file that does not exist: the message says where it was looked for (beside the sweep file).
TEST(bad_input, custom_source_file_missing) {
  expect_sweep_file_error(
      R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: custom
    source: missing_softmax.cuh
    kernel: my_ns::my_softmax
    params: {block_threads: [64, 128]}
)yaml",
      "6:13: no such source file \"missing_softmax.cuh\" (looked for \"$DIR/missing_softmax.cuh\")");
}

// kernel naming something that is not a class template.
TEST(bad_input, custom_kernel_not_a_template_name) {
  expect_sweep_file_error(R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: custom
    source: my_softmax.cuh
    kernel: "my_ns::my_softmax<float>"
    params: {block_threads: [64, 128]}
)yaml",
                          "7:13: \"kernel\" must name a class template, e.g. my_ns::my_softmax; got "
                          "\"my_ns::my_softmax<float>\"",
                          {{"my_softmax.cuh", custom_header}});
}

// block_threads is required of a custom kernel.
TEST(bad_input, custom_without_block_threads) {
  expect_sweep_file_error(R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: custom
    source: my_softmax.cuh
    kernel: my_ns::my_softmax
    params: {unroll: [1, 2]}
)yaml",
                          "8:13: missing parameter \"block_threads\" for family \"custom\"",
                          {{"my_softmax.cuh", custom_header}});
}

// A kernel the header does not define fails to compile: stored as compile_error, and since no
// configuration of the family compiles, the sweep fails (exit 1) with the compiler's first
// messages. The compiler's message must not name a line of the header that does not exist:
// "#line makes compile errors name the header's own lines" (docs/configs.md).
TEST(bad_input, custom_kernel_missing_from_its_header) {
  temp_dir tmp;
  write_file(tmp / "my_softmax.cuh", custom_header);
  const auto file = tmp / "sweep.yaml";
  write_file(file, R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: custom
    source: my_softmax.cuh
    kernel: my_ns::my_softmax
    params: {block_threads: [64]}
targets: [sm_90a]
)yaml");
  const auto db = tmp / "t.db";
  const auto r = run("sweep --validate-only --db " + db + " --cache " + (tmp / "cache") + " " + file);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("sm_90a: 0 configurations compile and fit, 1 rejected"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("family custom on sm_90a: none of its 1 configurations compiles; first errors:\n  "
                       "softmax_f16_custom"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("my_softmax"), std::string::npos) << r.err;
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(h, "SELECT status, message FROM builds", -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), "compile_error");
  const std::string message = reinterpret_cast<const char*>(sqlite3_column_text(st, 1));
  sqlite3_finalize(st);
  sqlite3_close(h);
  const std::regex header_line("my_softmax\\.cuh\\((\\d+)\\)");
  for (std::sregex_iterator it(message.begin(), message.end(), header_line), end; it != end; ++it)
    EXPECT_LE(std::stoi((*it)[1]), 2) << message;
}

// ---------------------------------------------------------------------------------------------
// Databases.

// A database written by a newer cuop-tune (PRAGMA user_version above this build's schema) is
// refused by every command that reads one, and not a byte of it changes.
TEST(bad_input, database_from_a_newer_schema) {
  temp_dir tmp;
  const auto db = stored_copy(tmp);
  const int newer = cuop::store::schema_version + 1;
  exec_sql(db, "PRAGMA user_version = " + std::to_string(newer));
  const auto before = snapshot(db, false);
  const std::string expected = "cuop-tune: error: " + db + ": database schema " + std::to_string(newer) +
                               " is newer than this cuop-tune (" + std::to_string(cuop::store::schema_version) +
                               "); use a newer cuop-tune or another --db\n";
  for (const std::string& command :
       {"best --db " + db, "sweep --validate-only --db " + db + " --cache " + (tmp / "cache") + " " + tiny_sweep,
        "export --db " + db + " --out " + (tmp / "results"), "compare " + db + " " + compare_fixtures + "/baseline"}) {
    const auto r = run(command);
    EXPECT_EQ(r.code, 1) << command;
    EXPECT_EQ(r.err, expected) << command;
    EXPECT_EQ(r.out, "") << command;
  }
  EXPECT_FALSE(fs::exists(tmp / "results"));
  expect_intact(before);
}

// A file of garbage given as the database: refused, not overwritten; an export into a results
// folder that already holds results leaves them as they were.
TEST(bad_input, corrupt_database_garbage_bytes) {
  temp_dir tmp;
  const auto good = stored_copy(tmp);
  ASSERT_EQ(run("export --db " + good + " --out " + (tmp / "results")).code, 0);
  const auto exported = read_bytes(tmp / "results/softmax/nvidia-h200.json");
  ASSERT_FALSE(exported.empty());

  const auto db = tmp / "garbage.db";
  std::string garbage;
  for (int i = 0; i < 8192; ++i) garbage += static_cast<char>((i * 7919 + 13) % 251);
  write_file(db, garbage);
  const auto before = snapshot(db, false);
  const std::string expected = "cuop-tune: error: " + db + ": reading the schema version: file is not a database\n";
  for (const std::string& command :
       {"best --db " + db, "sweep --validate-only --db " + db + " --cache " + (tmp / "cache") + " " + tiny_sweep,
        "export --db " + db + " --out " + (tmp / "results")}) {
    const auto r = run(command);
    EXPECT_EQ(r.code, 1) << command;
    EXPECT_EQ(r.err, expected) << command;
  }
  expect_intact(before);
  EXPECT_EQ(read_bytes(tmp / "results/softmax/nvidia-h200.json"), exported);
}

// A database cut short (a partial copy): "malformed", refused, left as it is.
TEST(bad_input, corrupt_database_truncated) {
  temp_dir tmp;
  const auto db = tmp / "truncated.db";
  write_file(db, read_bytes(h200_db).substr(0, 100000));
  const auto before = snapshot(db, false);
  const std::string expected =
      "cuop-tune: error: " + db + ": reading the schema version: database disk image is malformed\n";
  for (const std::string& command :
       {"best --db " + db, "sweep --validate-only --db " + db + " --cache " + (tmp / "cache") + " " + tiny_sweep}) {
    const auto r = run(command);
    EXPECT_EQ(r.code, 1) << command;
    EXPECT_EQ(r.err, expected) << command;
  }
  expect_intact(before);
}

// A results file passed as --db by mistake is not turned into a database.
TEST(bad_input, results_file_given_as_the_database) {
  temp_dir tmp;
  const auto db = tmp / "nvidia-h200.json";
  fs::copy_file(source + "/results/softmax/nvidia-h200.json", db);
  const auto before = snapshot(db, false);
  const auto r = run("sweep --validate-only --db " + db + " --cache " + (tmp / "cache") + " " + tiny_sweep);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "cuop-tune: error: " + db + ": reading the schema version: file is not a database\n");
  expect_intact(before);
}

// Another process holds an exclusive lock (rollback journal): readers and writers wait the busy
// timeout (5 s), then say so; once the lock is gone the database is what it was.
TEST(bad_input, locked_database) {
  temp_dir tmp;
  const auto before = snapshot(stored_copy(tmp));
  const std::string expected = "cuop-tune: error: " + before.path + ": database is locked by another process\n";
  {
    held_lock lock(before.path, "BEGIN EXCLUSIVE");
    const auto best = run("best --db " + before.path);
    EXPECT_EQ(best.code, 1);
    EXPECT_EQ(best.err, expected);
    EXPECT_EQ(best.out, "");
    const auto sweep =
        run("sweep --validate-only --db " + before.path + " --cache " + (tmp / "cache") + " " + tiny_sweep);
    EXPECT_EQ(sweep.code, 1);
    EXPECT_EQ(sweep.err, expected);
  }
  expect_intact(before);
}

// A WAL database (what every sweep leaves) with another writer in a transaction: a sweep is
// refused after the busy timeout, starting no run; readers are not blocked.
TEST(bad_input, database_with_another_writer) {
  temp_dir tmp;
  const auto db = tmp / "wal.db";
  cuop::test::database_from_results(compare_fixtures + "/baseline", db);
  const auto before = snapshot(db);
  {
    held_lock lock(db, "BEGIN IMMEDIATE");
    const auto sweep = run("sweep --validate-only --db " + db + " --cache " + (tmp / "cache") + " " + tiny_sweep);
    EXPECT_EQ(sweep.code, 1);
    EXPECT_NE(sweep.err.find("cuop-tune: error: " + db + ": database is locked by another process\n"),
              std::string::npos)
        << sweep.err;
    const auto exported = run("export --db " + db + " --out " + (tmp / "results"));
    EXPECT_EQ(exported.code, 0) << exported.err;
  }
  expect_intact(before);
}

// A read-only database (0444, in a folder the user cannot write; run as uid 65534 when the tests
// run as root, since root ignores file modes): readers read it, a sweep is refused, nothing changes.
TEST(bad_input, read_only_database) {
  const auto prefix = unprivileged_prefix();
  if (!prefix) GTEST_SKIP() << "cannot run cuop-tune as an unprivileged user here (setpriv)";
  temp_dir tmp;
  fs::permissions(tmp.path, fs::perms(0755));
  const auto before = snapshot(stored_copy(tmp));
  fs::permissions(before.path, fs::perms(0444));
  fs::create_directory(tmp / "out");
  fs::permissions(tmp / "out", fs::perms(0777));

  const auto best = run("best --db " + before.path, *prefix);
  EXPECT_EQ(best.code, 0) << best.err;
  EXPECT_EQ(best.out, before.best);
  const auto exported = run("export --db " + before.path + " --out " + (tmp / "out/results"), *prefix);
  EXPECT_EQ(exported.code, 0) << exported.err;
  const auto sweep =
      run("sweep --validate-only --db " + before.path + " --cache " + (tmp / "out/cache") + " " + tiny_sweep, *prefix);
  EXPECT_EQ(sweep.code, 1);
  EXPECT_EQ(sweep.err, "cuop-tune: error: " + before.path + ": enabling WAL: attempt to write a readonly database\n");
  expect_intact(before);
}

// The same for a WAL database (every database a sweep wrote): `best` should still read it.
TEST(bad_input, read_only_wal_database) {
  GTEST_SKIP() << "known gap: best, export and compare exit 1 with \"DB: reading the schema version: attempt to "
                  "write a readonly database\" for a 0444 WAL database in a folder the user cannot write (SQLite "
                  "cannot create the -shm file); they work when the folder is writable";
  const auto prefix = unprivileged_prefix();
  if (!prefix) GTEST_SKIP() << "cannot run cuop-tune as an unprivileged user here (setpriv)";
  temp_dir tmp;
  fs::permissions(tmp.path, fs::perms(0755));
  const auto db = tmp / "wal.db";
  cuop::test::database_from_results(compare_fixtures + "/baseline", db);
  const auto before = snapshot(db);
  fs::permissions(db, fs::perms(0444));
  const auto best = run("best --db " + db, *prefix);
  EXPECT_EQ(best.code, 0) << best.err;
  EXPECT_EQ(best.out, before.best);
  expect_intact(before);
}

// A database path whose folder is a regular file: it cannot be created.
TEST(bad_input, database_path_under_a_regular_file) {
  temp_dir tmp;
  write_file(tmp / "plain", "plain\n");
  const auto r =
      run("sweep --validate-only --db " + (tmp / "plain/x.db") + " --cache " + (tmp / "cache") + " " + tiny_sweep);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err,
            "cuop-tune: error: " + (tmp / "plain/x.db") + ": cannot open database: unable to open database file\n");
  EXPECT_EQ(read_bytes(tmp / "plain"), "plain\n");
}

// `best` on a database that does not exist: named, and not created.
TEST(bad_input, missing_database) {
  temp_dir tmp;
  const auto r = run("best --db " + (tmp / "absent.db"));
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "cuop-tune: error: " + (tmp / "absent.db") + ": no such database file\n");
  EXPECT_FALSE(fs::exists(tmp / "absent.db"));
}

// ---------------------------------------------------------------------------------------------
// Results folders.

// export --out whose parent is a regular file: exit 1 naming the file it could not write.
TEST(bad_input, export_into_a_folder_that_cannot_be_created) {
  temp_dir tmp;
  const auto before = snapshot(stored_copy(tmp));
  write_file(tmp / "plain", "plain\n");
  const auto r = run("export --db " + before.path + " --out " + (tmp / "plain/results"));
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "cuop-tune: error: " + (tmp / "plain/results/softmax/nvidia-h200.json") +
                       ": cannot write (Not a directory)\n");
  EXPECT_EQ(read_bytes(tmp / "plain"), "plain\n");
  expect_intact(before);
}

// export over a results file that is a folder: the message names it.
TEST(bad_input, export_over_a_folder_in_the_way) {
  temp_dir tmp;
  const auto before = snapshot(stored_copy(tmp));
  const auto target = tmp / "results/softmax/nvidia-h200.json";
  fs::create_directories(target);
  const auto r = run("export --db " + before.path + " --out " + (tmp / "results"));
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err.rfind("cuop-tune: error: " + target + ": ", 0), 0u) << r.err;
  expect_intact(before);
}

// ---------------------------------------------------------------------------------------------
// compare.

// Two different GPUs are refused (exit 1) naming both; --allow-different-env compares with a warning.
TEST(bad_input, compare_of_two_different_gpus) {
  temp_dir tmp;
  const auto db = tmp / "baseline.db";
  cuop::test::database_from_results(compare_fixtures + "/baseline", db);
  const auto before = snapshot(db);
  const auto other = compare_fixtures + "/other-gpu";
  const auto r = run("compare " + db + " " + other);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err,
            "cuop-tune: error: baseline " + db +
                " was measured on NVIDIA H200 (132 SMs, driver 13.0, CUDA 13.0), "
                "candidate " +
                other +
                " on NVIDIA A100-SXM4-80GB (108 SMs, driver 12.8, CUDA 13.0): timings from "
                "different GPUs or environments are not comparable (--allow-different-env compares them anyway)\n");
  EXPECT_EQ(r.out, "");
  const auto allowed = run("compare --allow-different-env " + db + " " + other);
  EXPECT_EQ(allowed.code, 0) << allowed.err;
  EXPECT_NE((allowed.out + allowed.err).find("comparing different environments"), std::string::npos) << allowed.out;
  expect_intact(before);
}

// Two sides with no problem verified on both.
TEST(bad_input, compare_with_nothing_in_common) {
  const auto a = compare_fixtures + "/baseline/softmax/nvidia-h200.json";
  const auto b = compare_fixtures + "/no-samples/gemm/nvidia-h200.json";
  const auto r = run("compare " + a + " " + b);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err,
            "cuop-tune: error: nothing to compare: no problem has verified results in both " + a + " and " + b + "\n");
  EXPECT_EQ(r.out, "");
}

// A side that is neither a database nor a results file.
TEST(bad_input, compare_with_a_file_that_is_not_results) {
  const auto readme = source + "/README.md";
  const auto r = run("compare " + compare_fixtures + "/baseline " + readme);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err.rfind("cuop-tune: error: " + readme + ": not a results file: ", 0), 0u) << r.err;
}

// ---------------------------------------------------------------------------------------------
// gate.

// No GPU: exit 1 at once, a clear message, nothing measured, the baseline database untouched.
TEST(bad_input, gate_without_a_gpu) {
  temp_dir tmp;
  const auto before = snapshot(stored_copy(tmp));
  const auto r = run(
      "gate " + source + "/configs/gate/gemm.yaml --baseline " + before.path + " --db " + (tmp / "gate.db"), no_gpu);
  EXPECT_EQ(r.code, 1) << r.out;
  const std::string head = "cuop-tune: error: no GPU to measure on (";
  const std::string tail =
      "): the gate times its suites on this machine's GPU; a compile-validation sweep is not a gate "
      "(`cuop-tune sweep --validate-only` runs one)\n";
  EXPECT_EQ(r.err.rfind(head, 0), 0u) << r.err;
  ASSERT_GE(r.err.size(), tail.size());
  EXPECT_EQ(r.err.substr(r.err.size() - tail.size()), tail) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(fs::exists(tmp / "gate.db"));
  expect_intact(before);
}

// ---------------------------------------------------------------------------------------------
// emit.

// Emits the committed results into DIR/gen and returns the six generated files' bytes.
std::map<std::string, std::string> emit_committed(const temp_dir& tmp) {
  fs::copy(source + "/results", tmp / "results", fs::copy_options::recursive);
  const auto r = run("emit --quiet --results " + (tmp / "results") + " --out " + (tmp / "gen"));
  EXPECT_EQ(r.code, 0) << r.err;
  std::map<std::string, std::string> files;
  for (const char* op : {"softmax", "gemm", "conv"}) {
    for (const auto& f : {tmp / ("gen/cuop/generated/" + std::string(op) + "_dispatch.hpp"),
                          tmp / ("gen/" + std::string(op) + "_instances.cu")}) {
      files[f] = read_bytes(f);
      EXPECT_FALSE(files[f].empty()) << f;
    }
  }
  return files;
}

void expect_unchanged(const std::map<std::string, std::string>& files) {
  for (const auto& [path, bytes] : files) EXPECT_EQ(read_bytes(path), bytes) << path << " changed";
}

// A corrupt results file: emit fails naming it, and no generated file changes, though without
// the softmax results the softmax header would be a different one.
TEST(bad_input, emit_with_a_corrupt_results_file_keeps_the_old_output) {
  temp_dir tmp;
  const auto generated = emit_committed(tmp);
  fs::remove(tmp / "results/softmax/nvidia-h200.json");
  write_file(tmp / "results/gemm/nvidia-h200.json", "{\"format\": \"cuop-tune results 1\", \"op\": ");
  const auto r = run("emit --results " + (tmp / "results") + " --out " + (tmp / "gen"));
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err.rfind("cuop-tune: error: " + (tmp / "results/gemm/nvidia-h200.json") + ": not a results file: ", 0),
            0u)
      << r.err;
  EXPECT_EQ(r.out, "");
  expect_unchanged(generated);
}

// A results file of a newer format is refused by name, the old output kept.
TEST(bad_input, emit_with_a_results_file_of_a_newer_format) {
  temp_dir tmp;
  const auto generated = emit_committed(tmp);
  const auto file = tmp / "results/softmax/nvidia-h200.json";
  write_file(file, replace_all(read_bytes(file), "\"cuop-tune results 1\"", "\"cuop-tune results 9\""));
  const auto r = run("emit --results " + (tmp / "results") + " --out " + (tmp / "gen"));
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "cuop-tune: error: " + file +
                       ":2: unknown results format \"cuop-tune results 9\" (expected \"cuop-tune results 1\")\n");
  expect_unchanged(generated);
}

// emit --targets sm_91: an unknown architecture is a usage error (exit 2), the closest suggested,
// the old output kept.
TEST(bad_input, emit_for_an_unknown_target) {
  temp_dir tmp;
  const auto generated = emit_committed(tmp);
  const auto r = run("emit --results " + (tmp / "results") + " --out " + (tmp / "gen") + " --targets sm_91");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "cuop-tune: error: --targets: unknown target \"sm_91\" (did you mean \"90\"?)\n"
            "Run with --help for more information.\n");
  EXPECT_EQ(r.out, "");
  expect_unchanged(generated);
}

// An instantiation unit that cannot be written (a folder in its place): the message names it, and
// every path is checked before any file is replaced.
TEST(bad_input, emit_over_a_folder_in_the_way) {
  temp_dir tmp;
  emit_committed(tmp);
  const auto unit = tmp / "gen/softmax_instances.cu";
  fs::remove(unit);
  fs::create_directory(unit);
  const auto header = tmp / "gen/cuop/generated/softmax_dispatch.hpp";
  const auto header_before = read_bytes(header);
  fs::remove(tmp / "results/gemm/nvidia-h200.json");  // a different emit: every file would change
  const auto r = run("emit --results " + (tmp / "results") + " --out " + (tmp / "gen"));
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err.rfind("cuop-tune: error: " + unit + ": ", 0), 0u) << r.err;
  EXPECT_EQ(read_bytes(header), header_before);  // nothing replaced before the refusal
}

// ---------------------------------------------------------------------------------------------
// Command line (CLI11): usage errors exit 2 before anything runs.

// An unknown subcommand is a usage error.
TEST(bad_input, unknown_subcommand_exits_2) {
  const auto r = run("swep " + tiny_sweep);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  const std::string tail = "Run with --help for more information.\n";
  ASSERT_GE(r.err.size(), tail.size()) << r.err;
  EXPECT_EQ(r.err.substr(r.err.size() - tail.size()), tail);
}

// ... and the message should name it and suggest the closest command.
TEST(bad_input, unknown_subcommand_is_named) {
  const auto r = run("swep " + tiny_sweep);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("\"swep\""), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\"sweep\""), std::string::npos) << r.err;
}

// An unknown option.
TEST(bad_input, unknown_option) {
  const auto r = run("best --no-such-option");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "cuop-tune: error: The following argument was not expected: --no-such-option\n"
            "Run with --help for more information.\n");
  EXPECT_EQ(r.out, "");
}

// A value outside an option's choices.
TEST(bad_input, option_value_not_among_the_choices) {
  const auto r = run("best --format yaml --db " + h200_db);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(
      r.err,
      "cuop-tune: error: --format: yaml not in {table,markdown,json,csv}\nRun with --help for more information.\n");
}

// A sweep file that does not exist is a usage error, and the database named is not created.
TEST(bad_input, missing_sweep_file) {
  temp_dir tmp;
  const auto r = run("sweep --validate-only --db " + (tmp / "x.db") + " " + (tmp / "absent.yaml"));
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "cuop-tune: error: files: File does not exist: " + (tmp / "absent.yaml") +
                       "\nRun with --help for more information.\n");
  EXPECT_FALSE(fs::exists(tmp / "x.db"));
}
