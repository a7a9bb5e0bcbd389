// cuop-tune gate without a GPU: usage errors, the no-GPU exit (1, said plainly, quickly, nothing
// measured), and the checks of another build made before anything is measured (its binary, its
// protocol). CUDA_VISIBLE_DEVICES is emptied so that a machine with a GPU gives the same answers.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "cli_support.hpp"

using cuop::test::cli_result;
using cuop::test::run_cli;
using cuop::test::temp_dir;

namespace {

const std::string source = CUOP_SOURCE_DIR;
const std::string suites = source + "/configs/gate/gemm.yaml " + source + "/configs/gate/conv.yaml";
const std::string results = source + "/results";

// The binary with no visible GPU, stdout and stderr together.
const auto run_without_gpu = cuop::test::run_cli_without_gpu;

// A stand-in for another build: a script whose `worker` answers hello with `answer`.
std::string fake_build(const temp_dir& tmp, const std::string& name, const std::string& answer) {
  const auto path = tmp / name;
  std::ofstream(path) << "#!/bin/sh\nread line\necho '" << answer << "'\nread line\nexit 0\n";
  chmod(path.c_str(), 0755);
  return path;
}

bool has(const cli_result& r, const std::string& text) { return r.out.find(text) != std::string::npos; }

}  // namespace

TEST(cli_gate, help_lists_gate_and_its_options) {
  const auto top = run_cli("--help");
  EXPECT_EQ(top.code, 0);
  EXPECT_TRUE(has(top, "gate")) << top.out;
  const auto r = run_cli("gate --help");
  EXPECT_EQ(r.code, 0) << r.out;
  for (const char* option : {"--baseline", "--against", "--retries", "--db", "--keep-db", "--cycles", "--format",
                             "--output", "--per-config", "--allow-different-env"})
    EXPECT_TRUE(has(r, option)) << option << "\n" << r.out;
}

TEST(cli_gate, neither_baseline_nor_against_is_a_usage_error) {
  const auto r = run_without_gpu("gate " + suites);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r, "--baseline PATH or --against OTHER")) << r.out;
}

TEST(cli_gate, usage_errors_exit_2_before_anything_runs) {
  temp_dir tmp;
  const auto self = std::string(CUOP_TUNE_BIN);
  EXPECT_EQ(run_without_gpu("gate").code, 2);  // no suite
  EXPECT_EQ(run_without_gpu("gate /nonexistent/gate.yaml --baseline " + results).code, 2);
  EXPECT_EQ(run_without_gpu("gate " + suites + " --baseline /nonexistent/results").code, 2);
  EXPECT_EQ(run_without_gpu("gate " + suites + " --baseline " + results + " --against " + self).code, 2);
  EXPECT_EQ(run_without_gpu("gate " + suites + " --baseline " + results + " --cycles 2").code, 2);
  EXPECT_EQ(run_without_gpu("gate " + suites + " --against " + self + " --cycles 0").code, 2);
  EXPECT_EQ(run_without_gpu("gate " + suites + " --baseline " + results + " --retries -1").code, 2);
  EXPECT_EQ(run_without_gpu("gate " + suites + " --baseline " + results + " --format yaml").code, 2);
  EXPECT_EQ(run_without_gpu("gate " + suites + " --baseline " + results + " --no-such-option").code, 2);
}

TEST(cli_gate, without_a_gpu_it_says_so_and_exits_1_quickly_measuring_nothing) {
  temp_dir tmp;
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_without_gpu("gate " + suites + " --baseline " + results + " --db " + (tmp / "gate.db"));
  const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(has(r, "cuop-tune: error: no GPU to measure on (")) << r.out;
  EXPECT_TRUE(has(r, "a compile-validation sweep is not a gate")) << r.out;
  EXPECT_FALSE(has(r, "compared")) << r.out;  // no report, no verdict
  EXPECT_LT(seconds, 60) << "the no-GPU answer must not wait on anything";
  EXPECT_FALSE(std::filesystem::exists(tmp / "gate.db"));
}

TEST(cli_gate, a_bad_suite_is_named_before_the_gpu_is_looked_for) {
  temp_dir tmp;
  std::ofstream(tmp / "bad.yaml")
      << "op: softmax\nproblems: [{rows: 8, cols: 32, dtype: f32}]\n"
         "candidates: [{family: block_row, params: {vec: 1, block_threads: 32, chunks: 1}}]\n"
         "measur: {min_samples: 10}\n";
  const auto r = run_without_gpu("gate " + (tmp / "bad.yaml") + " --baseline " + results);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(has(r, "bad.yaml:4:1")) << r.out;
  EXPECT_FALSE(has(r, "no GPU")) << r.out;
}

TEST(cli_gate, against_this_same_build_passes_the_protocol_check_then_finds_no_gpu) {
  const auto r = run_without_gpu("gate " + suites + " --against " + std::string(CUOP_TUNE_BIN));
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_FALSE(has(r, "protocol")) << r.out;
  EXPECT_TRUE(has(r, "no GPU to measure on")) << r.out;
}

TEST(cli_gate, against_a_build_folder_finds_its_binary) {
  // CUOP_TUNE_BIN is BUILD/tuner/cuop-tune: BUILD is a build folder.
  const auto build = std::filesystem::path(CUOP_TUNE_BIN).parent_path().parent_path().string();
  const auto r = run_without_gpu("gate " + suites + " --against " + build);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(has(r, "no GPU to measure on")) << r.out;
}

TEST(cli_gate, against_a_build_from_before_the_protocol_is_refused) {
  temp_dir tmp;
  const auto old = fake_build(tmp, "old-cuop-tune", R"({"present":false,"error":"no GPU","index":0})");
  const auto r = run_without_gpu("gate " + suites + " --against " + old);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(has(r, "speaks no protocol version (a build from before `gate`)")) << r.out;
  EXPECT_TRUE(has(r, "cannot be gated against each other")) << r.out;
}

TEST(cli_gate, against_a_build_of_another_protocol_is_refused) {
  temp_dir tmp;
  const auto newer = fake_build(tmp, "new-cuop-tune", R"({"protocol":999,"present":true,"name":"X"})");
  const auto r = run_without_gpu("gate " + suites + " --against " + newer);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(has(r, "speaks protocol 999, this cuop-tune speaks protocol ")) << r.out;
}

TEST(cli_gate, against_something_that_is_not_a_build_is_an_error_naming_it) {
  temp_dir tmp;
  std::filesystem::create_directories(tmp / "empty-build");
  const auto folder = run_without_gpu("gate " + suites + " --against " + (tmp / "empty-build"));
  EXPECT_EQ(folder.code, 1) << folder.out;
  EXPECT_TRUE(has(folder, "no cuop-tune binary in this folder")) << folder.out;

  const auto silent = fake_build(tmp, "silent", "not json");
  const auto r = run_without_gpu("gate " + suites + " --against " + silent);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(has(r, "its worker did not answer")) << r.out;

  std::ofstream(tmp / "plain.txt") << "x";
  const auto plain = run_without_gpu("gate " + suites + " --against " + (tmp / "plain.txt"));
  EXPECT_EQ(plain.code, 1) << plain.out;
  EXPECT_TRUE(has(plain, "not an executable file")) << plain.out;
}

TEST(cli_gate, an_existing_db_is_refused_and_left_alone) {
  temp_dir tmp;
  std::ofstream(tmp / "old.db") << "not touched";
  const auto r = run_without_gpu("gate " + suites + " --baseline " + results + " --db " + (tmp / "old.db"));
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(has(r, "old.db: already exists; the gate measures into a fresh database")) << r.out;
  std::ifstream in(tmp / "old.db");
  std::string content;
  std::getline(in, content);
  EXPECT_EQ(content, "not touched");
}
