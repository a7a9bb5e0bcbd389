// The shard/merge path on a compile-validation sweep (no GPU needed, so it runs in CI): the
// shards of configs/softmax-smoke.yaml, merged, hold exactly the builds and trials of the whole
// sweep, each configuration once; merging again adds nothing; a bad --shard is a usage error.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>
#include <vector>

#include "cli_support.hpp"
#include "sqlite_rows.hpp"

using cuop::test::run_cli;
using cuop::test::temp_dir;

namespace {

const std::string smoke = std::string(CUOP_SOURCE_DIR) + "/configs/softmax-smoke.yaml";

std::vector<std::string> rows(const std::string& db, const std::string& sql) {
  return cuop::test::sqlite_rows(db, sql);
}

const std::string builds_sql =
    "SELECT c.instance, b.target, b.status, b.registers FROM builds b JOIN configs c ON c.id = b.config_id "
    "ORDER BY 1, 2";
const std::string trials_sql =
    "SELECT p.key, c.instance, t.status FROM trials t JOIN problems p ON p.id = t.problem_id "
    "JOIN configs c ON c.id = t.config_id ORDER BY 1, 2";

}  // namespace

TEST(cli_scale_out, shards_merged_are_the_whole_sweep) {
  temp_dir tmp;
  const std::string common = " --validate-only --cache " + tmp / "cache" + " -j 2 " + smoke;
  const auto whole = run_cli("sweep --db " + tmp / "whole.db" + common + " 2>&1");
  ASSERT_EQ(whole.code, 0) << whole.out;
  std::string sources;
  for (int k = 1; k <= 3; ++k) {
    const auto db = tmp / ("shard" + std::to_string(k) + ".db");
    const auto r = run_cli("sweep --shard " + std::to_string(k) + "/3 --db " + db + common + " 2>&1");
    ASSERT_EQ(r.code, 0) << r.out;
    EXPECT_EQ(rows(db, "SELECT shard FROM runs"), std::vector<std::string>{std::to_string(k) + "/3"});
    sources += " " + db;
  }
  const auto merged = run_cli("merge --db " + tmp / "merged.db" + sources);
  ASSERT_EQ(merged.code, 0) << merged.out;
  EXPECT_NE(merged.out.find("runs 3 added"), std::string::npos) << merged.out;

  const auto want_builds = rows(tmp / "whole.db", builds_sql);
  ASSERT_FALSE(want_builds.empty());
  EXPECT_EQ(rows(tmp / "merged.db", builds_sql), want_builds);
  EXPECT_EQ(rows(tmp / "merged.db", trials_sql), rows(tmp / "whole.db", trials_sql));
  // Each shard built a part: the parts are disjoint and together the whole.
  std::size_t parts = 0;
  for (int k = 1; k <= 3; ++k) parts += rows(tmp / ("shard" + std::to_string(k) + ".db"), builds_sql).size();
  EXPECT_EQ(parts, want_builds.size());
  const auto provenance = rows(tmp / "merged.db", "SELECT shard, provenance FROM runs ORDER BY id");
  ASSERT_EQ(provenance.size(), 3u);
  EXPECT_EQ(provenance[0], "1/3|" + tmp / "shard1.db" + " run 1");

  const auto again = run_cli("merge --db " + tmp / "merged.db" + sources);
  ASSERT_EQ(again.code, 0) << again.out;
  EXPECT_NE(again.out.find("runs 0 added, 3 already there; trials 0 added"), std::string::npos) << again.out;
  EXPECT_EQ(rows(tmp / "merged.db", builds_sql), want_builds);
  EXPECT_EQ(rows(tmp / "merged.db", "SELECT COUNT(*) FROM runs"), std::vector<std::string>{"3"});
  EXPECT_EQ(rows(tmp / "merged.db", "PRAGMA integrity_check"), std::vector<std::string>{"ok"});
}

TEST(cli_scale_out, a_bad_shard_is_a_usage_error) {
  for (const char* bad : {"0/3", "4/3", "2", "x/y"}) {
    const auto r = run_cli(std::string("sweep --validate-only --shard ") + bad + " " + smoke + " 2>&1");
    EXPECT_EQ(r.code, 2) << bad << ": " << r.out;
    EXPECT_NE(r.out.find(std::string("cuop-tune: error: --shard: \"") + bad + "\": expected K/N with 1 <= K <= N"),
              std::string::npos)
        << r.out;
  }
}

// `--devices` without a GPU (CUDA_VISIBLE_DEVICES emptied, so a machine with one answers alike):
// a malformed list is a usage error naming the entry; `--device` and `--devices` together are
// refused; `--devices all` says there is no GPU and runs the compile-validation sweep.
TEST(cli_scale_out, devices_lists_are_checked_and_no_gpu_runs_the_validation_sweep) {
  temp_dir tmp;
  const auto without_gpu = cuop::test::run_cli_without_gpu;
  for (const auto& [bad, says] :
       std::vector<std::pair<std::string, std::string>>{{"0,x", "\"x\" is not a device index"},
                                                        {"1,1", "device 1 is named twice"},
                                                        {"-1", "\"-1\" is not a device index"}}) {
    const auto r = without_gpu("sweep --devices " + bad + " --db " + tmp / "x.db" + " " + smoke);
    EXPECT_EQ(r.code, 2) << bad << ": " << r.out;
    EXPECT_NE(r.out.find(says), std::string::npos) << r.out;
  }
  const auto both = without_gpu("sweep --device 0 --devices 0 --db " + tmp / "x.db" + " " + smoke);
  EXPECT_EQ(both.code, 2) << both.out;
  EXPECT_NE(both.out.find("--device excludes --devices"), std::string::npos) << both.out;

  const auto r = without_gpu("sweep --devices all --db " + tmp / "v.db" + " --cache " + tmp / "cache -j 2 " + smoke);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("no GPU to measure on"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("running the compile-validation sweep only"), std::string::npos) << r.out;
  EXPECT_EQ(rows(tmp / "v.db", "SELECT mode, state FROM runs"), std::vector<std::string>{"validate|finished"});
}
