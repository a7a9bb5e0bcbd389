// Shared by the bad-input catalogue's files (tests/cli/bad_input_*_test.cpp): running cuop-tune
// with stdout and stderr apart, fixtures, and the checks that a bad command left a database as it
// was.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>

#include "cli_support.hpp"

namespace cuop::test::bad_input {

namespace fs = std::filesystem;
using cuop::test::temp_dir;

inline const std::string source = CUOP_SOURCE_DIR;
inline const std::string data = CUOP_TEST_DATA_DIR;
inline const std::string compare_fixtures = data + "/compare";
// An earlier H200 softmax sweep (schema 1, rollback journal; cli_test.cpp says more).
inline const std::string h200_db = data + "/store/h200-softmax.db";
// A valid one-configuration sweep, one target: quick to compile-validate.
inline const std::string tiny_sweep = data + "/bad_input/tiny.yaml";

struct outcome {
  int code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// cuop-tune ARGS (after `prefix`, e.g. "env CUDA_VISIBLE_DEVICES= "), stdout and stderr apart.
inline outcome run(const std::string& args, const std::string& prefix = "") {
  char err_path[] = "/tmp/cuop-bad-input-err-XXXXXX";
  const int fd = mkstemp(err_path);
  if (fd >= 0) close(fd);
  outcome r;
  FILE* pipe = popen((prefix + CUOP_TUNE_BIN + " " + args + " 2>" + err_path).c_str(), "r");
  if (pipe) {
    char buffer[4096];
    while (std::fgets(buffer, sizeof buffer, pipe)) r.out += buffer;
    const int status = pclose(pipe);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  r.err = read_bytes(err_path);
  unlink(err_path);
  return r;
}

inline std::string replace_all(std::string text, const std::string& what, const std::string& with) {
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + with.size()))
    text.replace(at, what.size(), with);
  return text;
}

// What a database holds before a bad command: its bytes and, when `best` can read it, its answer
// (for softmax, which every database of these tests holds; some hold gemm too).
struct stored {
  std::string path;
  std::string bytes;
  std::string best;
};

inline stored snapshot(const std::string& db, bool with_best = true) {
  stored s{db, read_bytes(db), ""};
  if (with_best) {
    const auto b = run("best --op softmax --db " + db);
    EXPECT_EQ(b.code, 0) << b.err;
    EXPECT_FALSE(b.out.empty());
    s.best = b.out;
  }
  return s;
}

inline void expect_intact(const stored& s) {
  EXPECT_EQ(read_bytes(s.path), s.bytes) << s.path << ": the database file changed";
  if (s.best.empty()) return;
  const auto b = run("best --op softmax --db " + s.path);
  EXPECT_EQ(b.code, 0) << b.err;
  EXPECT_EQ(b.out, s.best) << s.path << ": `best` says something else now";
}

// A copy of the stored H200 database in `tmp`.
inline std::string stored_copy(const temp_dir& tmp, const std::string& name = "stored.db") {
  const auto db = tmp / name;
  fs::copy_file(h200_db, db);
  return db;
}

// Writes `yaml` to DIR/sweep.yaml (and `beside` to DIR/<name>), then runs
//   cuop-tune validate DIR/sweep.yaml
//   cuop-tune sweep --validate-only --db DIR/stored.db --cache DIR/cache DIR/sweep.yaml
// with stored.db a copy of the H200 database: both exit 1 with exactly
// `cuop-tune: error: DIR/sweep.yaml:<message>` ($FILE and $DIR in it replaced), stdout empty,
// and the database is byte for byte what it was.
inline void expect_sweep_file_error(const std::string& yaml, const std::string& message,
                                    const std::map<std::string, std::string>& beside = {}) {
  temp_dir tmp;
  const auto file = tmp / "sweep.yaml";
  write_file(file, yaml);
  for (const auto& [name, text] : beside) write_file(tmp / name, text);
  const auto before = snapshot(stored_copy(tmp));
  const std::string expected = "cuop-tune: error: " + file + ":" +
                               replace_all(replace_all(message, "$FILE", file), "$DIR", tmp.path.string()) + "\n";

  const auto v = run("validate " + file);
  EXPECT_EQ(v.code, 1) << v.out << v.err;
  EXPECT_EQ(v.err, expected);
  EXPECT_EQ(v.out, "");

  const auto s = run("sweep --validate-only --db " + before.path + " --cache " + (tmp / "cache") + " " + file);
  EXPECT_EQ(s.code, 1) << s.out << s.err;
  EXPECT_EQ(s.err, expected);
  EXPECT_EQ(s.out, "");
  expect_intact(before);
}

// Runs `sql` on a database through the SQLite C API.
inline void exec_sql(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(h, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(h);
  sqlite3_close(h);
}

// A second connection holding a lock until it goes out of scope.
struct held_lock {
  sqlite3* h = nullptr;
  held_lock(const std::string& db, const char* begin) {
    EXPECT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(h, begin, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(h);
  }
  ~held_lock() {
    sqlite3_exec(h, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(h);
  }
};

// The prefix that runs cuop-tune as a user for whom a 0444 file is read-only: none when the tests
// do not run as root; as root (CI), setpriv to uid 65534. Empty optional: not possible here.
inline std::optional<std::string> unprivileged_prefix() {
  if (geteuid() != 0) return std::string();
  const std::string prefix = "setpriv --reuid=65534 --regid=65534 --clear-groups ";
  if (run("--version", prefix).code != 0) return std::nullopt;
  return prefix;
}

inline const std::string no_gpu = "env CUDA_VISIBLE_DEVICES= ";

}  // namespace cuop::test::bad_input
