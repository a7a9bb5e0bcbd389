// The bad-input catalogue, sizes (issue 36, item 3; docs/configs.md and docs/cli.md, "Limits"): a
// sweep space or a problem list past its limit is refused when the file is loaded, with its size
// (4 parameters of 4096 values ended in std::bad_alloc; 200000 problems took minutes), and an
// input that is not a regular file (a FIFO, /dev/zero) or is larger than its limit is refused
// before it is read.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <string>

#include "bad_input_support.hpp"

namespace {

using namespace cuop::test::bad_input;

const std::string one_problem = "op: softmax\nproblems:\n  - {rows: 8, cols: 32, dtype: f16}\ncandidates:\n";

// ---------------------------------------------------------------------------------------------
// The space of a sweep file.

TEST(bad_input_limits, four_parameters_of_4096_values) {
  expect_sweep_file_error(one_problem + R"yaml(  - family: block_row
    params: {vec: {range: [0, 4095]}, block_threads: {range: [0, 4095]}, chunks: {range: [0, 4095]}, smem_chunks: {range: [0, 4095]}}
)yaml",
                          "5:5: candidate \"block_row\" has 281474976710656 configurations (4096 x 4096 x 4096 x 4096 "
                          "values), more than the limit of 1000000 per sweep file");
}

// Every candidate under the limit, their sum over it.
TEST(bad_input_limits, candidates_over_the_limit_together) {
  const std::string candidate = R"yaml(  - family: block_row
    params: {vec: {range: [1, 1000]}, block_threads: {range: [1, 600]}, chunks: 1}
)yaml";
  expect_sweep_file_error(one_problem + candidate + candidate,
                          "5:3: the candidates have 1200000 configurations in all, more than the limit of 1000000 per "
                          "sweep file");
}

// Each problem enumerates the whole space, and each of its verdicts is stored.
TEST(bad_input_limits, problems_times_configurations) {
  expect_sweep_file_error(R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtypes: [f16, f32, bf16]}
candidates:
  - family: block_row
    params: {vec: {range: [1, 1000]}, block_threads: {range: [1, 700]}, chunks: 1}
)yaml",
                          "5:3: 3 problems x 700000 configurations = 2100000 to enumerate, more than the limit of "
                          "2000000 per sweep file");
}

// 64 parameters per candidate (a custom kernel takes any identifier as one).
TEST(bad_input_limits, too_many_parameters) {
  std::string params = "{block_threads: 32";
  for (int i = 1; i <= 64; ++i) params += ", p" + std::to_string(i) + ": 1";
  expect_sweep_file_error(
      one_problem + "  - family: custom\n    source: my.cuh\n    kernel: my_ns::k\n    params: " + params + "}\n",
      "8:13: 65 parameters for family \"custom\": more than the limit of 64", {{"my.cuh", "namespace my_ns {}\n"}});
}

// Problems are counted with their dtypes crossed.
TEST(bad_input_limits, too_many_problems) {
  std::string yaml = "op: softmax\ndtypes: [f16, f32]\nproblems:\n";
  for (int i = 1; i <= 50001; ++i) yaml += "  - {rows: " + std::to_string(i) + ", cols: 32}\n";
  yaml += "candidates:\n  - family: block_row\n    params: {vec: 1, block_threads: 32, chunks: 1}\n";
  expect_sweep_file_error(yaml, "4:3: 100002 problems (dtypes crossed), more than the limit of 100000");
}

// 200000 problems: loading is linear (the duplicate check was quadratic, minutes), so the refusal
// comes in seconds.
TEST(bad_input_limits, two_hundred_thousand_problems_are_refused_quickly) {
  temp_dir tmp;
  std::string yaml = "op: softmax\nproblems:\n";
  for (int i = 1; i <= 200000; ++i) yaml += "  - {rows: " + std::to_string(i) + ", cols: 32, dtype: f16}\n";
  yaml += "candidates:\n  - family: block_row\n    params: {vec: 1, block_threads: 32, chunks: 1}\n";
  write_file(tmp / "sweep.yaml", yaml);
  const auto start = std::chrono::steady_clock::now();
  const auto r = run("validate " + (tmp / "sweep.yaml"));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "cuop-tune: error: " + (tmp / "sweep.yaml") +
                       ":3:3: 200000 problems (dtypes crossed), more than "
                       "the limit of 100000\n");
  EXPECT_LT(seconds, 60) << "loading 200000 problems is not linear";
}

// ---------------------------------------------------------------------------------------------
// Files that are not regular, or too large: refused before anything is read (a FIFO without a
// writer used to block forever, /dev/zero to fill the memory).

// A FIFO in `tmp`.
std::string fifo(const temp_dir& tmp, const std::string& name) {
  const auto path = tmp / name;
  EXPECT_EQ(mkfifo(path.c_str(), 0600), 0);
  return path;
}

// A sparse file of `bytes` (no disk used): larger than a limit without writing it.
std::string sparse(const temp_dir& tmp, const std::string& name, std::uintmax_t bytes) {
  const auto path = tmp / name;
  write_file(path, "");
  fs::resize_file(path, bytes);
  return path;
}

// `args` (run under `timeout`, so a blocked read fails the test instead of hanging it) exits 1 with
// exactly `message`, and `db` is not created.
void expect_refused(const std::string& args, const std::string& message, const std::string& db = "") {
  const auto r = run(args, "timeout 30 ");
  EXPECT_EQ(r.code, 1) << args;
  EXPECT_EQ(r.err, "cuop-tune: error: " + message + "\n") << args;
  EXPECT_EQ(r.out, "") << args;
  if (!db.empty()) {
    EXPECT_FALSE(fs::exists(db)) << args;
  }
}

TEST(bad_input_limits, sweep_file_that_is_not_a_regular_file) {
  temp_dir tmp;
  const auto db = tmp / "x.db";
  const auto sweep = "sweep --validate-only --db " + db + " --cache " + (tmp / "cache") + " ";
  const auto f = fifo(tmp, "sweep.yaml");
  expect_refused("validate " + f, f + ": sweep file is a FIFO, not a regular file");
  expect_refused(sweep + f, f + ": sweep file is a FIFO, not a regular file", db);
  expect_refused("validate /dev/zero", "/dev/zero: sweep file is a character device, not a regular file");
  expect_refused(sweep + "/dev/zero", "/dev/zero: sweep file is a character device, not a regular file", db);
  expect_refused("gate /dev/zero --baseline " + source + "/results",
                 "/dev/zero: sweep file is a character device, not a regular file");
}

TEST(bad_input_limits, sweep_file_too_large) {
  temp_dir tmp;
  const auto big = sparse(tmp, "big.yaml", (16u << 20) + 1);
  const auto message = big + ": sweep file is 16777217 bytes, more than the limit of 16777216 (16 MiB)";
  expect_refused("validate " + big, message);
  expect_refused("sweep --validate-only --db " + (tmp / "x.db") + " " + big, message, tmp / "x.db");
}

TEST(bad_input_limits, batch_plan_that_is_not_a_regular_file_or_too_large) {
  temp_dir tmp;
  const auto db = tmp / "x.db";
  const auto sweep =
      "sweep --validate-only --db " + db + " --cache " + (tmp / "cache") + " " + tiny_sweep + " --batch-plan ";
  const auto f = fifo(tmp, "plan.json");
  expect_refused(sweep + f, f + ": batch plan is a FIFO, not a regular file", db);
  expect_refused(sweep + "/dev/zero", "/dev/zero: batch plan is a character device, not a regular file", db);
  const auto big = sparse(tmp, "big.json", (16u << 20) + 1);
  expect_refused(sweep + big, big + ": batch plan is 16777217 bytes, more than the limit of 16777216 (16 MiB)", db);
}

TEST(bad_input_limits, compare_input_that_is_not_a_regular_file_or_too_large) {
  temp_dir tmp;
  // The committed results hold some problems on two GPU models: one is named.
  const auto results = "--gpu nvidia-h200 " + source + "/results";
  const auto f = fifo(tmp, "side.json");
  expect_refused("compare " + f + " " + results, f + ": not a cuop-tune database nor a results file (a FIFO)");
  expect_refused("compare " + results + " /dev/zero",
                 "/dev/zero: not a cuop-tune database nor a results file (a character device)");
  const auto big = sparse(tmp, "big.json", (256u << 20) + 1);
  expect_refused("compare " + results + " " + big,
                 big + ": results file is 268435457 bytes, more than the limit of 268435456 (256 MiB)");
}

// validate of a results file: a FIFO named .json blocked the results reader.
TEST(bad_input_limits, results_file_to_validate_that_is_not_a_regular_file_or_too_large) {
  temp_dir tmp;
  const auto f = fifo(tmp, "nvidia-h200.json");
  expect_refused("validate " + f, f + ": results file is a FIFO, not a regular file");
  const auto big = sparse(tmp, "big.json", (256u << 20) + 1);
  expect_refused("validate " + big,
                 big + ": results file is 268435457 bytes, more than the limit of 268435456 (256 MiB)");
}

}  // namespace
