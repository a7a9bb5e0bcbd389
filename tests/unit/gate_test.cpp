// `cuop-tune gate`'s logic without a GPU: the A B B A round order, pooling a build's rounds, which
// rows a retry measures again, how its samples join the old ones, the retry counts, and the
// gate's additions to compare's report formats.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numeric>

#include "test_support.hpp"
#include "tuner/core/files.hpp"
#include "tuner/gate/abba.hpp"
#include "tuner/gate/gate_run.hpp"
#include "tuner/gate/retry.hpp"
#include "tuner/gate/suite_run.hpp"
#include "tuner/report/compare_report.hpp"
#include "tuner/spec/spec.hpp"

namespace {

using namespace cuop;
using gate::build;
using measure::verdict;

gate::measured_trial measured(const std::string& problem, const std::string& instance, std::vector<double> samples,
                              int env = 0) {
  gate::measured_trial t;
  t.problem = problem;
  t.op = "softmax";
  t.dtype = "f32";
  t.instance = instance;
  std::vector<double> sorted = samples;
  std::ranges::sort(sorted);
  t.median_us = sorted.empty() ? 0 : sorted[sorted.size() / 2];
  t.ci_lo_us = t.median_us * 0.99;
  t.ci_hi_us = t.median_us * 1.01;
  t.sample_count = static_cast<int>(samples.size());
  t.samples_us = std::move(samples);
  t.env = env;
  return t;
}

gate::result_set set(const std::string& source, std::vector<gate::measured_trial> trials,
                     const std::string& rev = "rev") {
  gate::result_set s;
  s.source = source;
  s.kind = "database";
  s.envs.push_back({"NVIDIA H200", 132, "580.95", "13.0", "", "key-" + rev, "hash-" + rev, rev});
  s.trials = std::move(trials);
  return s;
}

std::vector<double> around(double us, int n = 21, double step = 0.01) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) {
    const int from_middle = i - n / 2;
    v.push_back(us + from_middle * step);
  }
  return v;
}

gate::comparison_row row(const std::string& problem, const std::string& instance, bool winner, verdict v) {
  gate::comparison_row r;
  r.problem = problem;
  r.winner = winner;
  r.baseline.instance = instance;
  r.candidate.instance = instance;
  r.verdict = v;
  return r;
}

}  // namespace

// ---- A B B A --------------------------------------------------------------------------------

TEST(gate_abba, one_cycle_is_a_b_b_a) {
  EXPECT_EQ(gate::abba_schedule(1), (std::vector<build>{build::a, build::b, build::b, build::a}));
  EXPECT_EQ(gate::describe_schedule(gate::abba_schedule(1)), "A B B A");
  EXPECT_EQ(gate::describe_schedule(gate::abba_schedule(2)), "A B B A A B B A");
}

TEST(gate_abba, each_build_has_as_many_rounds_and_the_same_mean_round) {
  // A drift linear in time adds (mean round x slope) to a build's pooled samples: the same for both.
  for (int cycles = 1; cycles <= 5; ++cycles) {
    const auto s = gate::abba_schedule(cycles);
    const auto a = gate::rounds_of(s, build::a), b = gate::rounds_of(s, build::b);
    ASSERT_EQ(s.size(), 4u * cycles);
    EXPECT_EQ(a.size(), b.size());
    EXPECT_EQ(std::accumulate(a.begin(), a.end(), 0), std::accumulate(b.begin(), b.end(), 0)) << cycles;
    EXPECT_EQ(s.front(), build::a);  // this build first and last
    EXPECT_EQ(s.back(), build::a);
  }
  EXPECT_EQ(gate::rounds_of(gate::abba_schedule(1), build::a), (std::vector<int>{1, 4}));
  EXPECT_EQ(gate::rounds_of(gate::abba_schedule(1), build::b), (std::vector<int>{2, 3}));
}

TEST(gate_abba, fewer_than_one_cycle_is_a_usage_error) {
  EXPECT_THROW(gate::abba_schedule(0), usage_error);
  EXPECT_THROW(gate::abba_schedule(-1), usage_error);
}

TEST(gate_abba, rounds_pool_their_samples_per_configuration) {
  const auto r1 = set(
      "round 1", {measured("p1", "x", {10, 10, 10}), measured("p1", "y", {20, 21, 22}), measured("p2", "x", {5, 5})});
  const auto r4 = set("round 4", {measured("p1", "x", {12, 12, 12}), measured("p1", "y", {23, 24, 25})});
  const auto pooled = gate::pool_rounds({&r1, &r4}, "this build (rounds 1, 4)");
  EXPECT_EQ(pooled.set.source, "this build (rounds 1, 4)");
  ASSERT_EQ(pooled.set.trials.size(), 2u);  // p2 x was verified in round 1 only
  const auto& x = pooled.set.trials[0];
  EXPECT_EQ(x.instance, "x");
  EXPECT_EQ(x.sample_count, 6);
  EXPECT_EQ(x.samples_us.size(), 6u);
  EXPECT_DOUBLE_EQ(x.median_us, 11.0);  // between the rounds: the drift is averaged in
  EXPECT_LE(x.ci_lo_us, x.median_us);
  EXPECT_GE(x.ci_hi_us, x.median_us);
  ASSERT_EQ(pooled.dropped.size(), 1u);
  EXPECT_NE(pooled.dropped[0].find("p2 x: verified in 1 of 2 rounds"), std::string::npos) << pooled.dropped[0];
  EXPECT_EQ(pooled.set.envs.size(), 1u);  // the same environment once
}

TEST(gate_abba, rounds_timed_with_different_launches_are_never_pooled) {
  auto batched = measured("p1", "x", {10, 10, 10});
  batched.batch = 241;
  const auto r1 = set("round 1", {measured("p1", "x", {12, 12, 12}), measured("p1", "y", {20, 21})});
  const auto r4 = set("round 4", {batched, measured("p1", "y", {20, 22})});
  const auto pooled = gate::pool_rounds({&r1, &r4}, "this build");
  ASSERT_EQ(pooled.set.trials.size(), 1u);
  EXPECT_EQ(pooled.set.trials[0].instance, "y");
  ASSERT_EQ(pooled.dropped.size(), 1u);
  EXPECT_NE(pooled.dropped[0].find("p1 x: timed in batches of different launches across rounds (1, 241)"),
            std::string::npos)
      << pooled.dropped[0];
}

TEST(gate_abba, what_one_builds_pool_left_out_the_other_loses_too) {
  auto single = measured("p1", "x", {10, 10, 10});
  auto batched = measured("p1", "x", {9, 9, 9});
  batched.batch = 11;
  // A: x timed single in round 1 and batched in round 4 (the plan): left out. B: x in both.
  const auto a1 = set("a1", {single, measured("p1", "y", {12, 12})});
  const auto a4 = set("a4", {batched, measured("p1", "y", {12, 12})});
  const auto b2 = set("b2", {batched, measured("p1", "y", {12, 12})});
  const auto b3 = set("b3", {batched, measured("p1", "y", {12, 12})});
  auto a = gate::pool_rounds({&a1, &a4}, "A");
  auto b = gate::pool_rounds({&b2, &b3}, "B");
  ASSERT_EQ(b.set.trials.size(), 2u);
  EXPECT_EQ(gate::drop_each_others_left_out(a, b), 1);
  ASSERT_EQ(b.set.trials.size(), 1u);  // B's x would otherwise win against A's y
  EXPECT_EQ(b.set.trials[0].instance, "y");
  EXPECT_EQ(a.set.trials.size(), 1u);
}

TEST(gate_abba, the_winners_launches_are_the_plan_for_the_next_runs) {
  auto fast = measured("p1", "x", {10, 10, 10});
  fast.batch = 241;
  auto slow_single = measured("p1", "y", {30, 30, 30});  // single launches: not the winner's way
  const auto s = set("baseline", {fast, slow_single, measured("p2", "z", {50, 50})});
  EXPECT_EQ(gate::winner_launches(s), (std::map<std::string, int>{{"p1", 241}, {"p2", 1}}));
  // The plan: each configuration as it was timed, the others as the winner.
  const auto plan = gate::timing_plan(s);
  EXPECT_EQ(runner::planned_launches(plan, "p1", "x"), 241);
  EXPECT_EQ(runner::planned_launches(plan, "p1", "y"), 1);
  EXPECT_EQ(runner::planned_launches(plan, "p1", "new"), 241);
  EXPECT_EQ(runner::planned_launches(plan, "p2", "z"), 1);
}

TEST(gate_abba, a_round_without_raw_samples_is_left_out_and_nothing_left_is_an_error) {
  const auto r1 = set("round 1", {measured("p1", "x", {10, 11})});
  const auto r4 = set("round 4", {measured("p1", "x", {})});
  const auto message = test::error_of([&] { gate::pool_rounds({&r1, &r4}, "this build"); });
  EXPECT_NE(message.find("no configuration was verified in all 2 of its rounds"), std::string::npos) << message;
  EXPECT_THROW(gate::pool_rounds({}, "x"), error);
}

// ---- retries --------------------------------------------------------------------------------

TEST(gate_retry, only_ambiguous_rows_are_measured_again) {
  gate::comparison c;
  c.rows = {row("p1", "x", true, verdict::same),       row("p2", "y", true, verdict::ambiguous),
            row("p2", "y", false, verdict::ambiguous), row("p2", "z", false, verdict::same),
            row("p3", "w", false, verdict::ambiguous), row("p4", "v", true, verdict::slower)};
  const auto targets = gate::select_retries(c);
  const std::vector<gate::retry_target> expected{{"p2", ""}, {"p2", "y"}, {"p3", "w"}};
  EXPECT_EQ(targets, expected);
  EXPECT_EQ(gate::retry_problems(targets), (std::vector<std::string>{"p2", "p3"}));
  gate::comparison none;
  none.rows = {row("p1", "x", true, verdict::same), row("p4", "v", true, verdict::slower)};
  EXPECT_TRUE(gate::select_retries(none).empty());  // a SLOWER verdict is decided, not retried
}

TEST(gate_retry, a_winner_target_pools_every_new_trial_of_its_problem) {
  const auto old = set("this build", {measured("p1", "x", around(10)), measured("p1", "y", around(11)),
                                      measured("p1", "z", around(12)), measured("p2", "x", around(20))});
  // The retry verified x and y again (z failed this time) and ran p2 too (an --only overlap).
  const auto fresh = set("retry",
                         {measured("p1", "x", around(10.5, 41)), measured("p1", "y", around(9.5, 41)),
                          measured("p2", "x", around(30, 41))},
                         "rev2");
  auto fresh_w = fresh;
  fresh_w.trials.push_back(measured("p1", "w", around(13, 41)));  // new in the retry
  const auto merged = gate::pool_retry(old, fresh_w, {{"p1", ""}});
  EXPECT_EQ(merged.source, "this build");
  ASSERT_EQ(merged.trials.size(), 5u);
  EXPECT_EQ(merged.trials[0].instance, "w");
  EXPECT_EQ(merged.trials[0].sample_count, 41);  // p1 w: only the retry's
  EXPECT_EQ(merged.trials[1].sample_count, 62);  // p1 x: 21 + 41 pooled
  EXPECT_EQ(merged.trials[1].samples_us.size(), 62u);
  EXPECT_EQ(merged.trials[2].sample_count, 62);  // p1 y
  EXPECT_EQ(merged.trials[3].sample_count, 21);  // p1 z: not verified again, kept
  EXPECT_EQ(merged.trials[4].sample_count, 21);  // p2: not a target, kept
  EXPECT_DOUBLE_EQ(merged.trials[4].median_us, 20.0);
  // The pooled median lies between the passes' (10 and 10.5, the retry's samples the more).
  EXPECT_GT(merged.trials[1].median_us, 10.0);
  EXPECT_LE(merged.trials[1].median_us, 10.5);
  EXPECT_LT(merged.trials[1].ci_lo_us, merged.trials[1].median_us);
  // A pooled trial keeps the first pass's environment; a new one brings its own, added once.
  ASSERT_EQ(merged.envs.size(), 2u);
  EXPECT_EQ(merged.trials[1].env, 0);
  EXPECT_EQ(merged.trials[0].env, 1);
  EXPECT_EQ(merged.envs[1].git_rev, "rev2");
}

TEST(gate_retry, a_configuration_target_pools_only_its_own_trial) {
  const auto old = set("c", {measured("p1", "x", around(10)), measured("p1", "y", around(11))});
  const auto fresh = set("r", {measured("p1", "x", around(10, 41)), measured("p1", "y", around(11, 41))});
  const auto merged = gate::pool_retry(old, fresh, {{"p1", "y"}});
  ASSERT_EQ(merged.trials.size(), 2u);
  EXPECT_EQ(merged.trials[0].sample_count, 21);
  EXPECT_EQ(merged.trials[1].sample_count, 62);
  EXPECT_EQ(merged.envs.size(), 1u);  // the same environment: not added again
  EXPECT_EQ(merged.trials[1].env, 0);
}

TEST(gate_retry, a_retry_timed_another_way_replaces_the_old_trial_instead_of_pooling) {
  const auto old = set("c", {measured("p1", "x", around(10))});
  auto batched = measured("p1", "x", around(8, 41));
  batched.batch = 241;
  const auto merged = gate::pool_retry(old, set("r", {batched}), {{"p1", "x"}});
  ASSERT_EQ(merged.trials.size(), 1u);
  EXPECT_EQ(merged.trials[0].sample_count, 41);
  EXPECT_EQ(merged.trials[0].batch, 241);
}

TEST(gate_retry, counts_say_the_last_pass_that_measured_a_row) {
  gate::retry_counts counts;
  gate::record_retry_pass(counts, {{"p1", ""}, {"p2", "y"}}, 1);
  gate::record_retry_pass(counts, {{"p1", ""}}, 2);
  gate::comparison c;
  c.rows = {row("p1", "x", true, verdict::same), row("p2", "y", false, verdict::same),
            row("p2", "y", true, verdict::same), row("p3", "x", true, verdict::same),
            row("p1", "z", false, verdict::same)};
  gate::apply_retry_counts(c, counts);
  EXPECT_EQ(c.rows[0].retries, 2);
  EXPECT_EQ(c.rows[1].retries, 1);
  EXPECT_EQ(c.rows[2].retries, 0);  // p2's winner row was not retried, only its configuration y
  EXPECT_EQ(c.rows[3].retries, 0);
  EXPECT_EQ(c.rows[4].retries, 2);  // p1's winner retry measured all of p1 again, z included
}

TEST(gate_retry, an_ambiguous_row_measured_again_and_pooled_is_decided) {
  // Five noisy samples: the interval straddles both bounds of +-3%.
  const auto baseline = set("baseline", {measured("p1", "x", around(100.0, 41, 0.05))});
  auto candidate = set("this build", {measured("p1", "x", {92, 97, 101, 105, 110})});
  auto c = gate::compare(baseline, candidate, {});
  ASSERT_EQ(c.rows.size(), 1u);
  ASSERT_EQ(c.rows[0].verdict, verdict::ambiguous);
  const auto targets = gate::select_retries(c);
  const auto fresh = set("retry", {measured("p1", "x", around(101.0, 201, 0.02))});
  candidate = gate::pool_retry(candidate, fresh, targets);
  gate::retry_counts counts;
  gate::record_retry_pass(counts, targets, 1);
  c = gate::compare(baseline, candidate, {});
  gate::apply_retry_counts(c, counts);
  EXPECT_EQ(c.rows[0].verdict, verdict::same);
  EXPECT_EQ(c.rows[0].candidate.sample_count, 206);  // 5 + 201
  EXPECT_EQ(c.rows[0].retries, 1);
  EXPECT_TRUE(gate::select_retries(c).empty());
}

// ---- the baseline and the report ------------------------------------------------------------

TEST(gate_baseline, only_the_suites_problems_are_kept) {
  auto s = set("results/",
               {measured("p1", "x", around(10)), measured("p2", "x", around(10)), measured("p3", "y", around(10))});
  const auto kept = gate::keep_problems(s, {"p1", "p3", "p9"});
  ASSERT_EQ(kept.trials.size(), 2u);
  EXPECT_EQ(kept.trials[0].problem, "p1");
  EXPECT_EQ(kept.trials[1].problem, "p3");
}

TEST(gate_baseline, the_winner_is_chosen_among_the_configurations_this_build_verified) {
  // The committed results come from the full sweep; the suite lists x and y only.
  const auto baseline = set("results", {measured("p1", "x", around(12)), measured("p1", "y", around(14)),
                                        measured("p1", "best-of-sweep", around(8)), measured("p2", "x", around(20))});
  const auto candidate = set("this build", {measured("p1", "x", around(12)), measured("p1", "y", around(14)),
                                            measured("p2", "x", around(20))});
  std::vector<std::string> warnings;
  const auto kept = gate::among_candidate_configurations(baseline, candidate, warnings);
  ASSERT_EQ(kept.trials.size(), 3u);
  for (const auto& t : kept.trials) EXPECT_NE(t.instance, "best-of-sweep");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("p1: the baseline's best, best-of-sweep (8.00 us), is not among this build's verified "
                             "configurations of the suite: compared among those only"),
            std::string::npos)
      << warnings[0];
  const auto c = gate::compare(kept, candidate, {});
  ASSERT_EQ(c.rows.size(), 2u);
  EXPECT_EQ(c.rows[0].verdict, verdict::same);  // 12 against 12, not 12 against 8

  // A configuration the baseline timed in single launches and this build (told by the batch plan)
  // in batches is left out as well: the winner is chosen among configurations timed alike.
  auto batched_x = measured("p1", "x", around(10));
  batched_x.batch = 11;
  auto batched_y = measured("p1", "y", around(11));
  batched_y.batch = 11;
  auto base_y = measured("p1", "y", around(11));
  base_y.batch = 11;
  warnings.clear();
  const auto alike = gate::among_candidate_configurations(set("results", {measured("p1", "x", around(12)), base_y}),
                                                          set("this build", {batched_x, batched_y}), warnings);
  ASSERT_EQ(alike.trials.size(), 1u);
  EXPECT_EQ(alike.trials[0].instance, "y");
  ASSERT_EQ(warnings.size(), 0u);  // the baseline's best (y, 11 us) is comparable

  // This build's side loses what the baseline lacks: x (batched here, single there) would
  // otherwise win on one side only.
  const auto mine = gate::among_baseline_configurations(set("this build", {batched_x, batched_y}), alike, warnings);
  ASSERT_EQ(mine.trials.size(), 1u);
  EXPECT_EQ(mine.trials[0].instance, "y");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("p1: this build's best, x (10.00 us), has no baseline timed the same way"),
            std::string::npos)
      << warnings[0];
  EXPECT_EQ(gate::compare(alike, mine, {}).rows.size(), 1u);
}

TEST(gate_baseline, problems_this_build_verified_nothing_of_are_found) {
  const auto s = set("this build", {measured("p1", "x", around(10)), measured("p3", "y", around(10))});
  EXPECT_EQ(gate::missing_problems(s, {"p1", "p2", "p3", "p4"}), (std::vector<std::string>{"p2", "p4"}));
  EXPECT_TRUE(gate::missing_problems(s, {"p3"}).empty());
}

TEST(gate_baseline, no_gpu_is_said_plainly) {
  const auto m = gate::no_gpu_message("no CUDA-capable device is detected");
  EXPECT_NE(m.find("no GPU to measure on (no CUDA-capable device is detected)"), std::string::npos) << m;
  EXPECT_NE(m.find("compile-validation sweep is not a gate"), std::string::npos) << m;
}

TEST(gate_report, gate_rows_say_their_retries_in_every_format) {
  const auto baseline = set("results/", {measured("p1", "x", around(100.0, 41, 0.05))});
  const auto candidate = set("this build", {measured("p1", "x", around(100.0, 41, 0.05))});
  auto c = gate::compare(baseline, candidate, {});
  // compare's own report has no retries.
  EXPECT_EQ(report::render_json(c).find("retries"), std::string::npos);
  EXPECT_EQ(report::render_table(c).find("retries"), std::string::npos);

  c.rows[0].retries = 2;
  c.gate = gate::gate_notes{"abba", "A B B A", 2, 2, {}};
  const auto json = nlohmann::json::parse(report::render_json(c));
  EXPECT_EQ(json["format"], "cuop-tune compare 1");  // a superset of compare's JSON
  EXPECT_EQ(json["gate"]["mode"], "abba");
  EXPECT_EQ(json["gate"]["schedule"], "A B B A");
  EXPECT_EQ(json["gate"]["retry_passes"], 2);
  EXPECT_EQ(json["rows"][0]["retries"], 2);
  const auto table = report::render_table(c);
  EXPECT_NE(table.find("retries"), std::string::npos) << table;
  EXPECT_NE(table.find("rounds A B B A"), std::string::npos) << table;
  const auto markdown = report::render_markdown(c);
  EXPECT_NE(markdown.find("### cuop-tune gate:"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("| retries |"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("| 2 | "), std::string::npos) << markdown;
  const auto junit = report::render_junit(c);
  EXPECT_NE(junit.find("name=\"cuop-tune gate\""), std::string::npos) << junit;
  EXPECT_NE(junit.find("measured again 2 times"), std::string::npos) << junit;
}

// ---- running a build's sweep ----------------------------------------------------------------

namespace {

namespace fs = std::filesystem;

// A fresh folder per test, removed afterwards.
struct scratch : cuop::test::scratch {
  scratch() : cuop::test::scratch("cuop-gate-test") {}
};

// A stand-in for a build's cuop-tune: records its arguments, one a line, then exits with `code`.
std::string fake_build(const scratch& s, int code) {
  const auto path = s / "cuop-tune";
  std::ofstream(path) << "#!/bin/sh\nfor a in \"$@\"; do echo \"$a\"; done > " << (s / "args.txt")
                      << "\necho to-stdout\nexit " << code << "\n";
  ::chmod(path.c_str(), 0755);
  return path;
}

std::vector<std::string> lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

const std::string suite_text =
    "op: softmax\n"
    "problems: [{rows: 8, cols: 32, dtype: f32}, {rows: 16, cols: 32, dtype: f32}]\n"
    "candidates: [{family: block_row, params: {vec: 1, block_threads: 32, chunks: 1}}]\n"
    "measure: {min_samples: 10, max_samples: 50, max_time_s: 1, timeout_s: 30}\n";

}  // namespace

TEST(gate_suite_run, the_sweep_command_names_the_database_device_problems_and_files) {
  gate::suite_run run;
  run.specs = {"a.yaml", "b.yaml"};
  run.only = {"softmax_f32_8x32", "softmax_f32_16x32"};
  run.device = 1;
  run.cache_dir = "/c";
  run.jobs = 3;
  EXPECT_EQ(gate::sweep_command("/bin/cuop-tune", "x.db", run),
            (std::vector<std::string>{"/bin/cuop-tune", "sweep", "--db", "x.db", "--device", "1", "--cache", "/c", "-j",
                                      "3", "--only", "softmax_f32_8x32,softmax_f32_16x32", "a.yaml", "b.yaml"}));
  run.only.clear();
  run.cache_dir.clear();
  run.jobs = 0;
  EXPECT_EQ(gate::sweep_command("e", "x.db", run),
            (std::vector<std::string>{"e", "sweep", "--db", "x.db", "--device", "1", "a.yaml", "b.yaml"}));
  run.batch_plan = "/g/batch-plan.json";
  EXPECT_EQ(gate::sweep_command("e", "x.db", run),
            (std::vector<std::string>{"e", "sweep", "--db", "x.db", "--device", "1", "--batch-plan",
                                      "/g/batch-plan.json", "a.yaml", "b.yaml"}));
}

TEST(gate_suite_run, a_retry_runs_the_files_as_they_are_on_its_problems) {
  scratch s;
  std::ofstream(s / "suite.yaml") << suite_text;
  const auto exe = fake_build(s, 0);
  gate::suite_run run;
  run.specs = {s / "suite.yaml"};
  run.only = {"softmax_f32_8x32"};
  run.retry_pass = 2;
  run.scratch_dir = s / "copies";
  gate::run_suite(exe, s / "r.db", run, "this build, retry 2");
  const auto args = lines(s / "args.txt");
  ASSERT_EQ(args.size(), 8u);
  EXPECT_EQ(args[0], "sweep");
  EXPECT_EQ(args[2], s / "r.db");
  EXPECT_EQ(args[6], "softmax_f32_8x32");
  // The suite's own measure settings: a retry measured otherwise (more samples per trial) puts a
  // power-bound GEMM in another power state than the pass it joins (docs/measurement.md).
  EXPECT_EQ(args[7], s / "suite.yaml");
}

TEST(gate_suite_run, a_failed_sweep_or_an_existing_database_is_an_error) {
  scratch s;
  std::ofstream(s / "suite.yaml") << suite_text;
  gate::suite_run run;
  run.specs = {s / "suite.yaml"};
  const auto failed = test::error_of([&] { gate::run_suite(fake_build(s, 3), s / "f.db", run, "round 2 of 4"); });
  EXPECT_NE(failed.find("round 2 of 4: its sweep failed (exit code 3)"), std::string::npos) << failed;
  std::ofstream(s / "old.db") << "x";
  const auto exists = test::error_of([&] { gate::run_suite(fake_build(s, 0), s / "old.db", run, "this build"); });
  EXPECT_NE(exists.find("old.db: already exists"), std::string::npos) << exists;
  const auto missing = test::error_of([&] { gate::run_suite(s / "no-such-binary", s / "m.db", run, "B"); });
  EXPECT_NE(missing.find("could not be started"), std::string::npos) << missing;
}

TEST(gate_suite_run, a_build_is_found_from_its_binary_or_its_folder) {
  scratch s;
  fs::create_directories(s / "build/tuner");
  const auto exe = s / "build/tuner/cuop-tune";
  std::ofstream(exe) << "#!/bin/sh\n";
  ::chmod(exe.c_str(), 0755);
  EXPECT_EQ(gate::resolve_cuop_tune(s / "build"), exe);
  EXPECT_EQ(gate::resolve_cuop_tune(exe), exe);
  std::ofstream(s / "plain") << "x";
  EXPECT_NE(test::error_of([&] { gate::resolve_cuop_tune(s / "plain"); }).find("not an executable file"),
            std::string::npos);
  fs::create_directories(s / "empty");
  EXPECT_NE(test::error_of([&] { gate::resolve_cuop_tune(s / "empty"); }).find("no cuop-tune binary"),
            std::string::npos);
}

TEST(gate_suite_run, only_the_same_protocol_is_accepted) {
  trial::device_info same;
  EXPECT_EQ(same.protocol, trial::protocol_version);
  EXPECT_NO_THROW(gate::require_same_protocol(same, "other"));
  trial::device_info old;
  old.protocol = 0;
  EXPECT_NE(test::error_of([&] {
              gate::require_same_protocol(old, "old/build");
            }).find("old/build speaks no protocol version"),
            std::string::npos);
  trial::device_info newer;
  newer.protocol = trial::protocol_version + 1;
  EXPECT_NE(test::error_of([&] {
              gate::require_same_protocol(newer, "new");
            }).find(fmt::format("new speaks protocol {}", trial::protocol_version + 1)),
            std::string::npos);
  // A worker that does not say is an old one.
  EXPECT_EQ(trial::device_info_from_json({{"present", false}}).protocol, 0);
  EXPECT_EQ(trial::device_info_from_json(trial::to_json(same)).protocol, trial::protocol_version);
}
