// The bad-input catalogue, command-line options (issue 36, item 3): every numeric option of every
// command refuses NaN, infinities, zero and negative counts, and text that is not a plain decimal,
// as a usage error (exit 2) naming the option and the value, before anything is read or run;
// every usage error carries the "cuop-tune: error:" prefix, and values are shown escaped.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "bad_input_support.hpp"

namespace {

using namespace cuop::test::bad_input;

const std::string results = source + "/results";
const std::string usage_tail = "\nRun with --help for more information.\n";

// `args` exits 2 with exactly `message` (after the prefix), nothing on stdout.
void expect_usage(const std::string& args, const std::string& message, const std::string& prefix = "") {
  const auto r = run(args, prefix);
  EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
  EXPECT_EQ(r.err, "cuop-tune: error: " + message + usage_tail) << args;
  EXPECT_EQ(r.out, "") << args;
}

struct bad_value {
  std::string text;   // as typed (shell-quoted where needed)
  std::string shown;  // as the message quotes it
};

const std::vector<bad_value> not_positive_numbers = {
    {"nan", "nan"}, {"NaN", "NaN"},     {"inf", "inf"}, {"-inf", "-inf"}, {"-1", "-1"},    {"0", "0"},
    {"''", ""},     {"1e999", "1e999"}, {"' 3'", " 3"}, {"3x", "3x"},     {"0x10", "0x10"}};

// compare: the thresholds are percentages in (0, 100]. A NaN threshold used to pass CLI::Range and
// turn every row AMBIGUOUS, exit 0, hiding a 1.5x regression.
TEST(bad_input_options, compare_thresholds) {
  const auto sides = " " + compare_fixtures + "/baseline " + compare_fixtures + "/slower";
  for (const char* option : {"--threshold-compute", "--threshold-memory", "--threshold-short"}) {
    for (const auto& v : not_positive_numbers)
      expect_usage(
          std::string("compare ") + option + " " + v.text + sides,
          std::string(option) + ": expected a percentage greater than 0 and at most 100, got \"" + v.shown + "\"");
    expect_usage(std::string("compare ") + option + " 100.5" + sides,
                 std::string(option) + ": expected a percentage greater than 0 and at most 100, got \"100.5\"");
  }
  // The regression the NaN hid is found with a threshold that is a number.
  EXPECT_EQ(run("compare --threshold-memory 3" + sides).code, 3);
  EXPECT_EQ(run("compare --threshold-memory 100" + sides).code, 0);
}

TEST(bad_input_options, compare_microsecond_limits) {
  const auto sides = " --gpu nvidia-h200 " + results + " " + results;  // some problems are on two GPU models
  for (const char* option : {"--short-below-us", "--floor-us"}) {
    for (const auto& v : not_positive_numbers)
      expect_usage(
          std::string("compare ") + option + " " + v.text + sides,
          std::string(option) + ": expected a number greater than 0 and at most 1000000, got \"" + v.shown + "\"");
    expect_usage(std::string("compare ") + option + " 1000001" + sides,
                 std::string(option) + ": expected a number greater than 0 and at most 1000000, got \"1000001\"");
  }
  EXPECT_EQ(run("compare --floor-us 0.5 --short-below-us 1000000" + sides).code, 0);
}

TEST(bad_input_options, compare_resamples_and_seed) {
  const auto sides = " " + compare_fixtures + "/baseline " + compare_fixtures + "/same";
  for (const char* bad : {"nan", "0", "-5000", "99", "1000001", "1e3", "0x100", "5000.5"})
    expect_usage(std::string("compare --resamples ") + bad + sides,
                 std::string("--resamples: expected a whole number from 100 to 1000000, got \"") + bad + "\"");
  for (const char* bad : {"-1", "nan", "1e3", "18446744073709551616", "1.5"})
    expect_usage(std::string("compare --seed ") + bad + sides,
                 std::string("--seed: expected a whole number from 0 to 18446744073709551615, got \"") + bad + "\"");
  // Decimal, whatever the leading zeros (CLI11 alone reads "010" as octal 8).
  const auto r = run("compare --format json --seed 010 --resamples 0100" + sides);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto settings = nlohmann::json::parse(r.out)["settings"];
  EXPECT_EQ(settings["seed"], 10);
  EXPECT_EQ(settings["resamples"], 100);
  EXPECT_EQ(run("compare --seed 0 --resamples 1000000" + sides).code, 0);
  EXPECT_EQ(run("compare --seed 18446744073709551615" + sides).code, 0);
}

// gate: its own counts, and compare's options, refused before it looks for a GPU or the other build.
TEST(bad_input_options, gate_numbers) {
  const auto suite = " " + source + "/configs/gate/softmax.yaml --baseline " + results;
  expect_usage("gate --threshold-compute nan" + suite,
               "--threshold-compute: expected a percentage greater than 0 and at most 100, got \"nan\"", no_gpu);
  expect_usage("gate --floor-us -1" + suite,
               "--floor-us: expected a number greater than 0 and at most 1000000, got \"-1\"", no_gpu);
  for (const char* bad : {"nan", "-1", "11", "2.5"})
    expect_usage(std::string("gate --retries ") + bad + suite,
                 std::string("--retries: expected a whole number from 0 to 10, got \"") + bad + "\"", no_gpu);
  for (const char* bad : {"nan", "0", "-1", "1025", "inf"})
    expect_usage(std::string("gate -j ") + bad + suite,
                 std::string("--jobs: expected a whole number from 1 to 1024, got \"") + bad + "\"", no_gpu);
  for (const char* bad : {"nan", "-1", "1024"})
    expect_usage(std::string("gate --device ") + bad + suite,
                 std::string("--device: expected a whole number from 0 to 1023, got \"") + bad + "\"", no_gpu);
  const auto against = " " + source + "/configs/gate/softmax.yaml --against " + CUOP_TUNE_BIN;
  for (const char* bad : {"nan", "0", "-1", "101"})
    expect_usage(std::string("gate --cycles ") + bad + against,
                 std::string("--cycles: expected a whole number from 1 to 100, got \"") + bad + "\"", no_gpu);
}

// sweep: nothing is parsed, compiled or stored, and the database is not created.
TEST(bad_input_options, sweep_numbers) {
  temp_dir tmp;
  const auto tail = " --validate-only --db " + (tmp / "x.db") + " --cache " + (tmp / "cache") + " " + tiny_sweep;
  for (const char* bad : {"nan", "0", "-1", "-0", "1025", "1e2", "2.0", "''"})
    expect_usage(std::string("sweep -j ") + bad + tail,
                 std::string("--jobs: expected a whole number from 1 to 1024, got \"") +
                     (std::string(bad) == "''" ? "" : bad) + "\"");
  for (const char* bad : {"nan", "-1", "1024", "x"})
    expect_usage(std::string("sweep --device ") + bad + tail,
                 std::string("--device: expected a whole number from 0 to 1023, got \"") + bad + "\"");
  expect_usage("sweep --shard 0/4" + tail, "--shard: \"0/4\": expected K/N with 1 <= K <= N (e.g. 2/4)");
  expect_usage("sweep --shard nan/nan" + tail, "--shard: \"nan/nan\": expected K/N with 1 <= K <= N (e.g. 2/4)");
  expect_usage("sweep --devices 1,1" + tail, "--devices: \"1,1\": device 1 is named twice");
  expect_usage("sweep --only , " + tail,
               "--only: expected comma-separated texts to look for in problem keys, got \",\"");
  EXPECT_FALSE(fs::exists(tmp / "x.db"));
  EXPECT_FALSE(fs::exists(tmp / "cache"));
}

// Paths that are empty: SQLite would open a temporary database for `--db ""` (and say "enabling
// WAL: journal mode is \"delete\""), export and emit would write into the current folder.
TEST(bad_input_options, empty_paths) {
  temp_dir tmp;
  const std::string message = ": expected a path, got \"\"";
  expect_usage("sweep --validate-only --db '' " + tiny_sweep, "--db" + message);
  expect_usage("sweep --validate-only --cache '' --db " + (tmp / "x.db") + " " + tiny_sweep, "--cache" + message);
  expect_usage("best --db ''", "--db" + message);
  expect_usage("export --db " + h200_db + " --out ''", "--out" + message);
  expect_usage("emit --results " + results + " --out ''", "--out" + message);
  expect_usage("emit --results ''", "--results" + message);
  expect_usage("compare --output '' " + results + " " + results, "--output" + message);
  expect_usage("merge --db '' " + h200_db, "--db" + message);
  expect_usage("gate --db '' " + source + "/configs/gate/softmax.yaml --baseline " + results, "--db" + message, no_gpu);
  EXPECT_FALSE(fs::exists(tmp / "x.db"));
}

// emit --targets: a usage error (exit 2, docs/cli.md), checked before the results are read.
TEST(bad_input_options, emit_targets) {
  temp_dir tmp;
  const auto head = "emit --results " + results + " --out " + (tmp / "gen") + " --targets ";
  expect_usage(head + "80,91a", "--targets: unknown target \"91a\" (did you mean \"90a\"?)");
  expect_usage(head + "90,sm_90a",
               "--targets: targets \"90\" and \"sm_90a\" both compile for compute capability 9.0: name one");
  expect_usage(head + "''", "--targets: expected target architectures such as 80,90a,100a, got \"\"");
  expect_usage(head + ",", "--targets: expected target architectures such as 80,90a,100a, got \",\"");
  expect_usage("emit --results /nonexistent --targets sm_91",
               "--targets: unknown target \"sm_91\" (did you mean \"90\"?)");
  EXPECT_FALSE(fs::exists(tmp / "gen"));
  const auto ok = run(head + "90a-real,sm_100a --quiet");
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_EQ(ok.out,
            "cuop-tune emit: CUDA architecture 90a (compute capability 9.0, its own only): the sm_90a table\n"
            "cuop-tune emit: CUDA architecture 100a (compute capability 10.0, its own only): the sm_100a table\n");
}

// The internal worker's --device too.
TEST(bad_input_options, worker_device) {
  expect_usage("worker --device nan", "--device: expected a whole number from 0 to 1023, got \"nan\"");
}

// CLI11's own errors carry the prefix; a value with a terminal escape in it is shown escaped.
TEST(bad_input_options, cli11_errors_have_the_prefix_and_escape_values) {
  // (printf: the shell popen runs is sh, without $'...')
  expect_usage("best --format \"$(printf '\\033[31mred')\"", "--format: \\x1b[31mred not in {table,markdown,json,csv}");
  expect_usage("best --op \"$(printf 'soft\\rmax')\"",
               "--op: soft\\rmax not in {softmax,gemm,conv2d,layernorm,rmsnorm,groupnorm}");
  expect_usage("best --db " + h200_db + " extra", "The following argument was not expected: extra");
  expect_usage("validate", "files is required");
  expect_usage("\"$(printf 'swe\\033ep')\"", "unknown command \"swe\\x1bep\" (did you mean \"sweep\"?)");
  expect_usage("\"$(printf '\\033[2J')\"",
               "unknown command \"\\x1b[2J\" (expected one of: validate, sweep, best, baselines, export, "
               "emit, add-targets, compare, gate, merge, replay, sources, worker)");
  expect_usage("\"$(printf 'sweep\\342\\200\\256')\"",
               "unknown command \"sweep\\u202e\" (expected one of: validate, sweep, "
               "best, baselines, export, emit, add-targets, compare, gate, merge, replay, sources, worker)");
  const auto none = run("");
  EXPECT_EQ(none.code, 2);
  EXPECT_EQ(none.err, "cuop-tune: error: A subcommand is required" + usage_tail);
}

// gate's usage errors raised after parsing (neither --baseline nor --against) exit 2 with the
// prefix too.
TEST(bad_input_options, gate_without_a_reference) {
  const auto r = run("gate " + source + "/configs/gate/softmax.yaml", no_gpu);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "cuop-tune: error: gate needs --baseline PATH or --against OTHER (one of the two)\n");
}

}  // namespace
