// strategy: transfer from the command line: its sweep-file keys (validated like every key, at
// file:line:column, the database left as it was), and `cuop-tune replay` on a results file whose
// regret is worked out by hand (tests/data/replay/README.md), on a database, and on bad input.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>

#include "bad_input_support.hpp"

namespace {

using namespace cuop::test::bad_input;

const std::string fixture = data + "/replay/softmax-f32-3x5.json";
const std::string h200_results_db = data + "/store/h200-softmax-results.db";
const std::string usage_tail = "\nRun with --help for more information.\n";

const std::string head = R"yaml(op: softmax
problems:
  - {rows: 8, cols: 32, dtype: f16}
candidates:
  - family: block_row
    params: {vec: 1, block_threads: 32, chunks: 1}
targets: [sm_80]
)yaml";

void expect_usage(const std::string& args, const std::string& message) {
  const auto r = run(args);
  EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
  EXPECT_EQ(r.err, "cuop-tune: error: " + message + usage_tail) << args;
  EXPECT_EQ(r.out, "") << args;
}

nlohmann::json replay_json(const std::string& args) {
  const auto r = run("replay --format json " + args);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  return nlohmann::json::parse(r.out);
}

}  // namespace

TEST(transfer_cli, the_keys_validate_and_the_sweep_accepts_them) {
  temp_dir tmp;
  const auto file = tmp / "sweep.yaml";
  write_file(file, head + "strategy: transfer\nbudget: {fraction: 0.25}\ntransfer_neighbours: 2\ntransfer_seed: 7\n");
  const auto v = run("validate " + file);
  EXPECT_EQ(v.code, 0) << v.err;
  EXPECT_EQ(v.out, file + ": ok (softmax op, 1 problems, 1 candidates, 1 points, 1 trials after constraints)\n");
  const auto s = run("sweep --validate-only --db " + (tmp / "x.db") + " --cache " + (tmp / "cache") + " " + file);
  EXPECT_EQ(s.code, 0) << s.err;
  // A time budget, alone or beside a trial budget.
  for (const std::string budget :
       {"{seconds: 600}", "{fraction: 0.25, seconds: 90.5}", "{trials_per_problem: 3, seconds: 1}"}) {
    write_file(file, head + "strategy: transfer\nbudget: " + budget + "\n");
    const auto t = run("validate " + file);
    EXPECT_EQ(t.code, 0) << budget << ": " << t.err;
  }
}

TEST(transfer_cli, bad_keys_name_their_place) {
  expect_sweep_file_error(head + "strategy: transfer\n",
                          "8:11: strategy \"transfer\" needs a \"budget\": {trials_per_problem: N}, {fraction: F} or "
                          "{seconds: S}");
  expect_sweep_file_error(head + "budget: {fraction: 0.25}\n",
                          "8:1: \"budget\" applies to strategy \"transfer\" only (the file's strategy is "
                          "\"exhaustive\")");
  expect_sweep_file_error(head + "strategy: race\ntransfer_neighbours: 2\n",
                          "9:1: \"transfer_neighbours\" applies to strategy \"transfer\" only (the file's strategy "
                          "is \"race\")");
  expect_sweep_file_error(head + "strategy: transfer\nbudget: {fraction: 1.5}\n",
                          "9:20: expected a number in (0, 1] for \"fraction\", got \"1.5\"");
  expect_sweep_file_error(head + "strategy: transfer\nbudget: {trials_per_problem: 0}\n",
                          "9:30: expected an integer in [1, 1000000] for \"trials_per_problem\", got \"0\"");
  expect_sweep_file_error(head + "strategy: transfer\nbudget: {fraction: 0.5, trials_per_problem: 3}\n",
                          "9:10: \"budget\" gives both \"trials_per_problem\" and \"fraction\": give one");
  expect_sweep_file_error(head + "strategy: transfer\nbudget: {}\n",
                          "9:9: \"budget\" needs \"trials_per_problem\" (trials per problem), \"fraction\" (of "
                          "each problem's candidates) or \"seconds\" (of measuring in all)");
  expect_sweep_file_error(head + "strategy: transfer\nbudget: {seconds: 0}\n",
                          "9:19: expected a number in (0, 604800] for \"seconds\", got \"0\"");
  expect_sweep_file_error(head + "strategy: transfer\nbudget: {fraction: 0.5, seconds: 1e9}\n",
                          "9:34: expected a number in (0, 604800] for \"seconds\", got \"1e9\"");
  expect_sweep_file_error(head + "strategy: transfer\nbudget: {seconds: soon}\n",
                          "9:19: expected a number for \"seconds\", got \"soon\"");
  expect_sweep_file_error(head + "strategy: transfer\nbudget: {fractoin: 0.5}\n",
                          "9:10: unknown key \"fractoin\" in \"budget\" (did you mean \"fraction\"?)");
  expect_sweep_file_error(head + "strategy: transfer\nbudget: 25%\n", "9:9: expected a map in \"budget\", got \"25%\"");
  expect_sweep_file_error(head + "strategy: transfer\nbudget: {fraction: 0.5}\ntransfer_neighbours: 65\n",
                          "10:22: expected an integer in [0, 64] for \"transfer_neighbours\", got \"65\"");
  expect_sweep_file_error(head + "strategy: transfer\nbudget: {fraction: 0.5}\ntransfer_seed: -1\n",
                          "10:16: expected an integer in [0, 18446744073709551615] for \"transfer_seed\", got "
                          "\"-1\"");
  expect_sweep_file_error(head + "strategy: tranfser\nbudget: {fraction: 0.5}\n",
                          "8:11: unknown strategy \"tranfser\" (did you mean \"transfer\"?)");
}

// The fixture's answer, worked out in tests/data/replay/README.md: with 2 trials a problem, the
// choices cost 60%, 0% and 133% (geometric mean 55.1%); with 60% of the candidates the same.
TEST(transfer_cli, replay_gives_the_regret_worked_out_by_hand) {
  const auto out = replay_json(fixture + " --budget 2,60%,100%");
  EXPECT_EQ(out["op"], "softmax");
  EXPECT_EQ(out["problems"], 3);
  EXPECT_EQ(out["exhaustive_trials"], 15);
  ASSERT_EQ(out["budgets"].size(), 3u);
  const auto& two = out["budgets"][0];
  EXPECT_EQ(two["budget"]["trials_per_problem"], 2);
  EXPECT_EQ(two["trials"], 6);
  const auto& rows = two["runs"][0]["problems"];
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0]["problem"], "softmax_f32_1024x4096");
  EXPECT_EQ(rows[0]["chosen"], "softmax_f32_block_row_vec2_threads128_chunks16_persistent0");
  EXPECT_EQ(rows[0]["best"], "softmax_f32_block_row_vec4_threads128_chunks8_persistent0");
  EXPECT_DOUBLE_EQ(rows[0]["regret"].get<double>(), 8.0 / 5 - 1);
  EXPECT_EQ(rows[1]["from_neighbours"], 1);
  EXPECT_DOUBLE_EQ(rows[1]["regret"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(rows[2]["regret"].get<double>(), 7.0 / 3 - 1);
  EXPECT_NEAR(two["geomean_regret_mean"].get<double>(), std::cbrt(1.6 * 7.0 / 3) - 1, 1e-12);
  EXPECT_EQ(out["budgets"][1]["trials"], 9);
  EXPECT_NEAR(out["budgets"][1]["geomean_regret_mean"].get<double>(), std::cbrt(1.6 * 7.0 / 3) - 1, 1e-12);
  EXPECT_EQ(out["budgets"][2]["trials"], 15);
  EXPECT_DOUBLE_EQ(out["budgets"][2]["geomean_regret_mean"].get<double>(), 0);
  // Every other problem known in full, one neighbour: 60%, 100% (p1's winner, 6 against 3) and 133%.
  const auto prior = replay_json(fixture + " --budget 2 --prior exhaustive --neighbours 1");
  const auto& p = prior["budgets"][0]["runs"][0]["problems"];
  EXPECT_DOUBLE_EQ(p[0]["regret"].get<double>(), 8.0 / 5 - 1);
  EXPECT_DOUBLE_EQ(p[1]["regret"].get<double>(), 6.0 / 3 - 1);
  EXPECT_EQ(p[1]["chosen"], "softmax_f32_block_row_vec4_threads128_chunks8_persistent0");
  EXPECT_DOUBLE_EQ(p[2]["regret"].get<double>(), 7.0 / 3 - 1);
  // The table says the same.
  const auto table = run("replay " + fixture + " --budget 2");
  EXPECT_EQ(table.code, 0);
  EXPECT_EQ(table.out,
            "transfer replayed on " + fixture +
                " (softmax on NVIDIA H200): 3 problems, 15 trials exhaustive; 4 neighbours, seed 1, nothing known "
                "before\n\n"
                "budget    trials  of exhaustive  geomean regret  worst regret                  within 5%  best found"
                "  missed\n"
                "2 trials       6          40.0%           55.1%  133.3% softmax_f32_4096x4096        1/3         1/3"
                "       0\n");
}

TEST(transfer_cli, replay_is_reproducible_and_seeds_aggregate) {
  const auto once = run("replay --format json " + h200_results_db + " --op softmax --budget 10%,25% --seed 3");
  ASSERT_EQ(once.code, 0) << once.err;
  EXPECT_EQ(run("replay --format json " + h200_results_db + " --op softmax --budget 10%,25% --seed 3").out, once.out);
  const auto several = replay_json(h200_results_db + " --op softmax --budget 25% --seed 3 --seeds 3");
  EXPECT_EQ(several["seeds"], nlohmann::json::array({3, 4, 5}));
  EXPECT_EQ(several["problems"], 11);
  const auto& b = several["budgets"][0];
  ASSERT_EQ(b["runs"].size(), 3u);
  EXPECT_EQ(b["runs"][0]["seed"], 3);
  const double first = b["runs"][0]["geomean_regret"], second = b["runs"][1]["geomean_regret"],
               third = b["runs"][2]["geomean_regret"];
  EXPECT_NEAR(b["geomean_regret_mean"].get<double>(), (first + second + third) / 3, 1e-12);
  EXPECT_DOUBLE_EQ(b["geomean_regret_min"].get<double>(), std::min({first, second, third}));
  EXPECT_DOUBLE_EQ(b["geomean_regret_max"].get<double>(), std::max({first, second, third}));
  EXPECT_EQ(nlohmann::json::parse(once.out)["budgets"][1]["runs"][0]["geomean_regret"], first);
  // A quarter of the trials, never more than a quarter rounded up per problem.
  EXPECT_LE(b["trials_fraction"].get<double>(), 0.26);
  EXPECT_GE(b["trials_fraction"].get<double>(), 0.25);
}

TEST(transfer_cli, replay_refuses_bad_input) {
  for (const char* bad : {"0", "0%", "101%", "abc", "12x", "1000001", "nan%", "10%,,25%"})
    expect_usage("replay " + fixture + " --budget '" + bad + "'",
                 std::string("--budget: expected a percentage in (0, 100] (\"25%\") or a whole number of trials per "
                             "problem from 1 to 1000000, got \"") +
                     (std::string(bad) == "10%,,25%" ? "" : bad) + "\"");
  expect_usage("replay " + fixture + " --budget 2 --neighbours 65",
               "--neighbours: expected a whole number from 0 to 64, got \"65\"");
  expect_usage("replay " + fixture + " --budget 2 --seeds 0",
               "--seeds: expected a whole number from 1 to 1000, got \"0\"");
  // A database holds several ops: which one is asked.
  const auto no_op = run("replay " + h200_results_db + " --budget 2");
  EXPECT_EQ(no_op.code, 2);
  EXPECT_EQ(no_op.err, "cuop-tune: error: " + h200_results_db + ": a database: name the op to replay with --op\n");
  const auto other_op = run("replay " + h200_results_db + " --budget 2 --op gemm");
  EXPECT_EQ(other_op.code, 1);
  EXPECT_EQ(other_op.err, "cuop-tune: error: " + h200_results_db + ": no timed trial of op \"gemm\"\n");
  const auto file_op = run("replay " + fixture + " --budget 2 --op gemm");
  EXPECT_EQ(file_op.code, 1);
  EXPECT_EQ(file_op.err, "cuop-tune: error: " + fixture + ": a results file of op \"softmax\", not \"gemm\"\n");
  temp_dir tmp;
  write_file(tmp / "x.json", "{\"format\": 1}\n");
  const auto not_results = run("replay " + (tmp / "x.json") + " --budget 2");
  EXPECT_EQ(not_results.code, 1);
  EXPECT_EQ(not_results.out, "");
  EXPECT_NE(not_results.err.find("cuop-tune: error: " + (tmp / "x.json")), std::string::npos) << not_results.err;
}
