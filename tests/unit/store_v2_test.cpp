// Schema 2 of the store: a version 1 database (built here from the version 1 SQL, as the first
// release wrote it) migrates keeping every row; read-only opens read it through an upgraded copy
// and leave the file alone; the measurement engine's new fields round-trip; trials of runs marked
// invalid are not trusted by resume, export (hence emit and compare) or best.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "test_support.hpp"
#include "tuner/core/files.hpp"
#include "tuner/gate/result_set.hpp"
#include "tuner/results/current_trials.hpp"
#include "tuner/results/results_file.hpp"
#include "tuner/store/migrations.hpp"
#include "tuner/store/store.hpp"

namespace fs = std::filesystem;
using namespace cuop::store;

namespace {

class raw {
 public:
  explicit raw(const std::string& path) { sqlite3_open(path.c_str(), &m_db); }
  ~raw() { sqlite3_close(m_db); }
  void exec(const std::string& sql) {
    char* err = nullptr;
    if (sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
      const std::string msg = err ? err : "?";
      sqlite3_free(err);
      throw std::runtime_error(msg + " in: " + sql);
    }
  }
  // Every row of `sql`, columns joined by '|', rows by '\n'.
  std::string rows(const std::string& sql) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &s, nullptr) != SQLITE_OK) throw std::runtime_error(sql);
    std::string out;
    while (sqlite3_step(s) == SQLITE_ROW) {
      for (int i = 0; i < sqlite3_column_count(s); ++i) {
        const auto* t = sqlite3_column_text(s, i);
        out += (i ? "|" : "") + std::string(t ? reinterpret_cast<const char*>(t) : "NULL");
      }
      out += "\n";
    }
    sqlite3_finalize(s);
    return out;
  }

 private:
  sqlite3* m_db = nullptr;
};

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// A version 1 database as cuop-tune 0.1 left it: two runs, a trial outside any run, a failed
// trial, samples, a build.
void write_v1_fixture(const std::string& path) {
  raw db(path);
  db.exec(cuop::store::detail::schema_v1_sql);
  db.exec(R"sql(
PRAGMA user_version = 1;
INSERT INTO runs VALUES (1, '2026-11-01T10:00:00Z', '2026-11-01T11:00:00Z', 'configs/softmax.yaml', 'h1',
  'softmax', 'measure', 'finished', 'envA', 'NVIDIA H200', 'GPU-1', 132, 62914560, 90, '13.0', '13.0',
  'nvrtc 13.0', 'abc', '-O3 [Release]', 'src1', 'node1');
INSERT INTO runs VALUES (2, '2026-11-02T10:00:00Z', NULL, 'configs/softmax.yaml', 'h1', 'softmax', 'measure',
  'interrupted', 'envA', 'NVIDIA H200', 'GPU-1', 132, 62914560, 90, '13.0', '13.0', 'nvrtc 13.0', 'abc',
  '-O3 [Release]', 'src1', 'node1');
INSERT INTO problems VALUES (1, 'softmax_f32_8x1024', 'softmax', 'f32', '{"cols":1024,"rows":8}', 65536);
INSERT INTO problems VALUES (2, 'softmax_f16_8x1024', 'softmax', 'f16', '{"cols":1024,"rows":8}', 32768);
INSERT INTO configs VALUES (1, 'k_a', 'softmax', 'block_row', 'f32', '{"vec":4}');
INSERT INTO configs VALUES (2, 'k_b', 'softmax', 'block_row', 'f32', '{"vec":2}');
INSERT INTO builds VALUES (1, 1, 'sm_90a', 'hash1', 'ok', '', 32, 0, 0, 0, 0, 'cubin1', 12.5);
INSERT INTO trials VALUES (1, 1, 'envA', 1, 1, 0, 'ok', '', 4.0, 4.5, 4.2, 4.8, 4.6, 0.3, 4.3, 4.7, 3,
  14.6, 1e-6, 'ci', '2026-11-01T10:30:00Z');
INSERT INTO trials VALUES (2, 2, 'envA', 1, 2, 0, 'wrong_answer', 'row 0 column 3', 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0.5, '', '2026-11-02T10:05:00Z');
INSERT INTO trials VALUES (3, NULL, 'envB', 2, 1, 0, 'ok', '', 2.0, 2.5, 2.2, 2.8, 2.6, 0.2, 2.3, 2.7, 2,
  13.1, 0, 'max_time', '2026-11-03T00:00:00Z');
INSERT INTO samples VALUES (1, 0, 4.5), (1, 1, 4.0), (1, 2, 5.0), (3, 0, 2.5), (3, 1, 2.0);
)sql");
}

// The version 1 columns of every table, in a stable order.
std::string v1_content(raw& db) {
  return db.rows(
             "SELECT id, started_at, finished_at, spec_file, spec_hash, op, mode, state, env_key, gpu_name, "
             "gpu_uuid, sm_count, l2_bytes, cc, driver, cuda_runtime, libraries, git_rev, build_flags, "
             "source_hash, hostname FROM runs ORDER BY id") +
         db.rows("SELECT * FROM problems ORDER BY id") + db.rows("SELECT * FROM configs ORDER BY id") +
         db.rows("SELECT * FROM builds ORDER BY id") +
         db.rows(
             "SELECT id, run_id, env_key, problem_id, config_id, device, status, message, min_us, median_us, "
             "q1_us, q3_us, mean_us, stdev_us, ci_lo_us, ci_hi_us, samples, gbps, max_error, stop_reason, "
             "created_at FROM trials ORDER BY id") +
         db.rows("SELECT trial_id, idx, time_us FROM samples ORDER BY trial_id, idx");
}

class store_v2 : public ::testing::Test {
 protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("cuop-store-v2-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
    m_path = (m_dir / "v1.db").string();
  }
  void TearDown() override { fs::remove_all(m_dir); }
  fs::path m_dir;
  std::string m_path;
};

trial_record make_trial(std::int64_t run, const std::string& env, const std::string& problem_rows,
                        const std::string& instance, double us) {
  trial_record t;
  t.run_id = run;
  t.env_key = env;
  t.problem = {"softmax_f32_" + problem_rows + "x1024", "softmax", "f32",
               R"({"cols":1024,"rows":)" + problem_rows + "}", 65536};
  t.config = {instance, "softmax", "block_row", "f32", cuop::test::block_row_params(instance)};
  t.status = "ok";
  t.median_us = t.min_us = t.q1_us = t.q3_us = t.mean_us = us;
  t.ci_lo_us = us * 0.99;
  t.ci_hi_us = us * 1.01;
  t.samples = 3;
  t.sample_us = {us, us, us};
  t.created_at = "2026-11-30T00:00:00Z";
  return t;
}

}  // namespace

TEST_F(store_v2, a_version_1_database_migrates_keeping_every_row) {
  write_v1_fixture(m_path);
  std::string before;
  {
    raw db(m_path);
    before = v1_content(db);
  }
  ASSERT_NE(before.find("k_b"), std::string::npos);
  {
    auto db = database::open(m_path, open_mode::read_write);
    EXPECT_EQ(db->user_version(), schema_version);
  }
  raw db(m_path);
  EXPECT_EQ(v1_content(db), before);
  EXPECT_EQ(db.rows("PRAGMA user_version"), std::to_string(schema_version) + "\n");
  EXPECT_EQ(db.rows("SELECT state_reason, env_checks FROM runs ORDER BY id"), "|\n|\n");
  EXPECT_EQ(db.rows("SELECT shard, provenance FROM runs ORDER BY id"), "|\n|\n");  // version 3
  EXPECT_EQ(db.rows("SELECT warmup_ms, warmup_cap_ms, warmup_capped, batch, clock_source FROM trials ORDER BY id"),
            "0.0|0|0|1|\n0.0|0|0|1|\n0.0|0|0|1|\n");
  EXPECT_EQ(db.rows("SELECT count(*), sum(sm_clock_mhz) FROM samples"), "5|0.0\n");
  EXPECT_EQ(db.rows("PRAGMA integrity_check"), "ok\n");
  EXPECT_EQ(db.rows("PRAGMA foreign_key_check"), "");
}

TEST_F(store_v2, migrated_rows_read_back_through_the_store) {
  write_v1_fixture(m_path);
  auto db = database::open(m_path, open_mode::read_write);
  trial_filter f;
  f.with_samples = true;
  const auto ts = db->trials(f);
  ASSERT_EQ(ts.size(), 3u);
  const auto& a = ts[1];  // ordered by problem key: f16 first
  EXPECT_EQ(ts[0].problem.key, "softmax_f16_8x1024");
  EXPECT_EQ(a.config.instance, "k_a");
  EXPECT_DOUBLE_EQ(a.median_us, 4.5);
  EXPECT_EQ(a.sample_us, (std::vector<double>{4.5, 4.0, 5.0}));
  EXPECT_EQ(a.sample_clock_mhz, (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(a.batch, 1);
  EXPECT_EQ(a.clock_source, "");
  EXPECT_FALSE(a.warmup_capped);
  const auto runs = db->runs();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[1].state, "interrupted");
  EXPECT_EQ(runs[1].state_reason, "");
  EXPECT_TRUE(db->has_trial("envA", "softmax_f32_8x1024", "k_b"));
}

TEST_F(store_v2, read_only_reads_a_version_1_file_without_writing_it) {
  write_v1_fixture(m_path);
  const auto before = bytes_of(m_path);
  {
    auto db = database::open(m_path, open_mode::read_only);
    EXPECT_EQ(db->user_version(), schema_version);
    EXPECT_EQ(db->trials({}).size(), 3u);
    EXPECT_EQ(db->runs().size(), 2u);
    EXPECT_EQ(db->builds("softmax").size(), 1u);
  }
  EXPECT_EQ(bytes_of(m_path), before);
  EXPECT_FALSE(fs::exists(m_path + "-wal"));
}

TEST_F(store_v2, a_newer_schema_is_still_refused) {
  write_v1_fixture(m_path);
  raw(m_path).exec("PRAGMA user_version = " + std::to_string(schema_version + 1));
  const auto before = bytes_of(m_path);
  const auto expected = m_path + ": database schema " + std::to_string(schema_version + 1) +
                        " is newer than this cuop-tune (" + std::to_string(schema_version) +
                        "); use a newer cuop-tune or another --db";
  EXPECT_EQ(cuop::test::error_of([&] { database::open(m_path, open_mode::read_write); }), expected);
  EXPECT_EQ(cuop::test::error_of([&] { database::open(m_path, open_mode::read_only); }), expected);
  EXPECT_EQ(bytes_of(m_path), before);
}

TEST_F(store_v2, measurement_fields_round_trip) {
  auto db = database::open(m_path, open_mode::read_write);
  run_info run;
  run.op = "softmax";
  run.mode = "measure";
  run.state = "running";
  const auto id = db->begin_run(run);
  auto t = make_trial(id, "env1", "8", "softmax_f32_block_row_vec4_threads256_chunks1", 3.0);
  t.sample_clock_mhz = {1980, 1965, 1980};
  t.warmup_ms = 41.25;
  t.warmup_capped = true;
  t.warmup_cap_ms = 300;
  t.batch = 40;
  t.clock_source = "nvml";
  t.stop_reason = "stable_noise";
  db->put_trial(t);
  db->set_env_checks(id, R"({"after":{"checked":false},"before":{"checked":false}})");
  db->finish_run(id, "invalid", "before the run: 1 other compute process on the GPU (pid 7)");
  trial_filter f;
  f.with_samples = true;
  const auto back = db->trials(f).at(0);
  EXPECT_EQ(back.sample_clock_mhz, t.sample_clock_mhz);
  EXPECT_DOUBLE_EQ(back.warmup_ms, 41.25);
  EXPECT_TRUE(back.warmup_capped);
  EXPECT_EQ(back.warmup_cap_ms, 300);
  EXPECT_EQ(back.batch, 40);
  EXPECT_EQ(back.clock_source, "nvml");
  EXPECT_EQ(back.stop_reason, "stable_noise");
  const auto r = db->run(id);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->state, "invalid");
  EXPECT_EQ(r->state_reason, "before the run: 1 other compute process on the GPU (pid 7)");
  EXPECT_EQ(r->env_checks, R"({"after":{"checked":false},"before":{"checked":false}})");
  EXPECT_EQ(cuop::test::error_of([&] { db->set_env_checks(id + 5, "{}"); }),
            m_path + ": set_env_checks: no run with id " + std::to_string(id + 5));
}

TEST_F(store_v2, the_batch_survives_export_and_loading_for_compare) {
  auto db = database::open(m_path, open_mode::read_write);
  run_info run;
  run.op = "softmax";
  run.mode = "measure";
  run.state = "running";
  run.env.gpu_name = "NVIDIA H200";
  run.env.cc = 90;
  const auto id = db->begin_run(run);
  auto batched = make_trial(id, run.env.key(), "8", "softmax_f32_block_row_vec4_threads256_chunks1", 3.0);
  batched.batch = 241;
  db->put_trial(batched);
  db->put_trial(
      make_trial(id, run.env.key(), "16", "softmax_f32_block_row_vec4_threads256_chunks1", 5.0));  // single launches
  db->finish_run(id, "finished");
  const auto dir = std::filesystem::path(m_path).parent_path() / "exported";
  const auto files = cuop::results::export_results(*db, "softmax", dir.string());
  ASSERT_EQ(files.size(), 1u);
  const auto text = cuop::core::read_file(files[0]).value_or("");
  EXPECT_NE(text.find("\"batch\":241"), std::string::npos);
  EXPECT_EQ(text.find("\"batch\":1,"), std::string::npos);  // single launches: no field, as before
  const auto f = cuop::results::read_results_file(files[0]);
  ASSERT_EQ(f.trials.size(), 2u);
  for (const auto& t : f.trials) EXPECT_EQ(t.batch, t.problem == "softmax_f32_8x1024" ? 241 : 1) << t.problem;
  db.reset();
  for (const auto& path : {m_path, dir.string()}) {
    const auto set = cuop::gate::load_result_set(path, {});
    ASSERT_EQ(set.trials.size(), 2u) << path;
    for (const auto& t : set.trials) EXPECT_EQ(t.batch, t.problem == "softmax_f32_8x1024" ? 241 : 1) << path;
  }
  std::filesystem::remove_all(dir);
}

TEST_F(store_v2, trials_of_invalid_runs_are_not_trusted) {
  const std::string k_slow = "softmax_f32_block_row_vec4_threads128_chunks1",
                    k_fast = "softmax_f32_block_row_vec4_threads512_chunks1";
  auto db = database::open(m_path, open_mode::read_write);
  run_info run;
  run.op = "softmax";
  run.mode = "measure";
  run.state = "running";
  run.started_at = "2026-11-30T00:00:00Z";
  run.env.gpu_name = "NVIDIA H200";
  run.env.cc = 90;
  const auto env = run.env.key();
  const auto good = db->begin_run(run);
  db->put_trial(make_trial(good, env, "8", k_slow, 10.0));
  db->finish_run(good, "finished");
  const auto bad = db->begin_run(run);
  db->put_trial(make_trial(bad, env, "8", k_fast, 5.0));   // faster, measured beside another process
  db->put_trial(make_trial(bad, env, "16", k_slow, 7.0));  // a problem only the bad run measured
  db->finish_run(bad, "invalid", "before the run: 1 other compute process on the GPU (pid 7)");

  // Resume measures them again.
  EXPECT_TRUE(db->has_trial(env, "softmax_f32_8x1024", k_slow));
  EXPECT_FALSE(db->has_trial(env, "softmax_f32_8x1024", k_fast));
  EXPECT_FALSE(db->has_trial(env, "softmax_f32_16x1024", k_slow));

  // export (and so emit, which reads its files, and compare, which selects alike) skips them.
  const auto current = cuop::results::current_trials(*db, "softmax", false);
  ASSERT_EQ(current.size(), 1u);
  const auto& h200 = current.at("nvidia-h200");
  ASSERT_EQ(h200.trials.size(), 1u);
  EXPECT_EQ(h200.trials[0].config.instance, k_slow);
  EXPECT_EQ(h200.runs.size(), 1u);
  const auto winners = cuop::results::winners(h200.trials);
  EXPECT_EQ(winners.at("softmax_f32_8x1024")->config.instance, k_slow);

  // A run that is entirely invalid leaves no results file at all.
  const auto dir = (m_dir / "results").string();
  const auto paths = cuop::results::export_results(*db, "softmax", dir);
  ASSERT_EQ(paths.size(), 1u);
  const auto file = cuop::results::read_results_file(paths[0]);
  ASSERT_EQ(file.trials.size(), 1u);
  EXPECT_EQ(file.trials[0].instance, k_slow);
  ASSERT_EQ(file.runs.size(), 1u);
  EXPECT_EQ(file.runs[0].id, good);

  // Re-measured in a valid run, the trial replaces the invalid one and counts again.
  const auto again = db->begin_run(run);
  db->put_trial(make_trial(again, env, "8", k_fast, 5.5));
  db->finish_run(again, "finished");
  EXPECT_TRUE(db->has_trial(env, "softmax_f32_8x1024", k_fast));
  const auto now = cuop::results::current_trials(*db, "softmax", false).at("nvidia-h200");
  EXPECT_EQ(cuop::results::winners(now.trials).at("softmax_f32_8x1024")->config.instance, k_fast);
}
