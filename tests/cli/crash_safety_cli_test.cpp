// Crash safety without a GPU (issue 6, item 4, the part a compile-validation sweep exercises): a
// sweep killed with SIGKILL at random points and run again loses nothing it stored, duplicates
// nothing, and finishes; the database passes PRAGMA integrity_check after every kill; and readers
// (`best`, `export`) work while a sweep writes. The measuring part (killing the parent between
// trials on a GPU) is the GPU suite's.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cli_support.hpp"
#include "sqlite_rows.hpp"

extern char** environ;

using cuop::test::run_cli;
using cuop::test::temp_dir;

namespace {

const std::string suite = std::string(CUOP_SOURCE_DIR) + "/configs/softmax-smoke.yaml";

std::vector<std::string> rows(const std::string& db, const std::string& sql) {
  return cuop::test::sqlite_rows(db, sql);
}

// Starts `cuop-tune sweep --validate-only` into `db` (compiling without a cache, so there is time
// to kill it mid-way), its output thrown away; returns its pid.
pid_t start_sweep(const std::string& db, const std::string& cache) {
  const std::vector<std::string> args = {CUOP_TUNE_BIN, "sweep", "--validate-only", "--db", db, "--cache", cache, "-j",
                                         "1",           suite};
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  if (posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

const std::string builds_sql =
    "SELECT c.instance, b.target, b.status FROM builds b JOIN configs c ON c.id = b.config_id ORDER BY 1, 2";
const std::string trials_sql =
    "SELECT p.key, c.instance, t.env_key, t.status FROM trials t JOIN problems p ON p.id = t.problem_id "
    "JOIN configs c ON c.id = t.config_id ORDER BY 1, 2, 3";

}  // namespace

TEST(cli_crash_safety, killed_at_random_points_a_sweep_loses_and_duplicates_nothing) {
  temp_dir tmp;
  const auto whole = tmp / "whole.db";
  ASSERT_EQ(run_cli("sweep --validate-only --db " + whole + " --cache " + tmp / "whole-cache -j 2 " + suite).code, 0);
  const auto want_builds = rows(whole, builds_sql);
  const auto want_trials = rows(whole, trials_sql);
  ASSERT_FALSE(want_builds.empty());

  const auto db = tmp / "killed.db";
  std::mt19937 rng(20261201);  // fixed: the same kill points on every run of the test
  std::uniform_int_distribution<int> after_ms(50, 1500);
  std::size_t stored_before = 0;
  int kills = 0;
  for (int round = 0; round < 6; ++round) {
    // A fresh cache each time: every build is compiled again, so a kill lands mid-compile.
    const pid_t pid = start_sweep(db, tmp / ("cache" + std::to_string(round)));
    ASSERT_GT(pid, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(after_ms(rng)));
    if (::kill(pid, SIGKILL) == 0) ++kills;
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (!std::filesystem::exists(db)) continue;  // killed before it created the database
    EXPECT_EQ(rows(db, "PRAGMA integrity_check"), std::vector<std::string>{"ok"}) << "after kill " << round;
    // Killed before the schema was written, the file has no tables yet: nothing stored then.
    const auto count = rows(db, "SELECT COUNT(*) FROM builds");
    ASSERT_EQ(count.size(), 1u);
    const bool no_schema = count[0] == "(bad query: no such table: builds)";
    const std::size_t stored = no_schema ? 0 : std::stoul(count[0]);
    EXPECT_TRUE(!no_schema || stored_before == 0) << "the schema vanished after kill " << round;
    EXPECT_GE(stored, stored_before) << "a kill lost stored builds";  // nothing stored is lost
    stored_before = stored;
  }
  EXPECT_GT(kills, 0);
  const auto done = run_cli("sweep --validate-only --db " + db + " --cache " + tmp / "cache-last -j 2 " + suite);
  ASSERT_EQ(done.code, 0) << done.out;
  EXPECT_EQ(rows(db, builds_sql), want_builds);                // everything, once
  EXPECT_EQ(rows(db, trials_sql).size(), want_trials.size());  // one per (env, problem, config)
  EXPECT_EQ(rows(db,
                 "SELECT COUNT(*) FROM (SELECT 1 FROM trials GROUP BY env_key, problem_id, config_id "
                 "HAVING COUNT(*) > 1)"),
            std::vector<std::string>{"0"});
  EXPECT_EQ(rows(db, "PRAGMA integrity_check"), std::vector<std::string>{"ok"});
  EXPECT_EQ(rows(db, "SELECT state FROM runs ORDER BY id DESC LIMIT 1"), std::vector<std::string>{"finished"});
  // The killed runs were marked interrupted by the sweep after them, with no end (when they
  // stopped is not known) and the reason; none is left "running".
  EXPECT_EQ(rows(db, "SELECT COUNT(*) FROM runs WHERE state = 'running'"), std::vector<std::string>{"0"});
  for (const auto& row : rows(db,
                              "SELECT finished_at IS NULL, state_reason LIKE 'its sweep (process % on %) ended "
                              "without finishing it' FROM runs WHERE state = 'interrupted'"))
    EXPECT_EQ(row, "1|1");
}

TEST(cli_crash_safety, readers_work_while_a_sweep_writes) {
  temp_dir tmp;
  const auto db = tmp / "busy.db";
  ASSERT_EQ(run_cli("sweep --validate-only --db " + db + " --cache " + tmp / "c0 -j 2 " + suite).code, 0);
  const auto before = run_cli("export --db " + db + " --out " + tmp / "r0");
  ASSERT_EQ(before.code, 0) << before.out;
  const pid_t pid = start_sweep(db, tmp / "c1");  // writes the same builds again, compiled anew
  ASSERT_GT(pid, 0);
  int reads = 0;
  for (int i = 0; i < 5; ++i) {
    const auto e = run_cli("export --db " + db + " --out " + tmp / ("r" + std::to_string(i + 1)) + " 2>&1");
    EXPECT_EQ(e.code, 0) << e.out;
    const auto b = run_cli("best --db " + db + " 2>&1");
    EXPECT_EQ(b.code, 0) << b.out;
    reads += 2;
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(reads, 10);
  EXPECT_EQ(rows(db, "PRAGMA integrity_check"), std::vector<std::string>{"ok"});
}
