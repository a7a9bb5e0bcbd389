// The bad-input catalogue, databases, the cubin cache and stored names (issue 36, item 3): a
// database path that is not a regular file, an empty file, someone else's SQLite database, a
// cache that cannot be written, a sweep file name that is not UTF-8, and a sweep killed with
// SIGKILL, each with its exact message and what it leaves stored.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "bad_input_support.hpp"
#include "sqlite_rows.hpp"
#include "tuner/store/migrations.hpp"
#include "tuner/store/store.hpp"

extern char** environ;

namespace {

using namespace cuop::test::bad_input;
using cuop::test::sqlite_rows;

const std::string results = source + "/results";

// `args` (under `timeout`: a FIFO must not block) exits 1 with exactly `message`, nothing on stdout.
void expect_error(const std::string& args, const std::string& message, const std::string& prefix = "timeout 30 ") {
  const auto r = run(args, prefix);
  EXPECT_EQ(r.code, 1) << args;
  EXPECT_EQ(r.err, "cuop-tune: error: " + message + "\n") << args;
  EXPECT_EQ(r.out, "") << args;
}

// ---------------------------------------------------------------------------------------------
// Database paths.

// /dev/null "opened" as a database lost every write; a FIFO blocked.
TEST(bad_input_store, database_that_is_not_a_regular_file) {
  temp_dir tmp;
  ASSERT_EQ(mkfifo((tmp / "fifo.db").c_str(), 0600), 0);
  for (const auto& [path, kind] : std::vector<std::pair<std::string, std::string>>{{"/dev/null", "a character device"},
                                                                                   {tmp / "fifo.db", "a FIFO"}}) {
    const auto message = path + ": not a database file (" + kind + ")";
    expect_error("sweep --validate-only --db " + path + " --cache " + (tmp / "cache") + " " + tiny_sweep, message);
    expect_error("best --db " + path, message);
    expect_error("export --db " + path + " --out " + (tmp / "results"), message);
    expect_error("merge --db " + path + " " + h200_db, message);
    expect_error("merge --db " + (tmp / "target.db") + " " + path, message);
    expect_error("compare " + path + " " + results,
                 path + ": not a cuop-tune database nor a results file (" + kind + ")");
  }
  EXPECT_FALSE(fs::exists(tmp / "results"));
  EXPECT_FALSE(fs::exists(tmp / "target.db"));
}

// A 0-byte file printed nothing and exited 0 for best, export and compare. It is not a cuop-tune
// database for them; a sweep, which creates databases, initialises it (SQLite's convention: an
// empty file is an empty database; a sweep killed before it wrote the schema leaves one).
TEST(bad_input_store, empty_database_file) {
  temp_dir tmp;
  const auto db = tmp / "empty.db";
  write_file(db, "");
  const auto message = db + ": not a cuop-tune database (an empty file)";
  expect_error("best --db " + db, message);
  expect_error("export --db " + db + " --out " + (tmp / "results"), message);
  expect_error("merge --db " + (tmp / "target.db") + " " + db, message);
  expect_error("compare " + db + " " + results, db + ": not a cuop-tune database nor a results file (an empty file)");
  EXPECT_EQ(fs::file_size(db), 0u);
  EXPECT_FALSE(fs::exists(tmp / "results"));
  EXPECT_FALSE(fs::exists(tmp / "target.db"));

  const auto sweep = run("sweep --validate-only --db " + db + " --cache " + (tmp / "cache") + " " + tiny_sweep);
  EXPECT_EQ(sweep.code, 0) << sweep.err;
  EXPECT_EQ(sqlite_rows(db, "PRAGMA user_version"),
            std::vector<std::string>{std::to_string(cuop::store::schema_version)});
  EXPECT_EQ(sqlite_rows(db, "SELECT mode, state FROM runs"), std::vector<std::string>{"validate|finished"});
  // Nothing timed: best says so rather than print nothing.
  const auto best = run("best --db " + db);
  EXPECT_EQ(best.code, 0);
  EXPECT_EQ(best.out, "");
  EXPECT_EQ(best.err,
            "cuop-tune: " + db + ": no timed trial of op \"softmax\" (compile-validation runs time nothing)\n");
}

// A SQLite database of another program: read-only opens found no schema version and showed it
// empty; read-write ones added cuop-tune's tables to it. Both refuse it now, and it stays as it was.
TEST(bad_input_store, database_of_another_program) {
  temp_dir tmp;
  const auto db = tmp / "places.sqlite";
  exec_sql(db,
           "CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT); INSERT INTO moz_places (url) VALUES ('x');");
  const auto before = snapshot(db, false);
  const auto message = db + ": not a cuop-tune database (a SQLite database of something else, with tables moz_places)";
  expect_error("best --db " + db, message);
  expect_error("sweep --validate-only --db " + db + " --cache " + (tmp / "cache") + " " + tiny_sweep, message);
  expect_error("merge --db " + db + " " + h200_db, message);
  expect_error("compare " + db + " " + results, message);
  expect_intact(before);
}

// merge --db X X migrated X (schema and journal mode) before it refused the source; a refused
// source left a new, empty target behind.
TEST(bad_input_store, merge_refusals_leave_the_target_alone) {
  temp_dir tmp;
  const auto before = snapshot(stored_copy(tmp));
  expect_error("merge --db " + before.path + " " + before.path,
               before.path + ": is the target database itself; merge it into another one");
  expect_intact(before);
  write_file(tmp / "garbage.db", "garbage");
  expect_error("merge --db " + (tmp / "new.db") + " " + before.path + " " + (tmp / "garbage.db"),
               tmp / "garbage.db" + ": reading the schema version: file is not a database");
  EXPECT_FALSE(fs::exists(tmp / "new.db"));
}

// A schema 3 database (before runs recorded their kernel sources and their process) still opens: read as it is by best,
// migrated by a sweep, and its runs left "running" are left alone (without a pid nothing says
// whether their process is gone).
TEST(bad_input_store, schema_3_database_still_opens) {
  temp_dir tmp;
  const auto db = tmp / "v3.db";
  namespace detail = cuop::store::detail;
  exec_sql(db, std::string(detail::schema_v1_sql) + detail::schema_v2_sql + detail::schema_v3_sql +
                   "PRAGMA user_version = 3;"
                   "INSERT INTO runs (started_at, spec_file, op, mode, state, env_key, hostname) VALUES "
                   "('2026-01-01T00:00:00Z', 'old.yaml', 'softmax', 'validate', 'running', 'k', 'somehost');");
  const auto before = snapshot(db, false);
  const auto best = run("best --db " + db);
  EXPECT_EQ(best.code, 0) << best.err;
  expect_intact(before);  // read through an upgraded copy in memory
  const auto sweep = run("sweep --validate-only --db " + db + " --cache " + (tmp / "cache") + " " + tiny_sweep);
  EXPECT_EQ(sweep.code, 0) << sweep.err;
  EXPECT_EQ(sqlite_rows(db, "PRAGMA user_version"),
            std::vector<std::string>{std::to_string(cuop::store::schema_version)});
  EXPECT_EQ(sqlite_rows(db, "SELECT id, state, pid > 0 FROM runs ORDER BY id"),
            (std::vector<std::string>{"1|running|0", "2|finished|1"}));
}

// ---------------------------------------------------------------------------------------------
// The cubin cache: checked by writing a file in it before anything is stored. Before, every build
// failed (compile_error) and the run was "finished".

TEST(bad_input_store, cache_that_is_a_file) {
  temp_dir tmp;
  write_file(tmp / "plain", "plain\n");
  expect_error("sweep --validate-only --db " + (tmp / "x.db") + " --cache " + (tmp / "plain") + " " + tiny_sweep,
               "--cache " + (tmp / "plain") + ": not a folder (a file is in the way)");
  expect_error("sweep --validate-only --db " + (tmp / "x.db") + " --cache " + (tmp / "plain/sub") + " " + tiny_sweep,
               "--cache " + (tmp / "plain/sub") + ": cannot create the folder (Not a directory)");
  EXPECT_EQ(read_bytes(tmp / "plain"), "plain\n");
  EXPECT_FALSE(fs::exists(tmp / "x.db"));
}

TEST(bad_input_store, cache_without_write_permission) {
  const auto prefix = unprivileged_prefix();
  if (!prefix) GTEST_SKIP() << "cannot run cuop-tune as an unprivileged user here (setpriv)";
  temp_dir tmp;
  fs::permissions(tmp.path, fs::perms(0777));
  fs::create_directory(tmp / "cache");
  fs::permissions(tmp / "cache", fs::perms(0555));
  expect_error("sweep --validate-only --db " + (tmp / "x.db") + " --cache " + (tmp / "cache") + " " + tiny_sweep,
               "--cache " + (tmp / "cache") + ": cannot write in it (Permission denied)", *prefix);
  EXPECT_FALSE(fs::exists(tmp / "x.db"));
}

// A disk that takes no more data, here a file size limit of 0 (SIGXFSZ ignored, so a write fails
// with EFBIG as it fails with ENOSPC on a full disk). stderr goes through a pipe, which the limit
// does not cover, and the exit code after it.
TEST(bad_input_store, cache_on_a_disk_that_takes_no_data) {
  temp_dir tmp;
  const std::string prefix =
      "sh -c '( trap \"\" XFSZ; ulimit -f 0; \"$0\" \"$@\"; echo \"exit $?\" >&2 ) 2>&1 | cat >&2' ";
  const auto r =
      run("sweep --validate-only --db " + (tmp / "x.db") + " --cache " + (tmp / "cache") + " " + tiny_sweep, prefix);
  EXPECT_EQ(r.err, "cuop-tune: error: --cache " + (tmp / "cache") + ": cannot write in it (File too large)\nexit 1\n");
  EXPECT_FALSE(fs::exists(tmp / "x.db"));
  EXPECT_TRUE(fs::is_empty(tmp / "cache"));  // the probe file is gone
}

// When stderr itself is on that disk, the error cannot be printed: the exit code still says it
// (printing it threw, and the throw inside main's handler ended in SIGABRT).
TEST(bad_input_store, stderr_that_cannot_be_written) {
  temp_dir tmp;
  const auto r = run("sweep --validate-only --db " + (tmp / "x.db") + " --cache " + (tmp / "cache") + " " + tiny_sweep,
                     "sh -c 'trap \"\" XFSZ; ulimit -f 0; exec \"$0\" \"$@\"' ");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "");
}

// ---------------------------------------------------------------------------------------------
// Names that are not UTF-8 or hold control characters: stored and exported safely. Before,
// export threw nlohmann's "invalid UTF-8 byte" for a sweep file named so.

TEST(bad_input_store, sweep_file_name_that_is_not_utf8) {
  temp_dir tmp;
  const std::string name = "bad\xff\x1b[31m.yaml";
  fs::copy_file(tiny_sweep, tmp / name);
  const auto db = tmp / "t.db";
  const auto sweep =
      run("sweep --validate-only --db " + db + " --cache " + (tmp / "cache") + " '" + (tmp / name) + "'");
  EXPECT_EQ(sweep.code, 0) << sweep.err;
  const std::string shown = tmp.path.string() + "/bad\\xff\\x1b[31m.yaml";
  EXPECT_NE(sweep.err.find("[softmax] " + shown + ": 1 problems"), std::string::npos) << sweep.err;
  EXPECT_EQ(sweep.err.find('\x1b'), std::string::npos) << "a raw escape reached the terminal";
  EXPECT_EQ(sqlite_rows(db, "SELECT spec_file FROM runs"), std::vector<std::string>{shown});

  const auto exported = run("export --db " + db + " --out " + (tmp / "results"));
  EXPECT_EQ(exported.code, 0) << exported.err;
  const auto file = nlohmann::json::parse(read_bytes(tmp / "results/softmax/validation.json"));
  EXPECT_EQ(file["runs"][0]["spec_file"], shown);
  const auto merged = run("merge --db " + (tmp / "merged.db") + " " + db);
  EXPECT_EQ(merged.code, 0) << merged.err;
  EXPECT_EQ(sqlite_rows(tmp / "merged.db", "SELECT spec_file FROM runs"), std::vector<std::string>{shown});
}

// A cache path that is not UTF-8: compile-validation uses it; a measuring sweep refuses it before
// it measures (the workers are told cubin paths in JSON, which threw at the first trial).
TEST(bad_input_store, cache_path_that_is_not_utf8) {
  temp_dir tmp;
  const std::string cache = tmp / "cache\xff";
  const auto r = run("sweep --db " + (tmp / "x.db") + " --cache '" + cache + "' " + tiny_sweep);
  if (r.err.find("no GPU to measure on") != std::string::npos) {
    EXPECT_EQ(r.code, 0) << r.err;  // compile-validation only
    EXPECT_TRUE(fs::is_directory(cache));
    GTEST_SKIP() << "no GPU: the measuring sweep's refusal is not reached here";
  }
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("cuop-tune: error: --cache " + tmp.path.string() +
                       "/cache\\xff: not a UTF-8 path; the "
                       "workers cannot be told the paths of the cubins in it"),
            std::string::npos)
      << r.err;
}

// compare's reports quote the sides' paths: JSON replaces bytes that are not UTF-8 (it threw), the
// table and JUnit show control characters escaped.
TEST(bad_input_store, compare_side_named_with_bytes_that_are_not_utf8) {
  temp_dir tmp;
  const std::string side = tmp / "base\xff\x1b[2J";
  fs::copy(compare_fixtures + "/baseline", side, fs::copy_options::recursive);
  const auto args = " '" + side + "' " + compare_fixtures + "/same";
  const auto json = run("compare --format json" + args);
  ASSERT_EQ(json.code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["baseline"]["source"], tmp.path.string() + "/base\xef\xbf\xbd\x1b[2J");  // U+FFFD for 0xff
  for (const char* format : {"table", "markdown", "junit"}) {
    const auto r = run(std::string("compare --format ") + format + args);
    EXPECT_EQ(r.code, 0) << format << r.err;
    EXPECT_NE(r.out.find(tmp.path.string() + "/base\\xff\\x1b[2J"), std::string::npos) << format << r.out;
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << format;
  }
}

// ---------------------------------------------------------------------------------------------
// A sweep killed with SIGKILL left its run "running" forever. The next sweep on the same host
// marks it interrupted, with the reason, and leaves finished_at empty (when it stopped is not
// known).

std::string host_name() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return host;
}

TEST(bad_input_store, run_of_a_killed_sweep_is_marked_interrupted) {
  temp_dir tmp;
  const auto db = tmp / "k.db";
  const auto suite = source + "/configs/softmax-smoke.yaml";
  const std::vector<std::string> args = {
      CUOP_TUNE_BIN, "sweep", "--validate-only", "--db", db, "--cache", tmp / "cache", "-j", "1", suite};
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  ASSERT_EQ(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  // Killed once its run is stored (it then compiles for seconds, without a cache).
  bool running = false;
  for (int i = 0; i < 600 && !running; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    running = fs::exists(db) && sqlite_rows(db, "SELECT state FROM runs") == std::vector<std::string>{"running"};
  }
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(running) << "the sweep stored no run in 30 s";

  const auto next = run("sweep --validate-only --db " + db + " --cache " + (tmp / "cache2") + " " + tiny_sweep);
  EXPECT_EQ(next.code, 0) << next.err;
  const auto why = "its sweep (process " + std::to_string(pid) + " on " + host_name() + ") ended without finishing it";
  EXPECT_EQ(next.err.rfind("cuop-tune: run 1 (" + suite + ") was left running: " + why + "; marked interrupted\n", 0),
            0u)
      << next.err;
  EXPECT_EQ(sqlite_rows(db, "SELECT id, state, finished_at IS NULL, state_reason FROM runs ORDER BY id"),
            (std::vector<std::string>{"1|interrupted|1|" + why, "2|finished|0|"}));
}

// Which runs are left alone: a live process's, one whose pid is alive but started at another time
// (the pid was given to another process: marked), one of another host, one without a pid.
TEST(bad_input_store, only_runs_whose_process_is_gone_are_marked) {
  temp_dir tmp;
  const auto db = tmp / "r.db";
  ASSERT_EQ(run("sweep --validate-only --db " + db + " --cache " + (tmp / "cache") + " " + tiny_sweep).code, 0);
  const auto me = std::to_string(::getpid());
  const auto host = host_name();
  exec_sql(db,
           "INSERT INTO runs (started_at, spec_file, op, mode, state, env_key, hostname, pid, pid_start) VALUES "
           "('t', 'live.yaml', 'softmax', 'validate', 'running', 'k', '" +
               host + "', " + me +
               ", 0), "
               "('t', 'reused.yaml', 'softmax', 'validate', 'running', 'k', '" +
               host + "', " + me +
               ", 1), "
               "('t', 'elsewhere.yaml', 'softmax', 'validate', 'running', 'k', 'another-host', 1, 1), "
               "('t', 'old.yaml', 'softmax', 'validate', 'running', 'k', '" +
               host + "', 0, 0);");
  const auto r = run("sweep --validate-only --db " + db + " --cache " + (tmp / "cache") + " " + tiny_sweep);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(sqlite_rows(db, "SELECT spec_file, state FROM runs WHERE id BETWEEN 2 AND 5 ORDER BY id"),
            (std::vector<std::string>{"live.yaml|running", "reused.yaml|interrupted", "elsewhere.yaml|running",
                                      "old.yaml|running"}));
  EXPECT_NE(r.err.find("cuop-tune: run 3 (reused.yaml) was left running: its sweep (process " + me + " on " + host +
                       ") ended without finishing it; marked interrupted\n"),
            std::string::npos)
      << r.err;
}

}  // namespace
