// The SQLite store: schema and migrations, open modes and their errors, round trips, resume,
// crash safety (a writer killed mid-transaction) and WAL concurrency.
#include <gtest/gtest.h>

#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>
#include "test_support.hpp"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "tuner/core/error.hpp"
#include "tuner/core/hash.hpp"
#include "tuner/store/migrations.hpp"
#include "tuner/store/sqlite_database.hpp"
#include "tuner/store/store.hpp"

namespace fs = std::filesystem;
using namespace cuop::store;

namespace {

// Raw access, independent of the code under test.
class raw_db {
 public:
  explicit raw_db(const std::string& path, int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) {
    if (sqlite3_open_v2(path.c_str(), &m_db, flags, nullptr) != SQLITE_OK)
      throw std::runtime_error("raw open failed: " + path);
  }
  ~raw_db() { sqlite3_close_v2(m_db); }
  void exec(const std::string& sql) {
    char* err = nullptr;
    if (sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
      std::string msg = err ? err : "?";
      sqlite3_free(err);
      throw std::runtime_error("raw exec failed: " + msg + " in: " + sql);
    }
  }
  std::string text(const std::string& sql) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &s, nullptr) != SQLITE_OK)
      throw std::runtime_error(std::string("raw prepare failed: ") + sqlite3_errmsg(m_db));
    std::string out;
    if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
      out = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
    return out;
  }
  long long number(const std::string& sql) { return std::stoll(text(sql)); }

 private:
  sqlite3* m_db = nullptr;
};

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

trial_record make_trial(const std::string& env_key, int rows, const std::string& instance, double median,
                        std::vector<double> samples = {1.0, 2.0, 3.0}) {
  trial_record t;
  t.env_key = env_key;
  t.problem = {"softmax_f16_" + std::to_string(rows) + "x1024", "softmax", "f16",
               "{\"rows\":" + std::to_string(rows) + ",\"cols\":1024}", rows * 1024.0 * 2 * 2};
  t.config = {instance, "softmax", "block_row", "f16", "{\"vec\":4,\"chunks\":2}"};
  t.device = 0;
  t.status = "ok";
  t.min_us = median - 1;
  t.median_us = median;
  t.q1_us = median - 0.5;
  t.q3_us = median + 0.5;
  t.mean_us = median + 0.1;
  t.stdev_us = 0.25;
  t.ci_lo_us = median - 0.2;
  t.ci_hi_us = median + 0.2;
  t.samples = static_cast<int>(samples.size());
  t.gbps = 1234.5;
  t.max_error = 1e-3;
  t.stop_reason = "ci";
  t.created_at = "2026-11-30T13:05:00Z";
  t.sample_us = std::move(samples);
  return t;
}

environment make_env() {
  environment e;
  e.gpu_name = "NVIDIA H200";
  e.gpu_uuid = "GPU-1234";
  e.sm_count = 132;
  e.l2_bytes = 62914560;
  e.cc = 90;
  e.driver = "580.159.04";
  e.cuda_runtime = "13.0";
  e.libraries = "cublasLt 13.0.0";
  e.git_rev = "abc123";
  e.build_flags = "-O3";
  e.source_hash = "deadbeef";
  e.hostname = "node1";
  return e;
}

using cuop::test::error_of;

class store_test : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "cuop_store_XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    m_dir = tmpl;
    m_path = (m_dir / "tune.db").string();
  }
  void TearDown() override {
    detail::put_trial_before_commit = nullptr;
    std::error_code ec;
    fs::remove_all(m_dir, ec);
  }
  std::unique_ptr<database> open_rw() { return database::open(m_path, open_mode::read_write); }
  std::unique_ptr<database> open_ro() { return database::open(m_path, open_mode::read_only); }

  fs::path m_dir;
  std::string m_path;
};

}  // namespace

TEST(hash, fnv1a_known_vectors) {
  EXPECT_EQ(cuop::fnv1a_hex(""), "cbf29ce484222325");
  EXPECT_EQ(cuop::fnv1a_hex("a"), "af63dc4c8601ec8c");
  EXPECT_EQ(cuop::fnv1a_hex("foobar"), "85944171f73967e8");
}

TEST(environment_key, depends_on_fingerprint_fields_only) {
  const environment e = make_env();
  const std::string k = e.key();
  EXPECT_TRUE(std::regex_match(k, std::regex("[0-9a-f]{16}"))) << k;
  EXPECT_EQ(k, make_env().key());

  environment other_host = e;
  other_host.hostname = "node2";
  other_host.gpu_name = "renamed";
  other_host.git_rev = "fff";
  EXPECT_EQ(other_host.key(), k);  // not part of the fingerprint

  for (std::string environment::*field : {&environment::gpu_uuid, &environment::driver, &environment::cuda_runtime,
                                          &environment::build_flags, &environment::source_hash}) {
    environment changed = e;
    changed.*field += "x";
    EXPECT_NE(changed.key(), k);
  }
  // Field boundaries matter: moving a character between two fields changes the key.
  environment shifted = e;
  shifted.gpu_uuid = "GPU-123";
  shifted.driver = "4580.159.04";
  EXPECT_NE(shifted.key(), k);
}

TEST(utc_now, is_iso8601_utc) {
  EXPECT_TRUE(std::regex_match(utc_now(), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)"))) << utc_now();
}

TEST(migrations, one_step_per_version_in_order) {
  const auto steps = detail::migrations();
  ASSERT_EQ(static_cast<int>(steps.size()), schema_version);
  for (std::size_t i = 0; i < steps.size(); ++i) EXPECT_EQ(steps[i].to_version, int(i) + 1);
}

TEST_F(store_test, creates_and_migrates_a_new_file) {
  ASSERT_FALSE(fs::exists(m_path));
  {
    auto db = open_rw();
    EXPECT_EQ(db->user_version(), schema_version);
  }
  raw_db raw(m_path);
  EXPECT_EQ(raw.number("PRAGMA user_version"), schema_version);
  EXPECT_EQ(raw.text("PRAGMA journal_mode"), "wal");
  EXPECT_EQ(raw.number("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN "
                       "('runs','problems','configs','builds','trials','samples')"),
            6);
}

TEST_F(store_test, migrates_an_empty_file) {
  std::ofstream(m_path).close();
  ASSERT_EQ(fs::file_size(m_path), 0u);
  auto db = open_rw();
  EXPECT_EQ(db->user_version(), schema_version);
  EXPECT_TRUE(db->trials({}).empty());
}

TEST_F(store_test, reopen_keeps_data_and_does_not_migrate_again) {
  {
    auto db = open_rw();
    db->put_trial(make_trial("env1", 1024, "k_a", 10.0));
  }
  auto db = open_rw();
  EXPECT_EQ(db->user_version(), schema_version);
  const auto ts = db->trials({});
  ASSERT_EQ(ts.size(), 1u);
  EXPECT_EQ(ts[0].config.instance, "k_a");
  EXPECT_DOUBLE_EQ(ts[0].median_us, 10.0);
}

TEST_F(store_test, newer_schema_is_rejected_and_file_left_untouched) {
  {
    raw_db raw(m_path);
    raw.exec(
        "CREATE TABLE future (x INTEGER); INSERT INTO future VALUES (42);"
        "PRAGMA user_version = 7");
  }
  const std::string before = read_bytes(m_path);
  ASSERT_FALSE(before.empty());
  const std::string expected = m_path + ": database schema 7 is newer than this cuop-tune (" +
                               std::to_string(schema_version) + "); use a newer cuop-tune or another --db";
  EXPECT_EQ(error_of([&] { open_rw(); }), expected);
  EXPECT_EQ(error_of([&] { open_ro(); }), expected);
  EXPECT_EQ(read_bytes(m_path), before);
  EXPECT_FALSE(fs::exists(m_path + "-wal"));
}

TEST_F(store_test, read_only_open_of_missing_file_fails_and_creates_nothing) {
  EXPECT_EQ(error_of([&] { open_ro(); }), m_path + ": no such database file");
  EXPECT_FALSE(fs::exists(m_path));
}

TEST_F(store_test, read_only_reads_an_older_schema_through_an_upgraded_copy_and_never_writes_it) {
  {
    raw_db raw(m_path);
    raw.exec(detail::schema_v1_sql);  // as the first release wrote it
    raw.exec("PRAGMA user_version = 1");
  }
  const std::string before = read_bytes(m_path);
  {
    auto ro = open_ro();  // the copy in memory is migrated, the file is not
    EXPECT_EQ(ro->user_version(), schema_version);
    EXPECT_TRUE(ro->trials({}).empty());
    EXPECT_EQ(error_of([&] { ro->put_trial(make_trial("env1", 1024, "k_a", 1.0)); }),
              m_path + ": put_trial: database is open read-only");
  }
  EXPECT_EQ(read_bytes(m_path), before);
  EXPECT_EQ(raw_db(m_path).number("PRAGMA user_version"), 1);

  open_rw();  // upgrades the file itself
  EXPECT_EQ(raw_db(m_path).number("PRAGMA user_version"), schema_version);
  EXPECT_EQ(open_ro()->user_version(), schema_version);
}

// A SQLite file at user_version 0 with tables is someone else's database: neither mode adds ours
// to it, and it stays as it was. An empty one (0 bytes, or no tables) is no database to read, but a
// read-write open initialises it (SQLite's convention: an empty file is an empty database).
TEST_F(store_test, a_database_of_something_else_is_refused_and_an_empty_one_initialised_read_write) {
  {
    raw_db raw(m_path);
    raw.exec("CREATE TABLE legacy (x INTEGER)");
  }
  const std::string before = read_bytes(m_path);
  const std::string expected =
      m_path + ": not a cuop-tune database (a SQLite database of something else, with tables legacy)";
  EXPECT_EQ(error_of([&] { open_ro(); }), expected);
  EXPECT_EQ(error_of([&] { open_rw(); }), expected);
  EXPECT_EQ(read_bytes(m_path), before);

  fs::remove(m_path);
  std::ofstream(m_path).close();  // 0 bytes
  EXPECT_EQ(error_of([&] { open_ro(); }), m_path + ": not a cuop-tune database (an empty file)");
  EXPECT_EQ(fs::file_size(m_path), 0u);
  EXPECT_EQ(open_rw()->user_version(), schema_version);
  EXPECT_TRUE(open_ro()->runs().empty());
}

TEST_F(store_test, read_only_cannot_write_but_can_read) {
  {
    auto db = open_rw();
    db->put_trial(make_trial("env1", 1024, "k_a", 10.0));
  }
  auto ro = open_ro();
  EXPECT_EQ(ro->trials({}).size(), 1u);
  EXPECT_TRUE(ro->has_trial("env1", "softmax_f16_1024x1024", "k_a"));
  const std::string msg = error_of([&] { ro->put_trial(make_trial("env1", 2048, "k_b", 5.0)); });
  EXPECT_EQ(msg, m_path + ": put_trial: database is open read-only");
  EXPECT_NE(error_of([&] { ro->begin_run({}); }).find("read-only"), std::string::npos);
  EXPECT_NE(error_of([&] { ro->put_build({"k_a", "sm_90a", "h", "ok"}); }).find("read-only"), std::string::npos);
  EXPECT_EQ(ro->trials({}).size(), 1u);
}

TEST_F(store_test, trial_round_trip_with_samples) {
  auto db = open_rw();
  environment env = make_env();
  const std::int64_t run_id = db->begin_run({0, "", "", "configs/softmax.yaml", "h", "softmax", "measure", "", env});
  trial_record t = make_trial(env.key(), 4096, "softmax_f16_block_row_v4_c2", 12.5, {12.0, 12.5, 13.25, 12.75});
  t.run_id = run_id;
  t.device = 1;
  t.message = "fine";
  const std::int64_t id = db->put_trial(t);
  EXPECT_GT(id, 0);

  const auto got = db->trials({.with_samples = true});
  ASSERT_EQ(got.size(), 1u);
  const trial_record& g = got[0];
  EXPECT_EQ(g.id, id);
  EXPECT_EQ(g.run_id, run_id);
  EXPECT_EQ(g.env_key, t.env_key);
  EXPECT_EQ(g.problem.key, t.problem.key);
  EXPECT_EQ(g.problem.op, "softmax");
  EXPECT_EQ(g.problem.dtype, "f16");
  EXPECT_EQ(g.problem.dims_json, t.problem.dims_json);
  EXPECT_DOUBLE_EQ(g.problem.bytes, t.problem.bytes);
  EXPECT_EQ(g.config.instance, t.config.instance);
  EXPECT_EQ(g.config.family, "block_row");
  EXPECT_EQ(g.config.params_json, t.config.params_json);
  EXPECT_EQ(g.device, 1);
  EXPECT_EQ(g.status, "ok");
  EXPECT_EQ(g.message, "fine");
  EXPECT_DOUBLE_EQ(g.min_us, t.min_us);
  EXPECT_DOUBLE_EQ(g.median_us, 12.5);
  EXPECT_DOUBLE_EQ(g.q1_us, t.q1_us);
  EXPECT_DOUBLE_EQ(g.q3_us, t.q3_us);
  EXPECT_DOUBLE_EQ(g.mean_us, t.mean_us);
  EXPECT_DOUBLE_EQ(g.stdev_us, t.stdev_us);
  EXPECT_DOUBLE_EQ(g.ci_lo_us, t.ci_lo_us);
  EXPECT_DOUBLE_EQ(g.ci_hi_us, t.ci_hi_us);
  EXPECT_EQ(g.samples, 4);
  EXPECT_DOUBLE_EQ(g.gbps, t.gbps);
  EXPECT_DOUBLE_EQ(g.max_error, t.max_error);
  EXPECT_EQ(g.stop_reason, "ci");
  EXPECT_EQ(g.created_at, "2026-11-30T13:05:00Z");
  EXPECT_EQ(g.sample_us, t.sample_us);

  EXPECT_TRUE(db->trials({}).at(0).sample_us.empty());  // samples only when asked
}

TEST_F(store_test, created_at_defaults_to_now_and_run_id_zero_is_no_run) {
  auto db = open_rw();
  trial_record t = make_trial("env1", 1024, "k_a", 1.0);
  t.created_at.clear();
  db->put_trial(t);
  const auto g = db->trials({}).at(0);
  EXPECT_TRUE(std::regex_match(g.created_at, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
  EXPECT_EQ(g.run_id, 0);
}

TEST_F(store_test, trial_of_unknown_run_is_rejected_by_foreign_key) {
  auto db = open_rw();
  trial_record t = make_trial("env1", 1024, "k_a", 1.0);
  t.run_id = 999;
  const std::string msg = error_of([&] { db->put_trial(t); });
  EXPECT_NE(msg.find(m_path + ": put_trial: FOREIGN KEY constraint failed"), std::string::npos) << msg;
  EXPECT_TRUE(db->trials({}).empty());
}

TEST_F(store_test, same_key_replaces_the_trial_and_its_samples) {
  auto db = open_rw();
  const std::int64_t first = db->put_trial(make_trial("env1", 1024, "k_a", 10.0, {1, 2, 3, 4}));
  const std::int64_t second = db->put_trial(make_trial("env1", 1024, "k_a", 8.0, {7, 8}));
  EXPECT_NE(first, second);
  db->put_trial(make_trial("env2", 1024, "k_a", 9.0));  // other environment: kept apart

  const auto ts = db->trials({.env_key = "env1", .with_samples = true});
  ASSERT_EQ(ts.size(), 1u);
  EXPECT_EQ(ts[0].id, second);
  EXPECT_DOUBLE_EQ(ts[0].median_us, 8.0);
  EXPECT_EQ(ts[0].sample_us, (std::vector<double>{7, 8}));
  EXPECT_EQ(db->trials({}).size(), 2u);
  db.reset();

  raw_db raw(m_path);
  EXPECT_EQ(raw.number("SELECT count(*) FROM samples WHERE trial_id = " + std::to_string(first)), 0);
  EXPECT_EQ(raw.number("SELECT count(*) FROM problems"), 1);
  EXPECT_EQ(raw.number("SELECT count(*) FROM configs"), 1);
}

TEST_F(store_test, failed_put_trial_rolls_back_and_keeps_the_old_trial) {
  auto db = open_rw();
  db->put_trial(make_trial("env1", 1024, "k_a", 10.0, {1, 2, 3}));
  // A NaN sample violates samples.time_us NOT NULL after the old trial was already deleted and
  // the new one inserted: everything must roll back.
  trial_record bad = make_trial("env1", 1024, "k_a", 5.0, {4, std::nan(""), 6});
  bad.config.family = "changed";
  const std::string msg = error_of([&] { db->put_trial(bad); });
  EXPECT_NE(msg.find(m_path + ": put_trial: NOT NULL constraint failed"), std::string::npos) << msg;

  const auto ts = db->trials({.with_samples = true});
  ASSERT_EQ(ts.size(), 1u);
  EXPECT_DOUBLE_EQ(ts[0].median_us, 10.0);
  EXPECT_EQ(ts[0].config.family, "block_row");
  EXPECT_EQ(ts[0].sample_us, (std::vector<double>{1, 2, 3}));
  // The connection is usable again (no transaction left open).
  db->put_trial(make_trial("env1", 2048, "k_a", 3.0));
  EXPECT_EQ(db->trials({}).size(), 2u);
}

TEST_F(store_test, has_trial_drives_resume) {
  auto db = open_rw();
  const std::string p = "softmax_f16_1024x1024";
  EXPECT_FALSE(db->has_trial("env1", p, "k_a"));
  db->put_trial(make_trial("env1", 1024, "k_a", 10.0));
  EXPECT_TRUE(db->has_trial("env1", p, "k_a"));
  EXPECT_FALSE(db->has_trial("env2", p, "k_a"));
  EXPECT_FALSE(db->has_trial("env1", p, "k_b"));
  EXPECT_FALSE(db->has_trial("env1", "softmax_f16_2048x1024", "k_a"));

  trial_record crashed = make_trial("env1", 1024, "k_b", 0);
  crashed.status = "crashed";
  crashed.message = "illegal memory access";
  db->put_trial(crashed);
  EXPECT_TRUE(db->has_trial("env1", p, "k_b"));  // failures are final too

  trial_record pending = make_trial("env1", 1024, "k_c", 0);
  pending.status = "running";  // not a final status
  db->put_trial(pending);
  EXPECT_FALSE(db->has_trial("env1", p, "k_c"));
}

TEST_F(store_test, trials_filter_and_order) {
  auto db = open_rw();
  // Inserted out of order; read back ordered by problem key, then instance.
  db->put_trial(make_trial("env1", 4096, "k_b", 4.0));
  db->put_trial(make_trial("env1", 4096, "k_a", 3.0));
  db->put_trial(make_trial("env1", 1024, "k_b", 2.0));
  trial_record wrong = make_trial("env1", 1024, "k_a", 1.0);
  wrong.status = "wrong_answer";
  db->put_trial(wrong);
  trial_record other = make_trial("env2", 1024, "k_z", 1.0);
  other.problem.op = "gemm";
  other.problem.key = "gemm_f16_1x1x1";
  db->put_trial(other);

  std::vector<std::string> order;
  for (const auto& t : db->trials({.env_key = "env1"})) order.push_back(t.problem.key + "/" + t.config.instance);
  EXPECT_EQ(order, (std::vector<std::string>{"softmax_f16_1024x1024/k_a", "softmax_f16_1024x1024/k_b",
                                             "softmax_f16_4096x1024/k_a", "softmax_f16_4096x1024/k_b"}));

  EXPECT_EQ(db->trials({.env_key = "env1", .ok_only = true}).size(), 3u);
  EXPECT_EQ(db->trials({.op = "softmax"}).size(), 4u);
  ASSERT_EQ(db->trials({.op = "gemm"}).size(), 1u);
  EXPECT_EQ(db->trials({.op = "gemm"})[0].config.instance, "k_z");
  EXPECT_EQ(db->trials({}).size(), 5u);
}

TEST_F(store_test, trials_filter_by_run) {
  auto db = open_rw();
  const auto r1 = db->begin_run({});
  const auto r2 = db->begin_run({});
  trial_record a = make_trial("env1", 1024, "k_a", 1.0);
  a.run_id = r1;
  trial_record b = make_trial("env1", 1024, "k_b", 1.0);
  b.run_id = r2;
  db->put_trial(a);
  db->put_trial(b);
  const auto in_r2 = db->trials({.run_id = r2});
  ASSERT_EQ(in_r2.size(), 1u);
  EXPECT_EQ(in_r2[0].config.instance, "k_b");
}

TEST_F(store_test, builds_upsert_and_join_configs) {
  auto db = open_rw();
  db->put_config({"softmax_k1", "softmax", "block_row", "f16", "{\"vec\":4}"});
  build_record b{"softmax_k1", "sm_90a", "src1", "ok", "", 32, 1024, 0, 0, 0, "cub1", 150.0};
  db->put_build(b);
  b.registers = 40;
  b.compile_ms = 90.0;
  db->put_build(b);  // same (instance, target, source_hash): updated
  build_record other = b;
  other.target = "sm_80";
  other.status = "over_limit";
  other.message = "too many registers";
  db->put_build(other);

  auto bs = db->builds("softmax");
  ASSERT_EQ(bs.size(), 2u);
  EXPECT_EQ(bs[0].target, "sm_80");  // ordered by instance, target
  EXPECT_EQ(bs[0].status, "over_limit");
  EXPECT_EQ(bs[0].message, "too many registers");
  EXPECT_EQ(bs[1].target, "sm_90a");
  EXPECT_EQ(bs[1].registers, 40);
  EXPECT_DOUBLE_EQ(bs[1].compile_ms, 90.0);
  EXPECT_EQ(bs[1].smem_static, 1024);
  EXPECT_EQ(bs[1].cubin_hash, "cub1");
  EXPECT_TRUE(db->builds("gemm").empty());
  EXPECT_EQ(db->builds("").size(), 2u);

  // A build stored before its configuration gets a stub config; the op arrives later.
  db->put_build({"softmax_k2", "sm_90a", "src1", "compile_error", "error: x"});
  EXPECT_EQ(db->builds("softmax").size(), 2u);
  EXPECT_EQ(db->builds("").size(), 3u);
  db->put_trial(make_trial("env1", 1024, "softmax_k2", 1.0));
  EXPECT_EQ(db->builds("softmax").size(), 3u);
}

TEST_F(store_test, config_upsert_keeps_known_fields) {
  auto db = open_rw();
  db->put_config({"k_a", "softmax", "block_row", "f16", "{\"vec\":4}"});
  db->put_config({"k_a", "", "", "", ""});  // an instance alone does not erase what is known
  db->put_trial(make_trial("env1", 1024, "k_a", 1.0));
  const auto t = db->trials({}).at(0);
  EXPECT_EQ(t.config.op, "softmax");
  EXPECT_EQ(t.config.params_json, "{\"vec\":4,\"chunks\":2}");  // the trial's own, non-empty
}

TEST_F(store_test, runs_begin_and_finish) {
  auto db = open_rw();
  run_info r;
  r.spec_file = "configs/softmax.yaml";
  r.spec_hash = "abcd";
  r.op = "softmax";
  r.mode = "measure";
  r.env = make_env();
  const std::int64_t id = db->begin_run(r);
  auto got = db->run(id);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->state, "running");
  EXPECT_TRUE(got->finished_at.empty());
  EXPECT_TRUE(std::regex_match(got->started_at, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
  EXPECT_EQ(got->spec_file, "configs/softmax.yaml");
  EXPECT_EQ(got->mode, "measure");
  EXPECT_EQ(got->env.gpu_name, "NVIDIA H200");
  EXPECT_EQ(got->env.gpu_uuid, "GPU-1234");
  EXPECT_EQ(got->env.sm_count, 132);
  EXPECT_EQ(got->env.l2_bytes, 62914560);
  EXPECT_EQ(got->env.cc, 90);
  EXPECT_EQ(got->env.libraries, "cublasLt 13.0.0");
  EXPECT_EQ(got->env.hostname, "node1");
  EXPECT_EQ(got->env.key(), r.env.key());

  db->finish_run(id, "finished");
  got = db->run(id);
  EXPECT_EQ(got->state, "finished");
  EXPECT_FALSE(got->finished_at.empty());

  const std::int64_t id2 = db->begin_run({});
  const auto all = db->runs();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].id, id);
  EXPECT_EQ(all[1].id, id2);
  EXPECT_FALSE(db->run(id2 + 100).has_value());
  EXPECT_EQ(error_of([&] { db->finish_run(id2 + 100, "finished"); }),
            m_path + ": finish_run: no run with id " + std::to_string(id2 + 100));

  raw_db raw(m_path);
  EXPECT_EQ(raw.text("SELECT env_key FROM runs WHERE id = " + std::to_string(id)), r.env.key());
}

// A writer killed with SIGKILL in the middle of a large put_trial transaction (uncommitted pages
// already spilled into the WAL) loses only that trial.
TEST_F(store_test, killed_writer_loses_only_its_open_transaction) {
  constexpr int committed = 5;
  const pid_t pid = fork();
  ASSERT_NE(pid, -1);
  if (pid == 0) {
    try {
      auto db = open_rw();
      db->begin_run({});
      for (int i = 0; i < committed; ++i) db->put_trial(make_trial("env1", 1024, "k_" + std::to_string(i), 1.0 + i));
      detail::put_trial_before_commit = [] { raise(SIGKILL); };
      std::vector<double> many(300000, 2.5);  // far more than the page cache holds
      db->put_trial(make_trial("env1", 1024, "k_partial", 9.0, std::move(many)));
    } catch (...) {
    }
    _exit(3);  // reaching here means the kill did not happen
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "child exited with " << WEXITSTATUS(status);
  ASSERT_EQ(WTERMSIG(status), SIGKILL);
  // The uncommitted trial did reach the WAL file: recovery has something to discard.
  ASSERT_TRUE(fs::exists(m_path + "-wal"));
  EXPECT_GT(fs::file_size(m_path + "-wal"), 1u << 20);

  auto db = open_rw();
  const auto ts = db->trials({.with_samples = true});
  ASSERT_EQ(ts.size(), static_cast<std::size_t>(committed));
  for (int i = 0; i < committed; ++i) {
    EXPECT_EQ(ts[i].config.instance, "k_" + std::to_string(i));
    EXPECT_EQ(ts[i].sample_us.size(), 3u);
  }
  EXPECT_FALSE(db->has_trial("env1", "softmax_f16_1024x1024", "k_partial"));
  const auto runs = db->runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].state, "running");  // never finished: the caller marks it interrupted
  db.reset();

  raw_db raw(m_path);
  EXPECT_EQ(raw.text("PRAGMA integrity_check"), "ok");
  EXPECT_EQ(raw.number("SELECT count(*) FROM samples"), committed * 3);
  EXPECT_EQ(raw.number("SELECT count(*) FROM configs WHERE instance = 'k_partial'"), 0);
}

TEST_F(store_test, random_bytes_are_not_a_database) {
  std::mt19937 rng(42);
  std::string junk(8192, '\0');
  for (char& c : junk) c = static_cast<char>(rng());
  std::ofstream(m_path, std::ios::binary) << junk;
  for (open_mode mode : {open_mode::read_write, open_mode::read_only}) {
    const std::string msg = error_of([&] { database::open(m_path, mode); });
    EXPECT_EQ(msg.rfind(m_path + ": ", 0), 0u) << msg;
    EXPECT_NE(msg.find("file is not a database"), std::string::npos) << msg;
  }
  EXPECT_EQ(read_bytes(m_path), junk);
}

TEST_F(store_test, damaged_schema_page_is_reported_with_the_path) {
  {
    auto db = open_rw();
    db->put_trial(make_trial("env1", 1024, "k_a", 1.0));
  }  // last connection closed: WAL checkpointed into the main file
  ASSERT_FALSE(fs::exists(m_path + "-wal"));
  {
    std::fstream f(m_path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);  // after the 100-byte header: the sqlite_schema b-tree page
    const std::string garbage(3000, '\xa5');
    f.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  const std::string msg = error_of([&] { open_rw()->trials({}); });
  EXPECT_EQ(msg.rfind(m_path + ": ", 0), 0u) << msg;
  EXPECT_NE(msg.find("malformed"), std::string::npos) << msg;
}

TEST_F(store_test, locked_database_reports_the_other_process) {
  open_rw()->put_trial(make_trial("env1", 1024, "k_a", 1.0));
  raw_db other(m_path);
  other.exec("BEGIN IMMEDIATE; INSERT INTO runs (started_at, state, env_key) VALUES ('x','x','x')");

  auto db = database::open(m_path, open_mode::read_write, 100);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(error_of([&] { db->put_trial(make_trial("env1", 2048, "k_b", 1.0)); }),
            m_path + ": database is locked by another process");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(3));
  EXPECT_EQ(db->trials({}).size(), 1u);  // WAL: reading is not blocked by the writer

  other.exec("COMMIT");
  db->put_trial(make_trial("env1", 2048, "k_b", 1.0));
  EXPECT_EQ(db->trials({}).size(), 2u);
}

TEST_F(store_test, reader_sees_the_last_commit_while_a_write_is_in_progress) {
  auto db = open_rw();
  db->put_trial(make_trial("env1", 1024, "k_a", 1.0));

  auto reader = open_ro();
  std::size_t seen_during = 0;
  bool reader_failed = false;
  detail::put_trial_before_commit = [&] {
    try {
      seen_during = reader->trials({.with_samples = true}).size();
    } catch (const cuop::error&) {
      reader_failed = true;
    }
  };
  db->put_trial(make_trial("env1", 2048, "k_b", 2.0, std::vector<double>(50000, 1.0)));
  detail::put_trial_before_commit = nullptr;

  EXPECT_FALSE(reader_failed);
  EXPECT_EQ(seen_during, 1u);                // the open write is invisible...
  EXPECT_EQ(reader->trials({}).size(), 2u);  // ...until committed
  EXPECT_TRUE(reader->has_trial("env1", "softmax_f16_2048x1024", "k_b"));
}
