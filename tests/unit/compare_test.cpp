// compare's core: result sets from databases and results files (old ones without samples too),
// winners and per-configuration rows, the environment check, and export's samples.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "test_support.hpp"
#include "tuner/gate/comparison.hpp"
#include "tuner/gate/result_set.hpp"
#include "tuner/results/results_file.hpp"
#include "tuner/store/store.hpp"

namespace {

namespace fs = std::filesystem;
using namespace cuop;
using measure::verdict;

const std::string data = CUOP_TEST_DATA_DIR "/compare";

// A fresh folder per test, removed afterwards.
struct scratch : cuop::test::scratch {
  scratch() : cuop::test::scratch("cuop-compare-test") {}
};

gate::measured_trial trial(const std::string& problem, const std::string& instance, double us,
                           std::vector<double> samples = {}) {
  gate::measured_trial t;
  t.problem = problem;
  t.op = "softmax";
  t.dtype = "f32";
  t.instance = instance;
  t.median_us = us;
  t.ci_lo_us = us * 0.99;
  t.ci_hi_us = us * 1.01;
  t.samples_us = std::move(samples);
  return t;
}

gate::result_set set(const std::string& source, const std::string& gpu, std::vector<gate::measured_trial> trials) {
  gate::result_set s;
  s.source = source;
  s.envs.push_back({gpu, 132, "580.95", "13.0", "", "key", "hash", "rev"});
  s.trials = std::move(trials);
  return s;
}

std::vector<double> around(double us, double step = 0.01) {
  std::vector<double> v;
  for (int i = -10; i <= 10; ++i) v.push_back(us + i * step);
  return v;
}

// One H200 run with two configurations of one problem, every trial with raw samples.
void fill(store::database& db) {
  store::run_info run;
  run.op = "softmax";
  run.mode = "measure";
  run.state = "finished";
  run.started_at = "2026-12-01T00:00:00Z";
  run.env.gpu_name = "NVIDIA H200";
  run.env.cc = 90;
  run.env.sm_count = 132;
  run.env.driver = "580.95";
  run.env.cuda_runtime = "13.0";
  const auto id = db.begin_run(run);
  for (const auto& [instance, us] : {std::pair{"softmax_f32_block_row_vec4_threads128_chunks8", 41.0},
                                     std::pair{"softmax_f32_block_row_vec4_threads256_chunks4", 44.0}}) {
    store::trial_record t;
    t.run_id = id;
    t.env_key = run.env.key();
    t.problem = {"softmax_f32_4096x4096", "softmax", "f32", R"({"cols":4096,"rows":4096})", 1 << 27};
    t.config = {instance, "softmax", "block_row", "f32", cuop::test::block_row_params(instance)};
    t.status = "ok";
    t.sample_us = around(us, 0.013);
    t.median_us = t.min_us = t.q1_us = t.q3_us = us;
    t.ci_lo_us = us - 0.05;
    t.ci_hi_us = us + 0.05;
    t.samples = static_cast<int>(t.sample_us.size());
    t.created_at = "2026-12-01T00:00:00Z";
    db.put_trial(t);
  }
}

}  // namespace

TEST(compare, winners_are_compared_per_problem_and_one_sided_problems_listed) {
  const auto base = set(
      "a", "NVIDIA H200",
      {trial("p1", "x", 10.0, around(10.0)), trial("p1", "y", 9.0, around(9.0)), trial("p2", "x", 50.0, around(50.0))});
  const auto cand = set(
      "b", "NVIDIA H200",
      {trial("p1", "x", 10.0, around(10.0)), trial("p1", "y", 12.0, around(12.0)), trial("p3", "x", 5.0, around(5.0))});
  const auto c = gate::compare(base, cand, {});
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_TRUE(c.rows[0].winner);
  EXPECT_EQ(c.rows[0].baseline.instance, "y");   // 9 us
  EXPECT_EQ(c.rows[0].candidate.instance, "x");  // 10 us: the winner changed
  EXPECT_NEAR(c.rows[0].ci.ratio, 10.0 / 9.0, 1e-12);
  EXPECT_EQ(c.only_in_baseline, std::vector<std::string>{"p2"});
  EXPECT_EQ(c.only_in_candidate, std::vector<std::string>{"p3"});
}

TEST(compare, batched_and_single_launch_timings_are_never_compared) {
  auto batched = trial("p1", "x", 9.8, around(9.8));
  batched.batch = 241;
  const auto base =
      set("committed", "NVIDIA H200", {trial("p1", "x", 11.7, around(11.7)), trial("p2", "x", 50.0, around(50.0))});
  const auto cand = set("now", "NVIDIA H200", {batched, trial("p2", "x", 50.0, around(50.0))});
  const auto c = gate::compare(base, cand, {});
  ASSERT_EQ(c.rows.size(), 1u);  // p2 only: p1's 16% "speed-up" is the batching, not the code
  EXPECT_EQ(c.rows[0].problem, "p2");
  EXPECT_EQ(c.measured_differently, std::vector<std::string>{"p1"});
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_EQ(c.warnings[0],
            "p1: not compared: the baseline x was timed in single launches, the candidate x in CUDA-graph "
            "batches of 241 launches; measure both the same way (a baseline exported before batching is "
            "single launches)");
  // Batched on both sides (any batch size): compared.
  auto also = trial("p1", "x", 9.9, around(9.9));
  also.batch = 200;
  EXPECT_EQ(gate::compare(set("a", "NVIDIA H200", {also}), set("b", "NVIDIA H200", {batched}), {}).rows.size(), 1u);
  // Nothing else in common: an error, not an empty report.
  EXPECT_THROW(gate::compare(set("a", "NVIDIA H200", {trial("p1", "x", 11.7, around(11.7))}),
                             set("b", "NVIDIA H200", {batched}), {}),
               cuop::error);
}

TEST(compare, per_config_adds_each_configuration_on_both_sides) {
  const auto base = set("a", "NVIDIA H200",
                        {trial("p1", "x", 100.0, around(100.0)), trial("p1", "y", 90.0, around(90.0)),
                         trial("p1", "z", 95.0, around(95.0))});
  const auto cand =
      set("b", "NVIDIA H200", {trial("p1", "x", 100.0, around(100.0)), trial("p1", "y", 99.0, around(99.0))});
  gate::compare_options o;
  o.per_config = true;
  const auto c = gate::compare(base, cand, o);
  ASSERT_EQ(c.rows.size(), 3u);  // the winners, then x and y (z is not in the candidate)
  EXPECT_TRUE(c.rows[0].winner);
  EXPECT_EQ(c.rows[1].candidate.instance, "x");
  EXPECT_EQ(c.rows[1].verdict, verdict::same);
  EXPECT_EQ(c.rows[2].candidate.instance, "y");
  EXPECT_EQ(c.rows[2].verdict, verdict::slower);
  EXPECT_TRUE(c.regression());
}

TEST(compare, different_gpus_are_refused_naming_both_unless_allowed) {
  const auto base = set("base.json", "NVIDIA H200", {trial("p1", "x", 100.0, around(100.0))});
  const auto cand = set("cand.db", "NVIDIA A100-SXM4-80GB", {trial("p1", "x", 100.0, around(100.0))});
  const auto message = test::error_of([&] { gate::compare(base, cand, {}); });
  EXPECT_NE(message.find("baseline base.json was measured on NVIDIA H200"), std::string::npos) << message;
  EXPECT_NE(message.find("candidate cand.db on NVIDIA A100-SXM4-80GB"), std::string::npos) << message;
  EXPECT_NE(message.find("--allow-different-env"), std::string::npos) << message;
  gate::compare_options o;
  o.allow_different_env = true;
  const auto c = gate::compare(base, cand, o);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find("NVIDIA A100-SXM4-80GB"), std::string::npos);
}

TEST(compare, another_driver_is_another_environment_and_unknown_fields_match_anything) {
  auto base = set("a", "NVIDIA H200", {trial("p1", "x", 100.0, around(100.0))});
  auto cand = set("b", "NVIDIA H200", {trial("p1", "x", 100.0, around(100.0))});
  cand.envs[0].driver = "590.10";
  EXPECT_NE(test::error_of([&] { gate::compare(base, cand, {}); }).find("driver 590.10"), std::string::npos);
  cand.envs[0].driver = "";                    // a results file that does not say
  cand.envs[0].source_hash = "other kernels";  // what a comparison compares: never refused
  cand.envs[0].env_key = "other key";
  EXPECT_TRUE(gate::compare(base, cand, {}).warnings.empty());
}

TEST(compare, nothing_in_common_is_an_error) {
  const auto base = set("a", "NVIDIA H200", {trial("p1", "x", 100.0, around(100.0))});
  const auto cand = set("b", "NVIDIA H200", {trial("p2", "x", 100.0, around(100.0))});
  EXPECT_NE(test::error_of([&] { gate::compare(base, cand, {}); }).find("nothing to compare"), std::string::npos);
}

TEST(compare, a_pair_keeps_its_interval_whatever_else_is_compared) {
  const auto p1 = trial("p1", "x", 100.0, around(100.0, 0.3));
  const auto p1b = trial("p1", "x", 101.0, around(101.0, 0.3));
  const auto alone = gate::compare(set("a", "NVIDIA H200", {p1}), set("b", "NVIDIA H200", {p1b}), {});
  const auto with_more = gate::compare(set("a", "NVIDIA H200", {trial("p0", "x", 7.0, around(7.0)), p1}),
                                       set("b", "NVIDIA H200", {trial("p0", "x", 7.0, around(7.0)), p1b}), {});
  ASSERT_EQ(with_more.rows.size(), 2u);
  EXPECT_EQ(alone.rows[0].ci.lo, with_more.rows[1].ci.lo);
  EXPECT_EQ(alone.rows[0].ci.hi, with_more.rows[1].ci.hi);
}

TEST(compare, committed_results_files_load_with_and_without_samples) {
  for (const char* op : {"softmax", "gemm", "conv2d"}) {
    const auto path = std::string(CUOP_SOURCE_DIR) + "/results/" + op + "/nvidia-h200.json";
    if (!fs::exists(path)) continue;
    gate::load_options o;
    const auto s = gate::load_result_set(path, o);
    EXPECT_FALSE(s.trials.empty()) << path;
    EXPECT_EQ(s.envs.at(0).gpu, "NVIDIA H200");
    // Problems exported before raw samples were kept are normal approximations of the stored
    // CIs, those measured since (their winners carry samples_us) are bootstrapped: a file
    // against itself is A/A data, never a change (a wide stored CI may leave it AMBIGUOUS).
    const auto c = gate::compare(s, s, {});
    const auto without =
        std::ranges::count_if(gate::fastest_per_problem(s), [](const auto& e) { return e.second->samples_us.empty(); });
    EXPECT_EQ(c.approximate_rows(), without) << path;
    EXPECT_EQ(c.count(verdict::slower) + c.count(verdict::faster), 0) << path;
  }
}

TEST(compare, fixture_scenarios) {
  gate::load_options all;
  const auto base = gate::load_result_set(data + "/baseline", all);
  EXPECT_EQ(base.kind, "results files");
  EXPECT_EQ(base.trials.size(), 5u);
  EXPECT_EQ(base.trials[0].samples_us.size(), 24u);
  const auto same = gate::compare(base, gate::load_result_set(data + "/same", all), {});
  EXPECT_EQ(same.count(verdict::same), 3) << same.rows[0].ci.lo;
  const auto slower = gate::compare(base, gate::load_result_set(data + "/slower", all), {});
  ASSERT_EQ(slower.count(verdict::slower), 1);
  for (const auto& r : slower.rows) {
    if (r.verdict == verdict::slower) {
      EXPECT_EQ(r.problem, "softmax_f32_4096x4096");
    }
  }
  const auto old =
      gate::compare(gate::load_result_set(data + "/no-samples", all), gate::load_result_set(data + "/same", all), {});
  EXPECT_EQ(old.approximate_rows(), 3);
  EXPECT_EQ(old.count(verdict::slower), 0);
  gate::load_options gemm_only;
  gemm_only.op = "gemm";
  EXPECT_EQ(gate::load_result_set(data + "/baseline", gemm_only).trials.size(), 2u);
}

TEST(compare, a_database_and_its_export_compare_as_the_same_results) {
  scratch dir;
  {
    auto db = store::database::open(dir / "x.db", store::open_mode::read_write);
    fill(*db);
    results::export_results(*db, "softmax", dir / "results");
  }
  gate::load_options o;
  const auto from_db = gate::load_result_set(dir / "x.db", o);
  EXPECT_EQ(from_db.kind, "database");
  ASSERT_EQ(from_db.trials.size(), 2u);
  EXPECT_EQ(from_db.trials[0].samples_us.size(), 21u);
  EXPECT_EQ(from_db.envs.at(0).describe(), "NVIDIA H200 (132 SMs, driver 580.95, CUDA 13.0)");
  const auto from_file = gate::load_result_set(dir / "results/softmax/nvidia-h200.json", o);
  const auto c = gate::compare(from_db, from_file, {});
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].verdict, verdict::same);
  EXPECT_FALSE(c.rows[0].ci.approximate);  // the winner's samples were exported
  EXPECT_NEAR(c.rows[0].ci.ratio, 1.0, 1e-3);
}

TEST(export_samples, winners_by_default_all_or_none_on_request) {
  scratch dir;
  auto db = store::database::open(dir / "x.db", store::open_mode::read_write);
  fill(*db);
  const auto count_with_samples = [&](results::export_samples which, const std::string& out) {
    results::export_results(*db, "softmax", dir / out, which);
    const auto f = results::read_results_file(dir / (out + "/softmax/nvidia-h200.json"));
    int n = 0;
    for (const auto& t : f.trials) {
      if (t.samples_us.empty()) continue;
      ++n;
      for (double x : t.samples_us) EXPECT_DOUBLE_EQ(x, std::round(x * 100) / 100);  // 0.01 us
    }
    return n;
  };
  EXPECT_EQ(count_with_samples(results::export_samples::winners, "w"), 1);
  EXPECT_EQ(count_with_samples(results::export_samples::all, "a"), 2);
  EXPECT_EQ(count_with_samples(results::export_samples::none, "n"), 0);
  const auto w = results::read_results_file(dir / "w/softmax/nvidia-h200.json");
  EXPECT_EQ(w.trials[0].instance, "softmax_f32_block_row_vec4_threads128_chunks8");  // 41 us: the winner
  EXPECT_EQ(w.trials[0].samples_us.size(), 21u);
}
