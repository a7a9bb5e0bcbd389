// `best` and `export` do not trust runs marked invalid (a bad environment before or after them),
// `best` reports the best's ties, and it reads the trials `export` writes.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "cli_support.hpp"
#include "tuner/store/store.hpp"

namespace {

using cuop::test::run_cli;
using cuop::test::temp_dir;
namespace store = cuop::store;

store::trial_record trial(std::int64_t run, const std::string& env, const std::string& instance, double us,
                          double half_ci) {
  store::trial_record t;
  t.run_id = run;
  t.env_key = env;
  t.problem = {"softmax_f32_8x1024", "softmax", "f32", R"({"cols":1024,"rows":8})", 65536};
  t.config = {instance, "softmax", "block_row", "f32", R"({"block_threads":256,"chunks":1,"vec":4})"};
  t.status = "ok";
  t.median_us = t.min_us = t.q1_us = t.q3_us = t.mean_us = us;
  t.ci_lo_us = us - half_ci;
  t.ci_hi_us = us + half_ci;
  t.samples = 3;
  t.gbps = 65536 / us / 1e3;
  t.sample_us = {us, us, us};
  t.created_at = "2026-11-30T00:00:00Z";
  return t;
}

// A softmax measurement run on an H200.
store::run_info h200_run() {
  store::run_info run;
  run.op = "softmax";
  run.mode = "measure";
  run.state = "running";
  run.started_at = "2026-11-30T00:00:00Z";
  run.env.gpu_name = "NVIDIA H200";
  run.env.cc = 90;
  return run;
}

}  // namespace

TEST(cli, best_and_export_leave_out_invalid_runs_and_best_reports_ties) {
  temp_dir tmp;
  const auto db_path = tmp / "t.db";
  {
    auto db = store::database::open(db_path, store::open_mode::read_write);
    auto run = h200_run();
    const auto env = run.env.key();
    const auto good = db->begin_run(run);
    db->put_trial(trial(good, env, "k_best", 10.0, 0.2));
    db->put_trial(trial(good, env, "k_tied", 10.1, 0.2));  // overlaps the best's interval
    db->put_trial(trial(good, env, "k_slow", 12.0, 0.2));  // does not
    db->finish_run(good, "finished");
    const auto bad = db->begin_run(run);
    db->put_trial(trial(bad, env, "k_fastest", 5.0, 0.1));  // measured beside another process
    db->finish_run(bad, "invalid", "before the run: 1 other compute process on the GPU (pid 7)");
  }
  const auto r = run_cli("best --db " + db_path);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("softmax_f32_8x1024           k_best"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("k_fastest"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("run 2 is invalid (before the run: 1 other compute process on the GPU (pid 7)): its 1 "
                       "trial is not trusted"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("3/3     1"), std::string::npos) << r.out;  // ok/trials, then one tie
  const auto csv = run_cli("best --format csv --db " + db_path);
  EXPECT_NE(csv.out.find("gpu,problem,instance,median_us,ci_lo_us,ci_hi_us,gbps,rate_gbps,speedup_over_first,ok,"
                         "trials,ties\r\n"),
            std::string::npos)
      << csv.out;
  EXPECT_NE(csv.out.find("NVIDIA H200,softmax_f32_8x1024,k_best,10,9.8,10.2,"), std::string::npos) << csv.out;
  EXPECT_NE(csv.out.find(",3,3,k_tied\r\n"), std::string::npos) << csv.out;
  const auto js = run_cli("best --format json --db " + db_path);
  EXPECT_NE(js.out.find("\"ties\": [\n      \"k_tied\"\n    ]"), std::string::npos) << js.out;

  const auto ex = run_cli("export --db " + db_path + " --out " + (tmp / "results"));
  ASSERT_EQ(ex.code, 0) << ex.out;
  std::ifstream in(tmp / "results/softmax/nvidia-h200.json");
  const std::string text{std::istreambuf_iterator<char>(in), {}};
  EXPECT_NE(text.find("k_best"), std::string::npos);
  EXPECT_EQ(text.find("k_fastest"), std::string::npos) << text;
}

// `best` reads what `export` writes: per problem the newest environment's trials (an older
// kernel revision's faster time is not the answer any more), each configuration once.
TEST(cli, best_reads_the_trials_export_writes) {
  temp_dir tmp;
  const auto db_path = tmp / "t.db";
  {
    auto db = store::database::open(db_path, store::open_mode::read_write);
    auto run = h200_run();
    run.env.source_hash = "old-kernels";
    const auto old_env = run.env.key();
    const auto old_run = db->begin_run(run);
    db->put_trial(trial(old_run, old_env, "k_was_fastest", 5.0, 0.1));
    db->put_trial(trial(old_run, old_env, "k_now_best", 9.0, 0.1));
    db->finish_run(old_run, "finished");
    run.env.source_hash = "new-kernels";
    const auto new_env = run.env.key();
    for (int i = 0; i < 2; ++i) {  // the same configurations measured twice: each counts once
      const auto now = db->begin_run(run);
      db->put_trial(trial(now, new_env, "k_now_best", 8.0 + i, 0.1));
      db->put_trial(trial(now, new_env, "k_second", 12.0, 0.1));
      db->finish_run(now, "finished");
    }
  }
  const auto r = run_cli("best --db " + db_path);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("softmax_f32_8x1024           k_now_best"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("k_was_fastest"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2/2"), std::string::npos) << r.out;     // ok/trials of the newest environment
  EXPECT_NE(r.out.find(" 9.00 "), std::string::npos) << r.out;  // the newest trial of k_now_best
  const auto ex = run_cli("export --db " + db_path + " --out " + (tmp / "results"));
  ASSERT_EQ(ex.code, 0) << ex.out;
  std::ifstream in(tmp / "results/softmax/nvidia-h200.json");
  const std::string text{std::istreambuf_iterator<char>(in), {}};
  EXPECT_EQ(text.find("k_was_fastest"), std::string::npos) << text;
  EXPECT_NE(text.find("k_now_best"), std::string::npos) << text;
}
