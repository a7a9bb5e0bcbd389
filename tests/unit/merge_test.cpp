// Scale-out without a GPU: `sweep --shard K/N` partitions configurations (every one in exactly one
// shard), and `merge` combines databases without duplicates, resolving conflicts by environment,
// validity and recency, keeping provenance, refusing a newer schema before writing anything.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <set>
#include <string>

#include "test_support.hpp"
#include "tuner/runner/shard.hpp"
#include "tuner/store/merge.hpp"
#include "tuner/store/store.hpp"

namespace {

using namespace cuop;
using store::database;
using store::open_mode;

struct merge_files : test::scratch {
  merge_files() : test::scratch("cuop-merge-test") {}
};

store::trial_record trial(std::int64_t run, const store::environment& env, const std::string& instance, double us,
                          const std::string& created_at) {
  store::trial_record t;
  t.run_id = run;
  t.env_key = env.key();
  t.problem = {"softmax_f32_8x1024", "softmax", "f32", R"({"cols":1024,"rows":8})", 65536};
  t.config = {instance, "softmax", "block_row", "f32", R"({"block_threads":256,"chunks":1,"vec":4})"};
  t.status = "ok";
  t.median_us = t.min_us = t.q1_us = t.q3_us = t.mean_us = us;
  t.ci_lo_us = us * 0.99;
  t.ci_hi_us = us * 1.01;
  t.samples = 3;
  t.sample_us = {us, us, us};
  t.created_at = created_at;
  return t;
}

store::environment gpu(const std::string& uuid) {
  store::environment e;
  e.gpu_name = "NVIDIA H200";
  e.gpu_uuid = uuid;
  e.cc = 90;
  e.hostname = "node-" + uuid;
  return e;
}

// One finished (or `state`) run on `env` holding `trials` (instance, median, created_at).
void write_db(const std::string& path, const store::environment& env, const std::string& started,
              const std::vector<std::tuple<std::string, double, std::string>>& trials,
              const std::string& state = "finished", const std::string& shard = "") {
  auto db = database::open(path, open_mode::read_write);
  store::run_info r;
  r.started_at = started;
  r.op = "softmax";
  r.mode = "measure";
  r.state = "running";
  r.env = env;
  r.shard = shard;
  const auto id = db->begin_run(r);
  for (const auto& [instance, us, created] : trials) db->put_trial(trial(id, env, instance, us, created));
  store::build_record b;
  b.instance = std::get<0>(trials.front());
  b.target = "sm_90a";
  b.source_hash = "src";
  b.status = "ok";
  db->put_build(b);
  db->finish_run(id, state);
}

double median_of(database& db, const std::string& instance, const std::string& env_key) {
  for (const auto& t : db.trials({}))
    if (t.config.instance == instance && t.env_key == env_key) return t.median_us;
  return -1;
}

}  // namespace

TEST(shard, every_configuration_is_in_exactly_one_shard) {
  for (int n : {1, 2, 3, 7}) {
    std::vector<int> sizes(static_cast<std::size_t>(n));
    for (int i = 0; i < 500; ++i) {
      const auto instance = "softmax_f32_block_row_vec4_threads" + std::to_string(i);
      int owners = 0;
      for (int k = 1; k <= n; ++k)
        if (runner::parse_shard(std::to_string(k) + "/" + std::to_string(n)).owns(instance)) {
          ++owners;
          ++sizes[static_cast<std::size_t>(k - 1)];
        }
      EXPECT_EQ(owners, 1) << instance;
    }
    for (int s : sizes) EXPECT_GT(s, 500 / n / 2) << "a shard of " << n << " got " << s;  // roughly even
  }
  EXPECT_EQ(runner::parse_shard("2/4").str(), "2/4");
  EXPECT_EQ(runner::parse_shard("1/1").str(), "");
  for (const char* bad : {"0/3", "4/3", "3", "a/b", "1/0", "-1/2", "1/2/3", ""})
    EXPECT_EQ(test::error_of([&] { runner::parse_shard(bad); }),
              std::string("--shard \"") + bad + "\": expected K/N with 1 <= K <= N (e.g. 2/4)");
}

TEST(merge, shards_combine_without_duplicates_and_merging_again_changes_nothing) {
  merge_files f;
  const auto a = gpu("A");
  write_db(f / "s1.db", a, "2026-12-01T01:00:00Z", {{"x", 10, "2026-12-01T01:00:01Z"}}, "finished", "1/2");
  write_db(f / "s2.db", a, "2026-12-01T01:00:00Z", {{"y", 12, "2026-12-01T01:00:02Z"}}, "finished", "2/2");
  auto target = database::open(f / "all.db", open_mode::read_write);
  auto r = store::merge_databases(*target, f / "all.db", {f / "s1.db", f / "s2.db"});
  EXPECT_EQ(r.runs_added, 2);
  EXPECT_EQ(r.trials_added, 2);
  EXPECT_EQ(r.builds, 2);
  const auto runs = target->runs();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].shard, "1/2");
  EXPECT_EQ(runs[0].provenance, f / "s1.db" + " run 1");
  EXPECT_EQ(runs[0].state, "finished");
  EXPECT_FALSE(runs[0].finished_at.empty());
  EXPECT_EQ(runs[1].provenance, f / "s2.db" + " run 1");
  const auto trials = target->trials({});
  ASSERT_EQ(trials.size(), 2u);
  EXPECT_EQ(trials[0].created_at, "2026-12-01T01:00:01Z");  // kept as measured
  EXPECT_EQ(trials[1].run_id, runs[1].id);                  // re-pointed at the copied run
  store::trial_filter with;
  with.with_samples = true;
  EXPECT_EQ(target->trials(with)[0].sample_us.size(), 3u);
  EXPECT_EQ(target->builds("").size(), 2u);

  r = store::merge_databases(*target, f / "all.db", {f / "s1.db", f / "s2.db"});
  EXPECT_EQ(r.runs_added, 0);
  EXPECT_EQ(r.runs_already, 2);
  EXPECT_EQ(r.trials_identical, 2);
  EXPECT_EQ(target->runs().size(), 2u);
  EXPECT_EQ(target->trials({}).size(), 2u);
}

TEST(merge, conflicts_go_by_environment_validity_and_recency) {
  merge_files f;
  const auto a = gpu("A"), b = gpu("B");
  write_db(f / "old.db", a, "2026-12-01T01:00:00Z",
           {{"x", 10, "2026-12-01T01:00:01Z"}, {"y", 20, "2026-12-01T01:00:02Z"}});
  // Newer: x measured again on A; y again on A but in a run found invalid; z only here.
  write_db(f / "new.db", a, "2026-12-01T02:00:00Z",
           {{"x", 11, "2026-12-01T02:00:01Z"}, {"z", 30, "2026-12-01T02:00:02Z"}});
  write_db(f / "bad.db", a, "2026-12-01T03:00:00Z", {{"y", 99, "2026-12-01T03:00:01Z"}}, "invalid");
  write_db(f / "other.db", b, "2026-12-01T00:00:00Z", {{"x", 50, "2026-12-01T00:00:01Z"}});  // another GPU

  auto target = database::open(f / "all.db", open_mode::read_write);
  store::merge_databases(*target, f / "all.db", {f / "new.db"});
  const auto r = store::merge_databases(*target, f / "all.db", {f / "old.db", f / "bad.db", f / "other.db"});
  EXPECT_EQ(r.trials_kept, 2);   // old x (the target's is newer), bad y (the target's is valid)
  EXPECT_EQ(r.trials_added, 2);  // old y, other x (another environment)
  EXPECT_EQ(r.trials_replaced, 0);
  EXPECT_DOUBLE_EQ(median_of(*target, "x", a.key()), 11);  // the newer measurement
  EXPECT_DOUBLE_EQ(median_of(*target, "y", a.key()), 20);  // not the invalid run's 99
  EXPECT_DOUBLE_EQ(median_of(*target, "z", a.key()), 30);
  EXPECT_DOUBLE_EQ(median_of(*target, "x", b.key()), 50);  // both GPUs kept apart

  // The other order: the newer trial replaces the older one.
  auto second = database::open(f / "again.db", open_mode::read_write);
  const auto s = store::merge_databases(*second, f / "again.db", {f / "old.db", f / "new.db"});
  EXPECT_EQ(s.trials_replaced, 1);
  EXPECT_DOUBLE_EQ(median_of(*second, "x", a.key()), 11);
}

TEST(merge, a_newer_schema_or_the_target_itself_is_refused_before_anything_is_written) {
  merge_files f;
  write_db(f / "good.db", gpu("A"), "2026-12-01T01:00:00Z", {{"x", 10, "2026-12-01T01:00:01Z"}});
  write_db(f / "future.db", gpu("A"), "2026-12-01T01:00:00Z", {{"y", 10, "2026-12-01T01:00:01Z"}});
  {
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open((f / "future.db").c_str(), &h), SQLITE_OK);
    const auto sql = "PRAGMA user_version = " + std::to_string(store::schema_version + 1);
    ASSERT_EQ(sqlite3_exec(h, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(h);
  }
  auto target = database::open(f / "all.db", open_mode::read_write);
  EXPECT_EQ(test::error_of([&] {
              store::merge_databases(*target, f / "all.db", {f / "good.db", f / "future.db"});
            }),
            f / "future.db" + ": database schema " + std::to_string(store::schema_version + 1) +
                " is newer than this cuop-tune (" + std::to_string(store::schema_version) +
                "); use a newer cuop-tune or another --db");
  EXPECT_TRUE(target->runs().empty());  // good.db was not merged either
  EXPECT_EQ(test::error_of([&] { store::merge_databases(*target, f / "all.db", {f / "all.db"}); }),
            f / "all.db" + ": is the target database itself; merge it into another one");
}
