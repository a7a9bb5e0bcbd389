// cuop-tune export: per GPU model and problem, the newest environment that measured the problem
// only; the newest trial per key.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <tuple>

#include "test_support.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/hash.hpp"
#include "tuner/results/results_file.hpp"
#include "tuner/store/store.hpp"

namespace {

namespace fs = std::filesystem;
using namespace cuop;

store::trial_record trial(std::int64_t run, const std::string& env, const std::string& instance, double us,
                          int rows = 8) {
  store::trial_record t;
  t.run_id = run;
  t.env_key = env;
  t.problem = {"softmax_f32_" + std::to_string(rows) + "x1024", "softmax", "f32",
               R"({"cols":1024,"rows":)" + std::to_string(rows) + "}", static_cast<double>(rows * 8192LL)};
  t.config = {instance, "softmax", "block_row", "f32", cuop::test::block_row_params(instance)};
  t.status = "ok";
  t.median_us = t.min_us = t.q1_us = t.q3_us = t.mean_us = us;
  t.samples = 10;
  t.sample_us = std::vector<double>(10, us);
  t.created_at = "2026-11-30T00:00:00Z";
  return t;
}

}  // namespace

TEST(export_results, keeps_the_newest_environment_of_each_problem) {
  const auto dir = fs::temp_directory_path() / ("cuop-export-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  {
    auto db = store::database::open((dir / "x.db").string(), store::open_mode::read_write);
    store::run_info run;
    run.op = "softmax";
    run.mode = "measure";
    run.state = "finished";
    run.started_at = "2026-11-30T00:00:00Z";
    run.env.gpu_name = "NVIDIA H200";
    run.env.cc = 90;
    run.env.source_hash = "0123456789abcdef";
    const auto old_run = db->begin_run(run);
    db->put_trial(trial(old_run, run.env.key(), "softmax_f32_block_row_vec4_threads256_chunks1", 5.0));
    db->put_trial(trial(old_run, run.env.key(), "softmax_f32_block_row_vec4_threads512_chunks1", 6.0));
    db->put_trial(trial(old_run, run.env.key(), "softmax_f32_block_row_vec4_threads512_chunks1", 9.0, 16));
    run.env.source_hash = "fedcba9876543210";  // the kernels changed: a new environment
    const auto new_run = db->begin_run(run);
    db->put_trial(trial(new_run, run.env.key(), "softmax_f32_block_row_vec4_threads512_chunks1", 7.0));
    results::export_results(*db, "softmax", (dir / "results").string());
  }
  const auto files = results::read_results((dir / "results").string());
  ASSERT_EQ(files.size(), 1u);
  // 8 rows: the old environment's faster trial is stale, not mixed in. 16 rows: measured only in
  // the old environment, kept.
  ASSERT_EQ(files[0].trials.size(), 2u);
  for (const auto& t : files[0].trials) {
    EXPECT_EQ(t.instance, "softmax_f32_block_row_vec4_threads512_chunks1");
    EXPECT_DOUBLE_EQ(t.median_us, t.problem == "softmax_f32_8x1024" ? 7.0 : 9.0) << t.problem;
  }
  EXPECT_EQ(files[0].runs.size(), 2u);
  fs::remove_all(dir);
}

namespace {

// A database of one finished H200 run with `trials` (instance, median, rows), exported into dir.
void export_run(const fs::path& dir, const std::string& db_name, const std::string& driver,
                const std::vector<std::tuple<std::string, double, int>>& trials, results::export_merge merge,
                const std::string& state = "finished") {
  auto db = store::database::open((dir / db_name).string(), store::open_mode::read_write);
  store::run_info run;
  run.op = "softmax";
  run.mode = "measure";
  run.state = state;
  run.started_at = "2026-12-01T00:00:00Z";
  run.env.gpu_name = "NVIDIA H200";
  run.env.cc = 90;
  run.env.sm_count = 132;
  run.env.driver = driver;
  run.env.cuda_runtime = "13.0";
  run.env.source_hash = cuop::fnv1a_hex(db_name);
  const auto id = db->begin_run(run);
  for (const auto& [instance, us, rows] : trials) db->put_trial(trial(id, run.env.key(), instance, us, rows));
  results::export_results(*db, "softmax", (dir / "results").string(), results::export_samples::winners, merge);
}

}  // namespace

TEST(export_results, update_replaces_only_the_problems_measured_again) {
  const auto dir = fs::temp_directory_path() / ("cuop-export-update-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string a = "softmax_f32_block_row_vec4_threads256_chunks1",
                    b = "softmax_f32_block_row_vec4_threads512_chunks1";
  export_run(dir, "old.db", "13.0", {{a, 5.0, 8}, {b, 6.0, 8}, {a, 9.0, 16}, {a, 20.0, 32}},
             results::export_merge::replace);
  // 16 rows measured again (one configuration now), 64 rows new.
  export_run(dir, "new.db", "13.0", {{b, 8.0, 16}, {a, 30.0, 64}}, results::export_merge::update);
  const auto path = (dir / "results/softmax/nvidia-h200.json").string();
  auto f = results::read_results_file(path);
  std::vector<std::tuple<std::string, std::string, double, std::int64_t>> got;
  for (const auto& t : f.trials) got.emplace_back(t.problem, t.instance, t.median_us, t.run);
  EXPECT_EQ(got, (decltype(got){{"softmax_f32_16x1024", b, 8.0, 2},  // in its old place, its run renumbered
                                {"softmax_f32_32x1024", a, 20.0, 1},
                                {"softmax_f32_8x1024", a, 5.0, 1},
                                {"softmax_f32_8x1024", b, 6.0, 1},
                                {"softmax_f32_64x1024", a, 30.0, 2}}));  // new: last
  ASSERT_EQ(f.runs.size(), 2u);
  EXPECT_EQ(f.runs[0].id, 1);
  EXPECT_EQ(f.runs[1].id, 2);

  // The same update again changes nothing.
  const auto before = f.trials.size();
  export_run(dir, "new2.db", "13.0", {{b, 8.0, 16}, {a, 30.0, 64}}, results::export_merge::update);
  f = results::read_results_file(path);
  EXPECT_EQ(f.trials.size(), before);
  EXPECT_EQ(f.runs.size(), 2u);

  // Another driver: the file holds one set-up for all its trials; refused, the file untouched.
  try {
    export_run(dir, "other.db", "13.1", {{b, 1.0, 16}}, results::export_merge::update);
    ADD_FAILURE() << "an update from another driver was accepted";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("nvidia-h200.json: cannot update: its driver is 13.0, the database's 13.1"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(results::read_results_file(path).trials.size(), before);

  // A run that did not finish (killed, interrupted) may hold part of a problem: refused.
  try {
    export_run(dir, "partial.db", "13.0", {{b, 1.0, 16}}, results::export_merge::update, "running");
    ADD_FAILURE() << "an update from an unfinished run was accepted";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot update from run 1, which is running"), std::string::npos) << e.what();
  }
  EXPECT_EQ(results::read_results_file(path).trials.size(), before);
  fs::remove_all(dir);
}

TEST(export_results, add_keeps_every_trial_but_those_measured_again) {
  const auto dir = fs::temp_directory_path() / ("cuop-export-add-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string a = "softmax_f32_block_row_vec4_threads256_chunks1",
                    b = "softmax_f32_block_row_vec4_threads512_chunks1";
  export_run(dir, "old.db", "13.0", {{a, 5.0, 8}, {b, 6.0, 8}, {a, 9.0, 16}}, results::export_merge::replace);
  // b measured again at 8 rows, a at 64 rows (new): a at 8 rows and 16 rows stay.
  export_run(dir, "new.db", "13.0", {{b, 7.0, 8}, {a, 30.0, 64}}, results::export_merge::add);
  auto f = results::read_results_file((dir / "results/softmax/nvidia-h200.json").string());
  std::vector<std::tuple<std::string, std::string, double, std::int64_t>> got;
  for (const auto& t : f.trials) got.emplace_back(t.problem, t.instance, t.median_us, t.run);
  EXPECT_EQ(got, (decltype(got){{"softmax_f32_16x1024", a, 9.0, 1},
                                {"softmax_f32_8x1024", a, 5.0, 1},
                                {"softmax_f32_8x1024", b, 7.0, 2},  // after the problem's old trials
                                {"softmax_f32_64x1024", a, 30.0, 2}}));
  ASSERT_EQ(f.runs.size(), 2u);
  fs::remove_all(dir);
}
