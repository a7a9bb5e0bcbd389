// cuop-tune export: per GPU model and problem, the newest environment that measured the problem
// only; the newest trial per key.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "tuner/emit/results_file.hpp"
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
               R"({"cols":1024,"rows":)" + std::to_string(rows) + "}", rows * 8192LL};
  t.config = {instance, "softmax", "block_row", "f32", R"({"block_threads":256,"chunks":1,"vec":4})"};
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
    run.env.source_hash = "old-kernels";
    const auto old_run = db->begin_run(run);
    db->put_trial(trial(old_run, run.env.key(), "softmax_f32_block_row_v4_b256_c1", 5.0));
    db->put_trial(trial(old_run, run.env.key(), "softmax_f32_block_row_v4_b512_c1", 6.0));
    db->put_trial(trial(old_run, run.env.key(), "softmax_f32_block_row_v4_b512_c1", 9.0, 16));
    run.env.source_hash = "new-kernels";  // the kernels changed: a new environment
    const auto new_run = db->begin_run(run);
    db->put_trial(trial(new_run, run.env.key(), "softmax_f32_block_row_v4_b512_c1", 7.0));
    emit::export_results(*db, "softmax", (dir / "results").string());
  }
  const auto files = emit::read_results((dir / "results").string());
  ASSERT_EQ(files.size(), 1u);
  // 8 rows: the old environment's faster trial is stale, not mixed in. 16 rows: measured only in
  // the old environment, kept.
  ASSERT_EQ(files[0].trials.size(), 2u);
  for (const auto& t : files[0].trials) {
    EXPECT_EQ(t.instance, "softmax_f32_block_row_v4_b512_c1");
    EXPECT_DOUBLE_EQ(t.median_us, t.problem == "softmax_f32_8x1024" ? 7.0 : 9.0) << t.problem;
  }
  EXPECT_EQ(files[0].runs.size(), 2u);
  fs::remove_all(dir);
}
