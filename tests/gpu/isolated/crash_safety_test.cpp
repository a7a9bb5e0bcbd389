// Crash safety while measuring (issue 6, item 4), on a GPU: a softmax sweep killed with SIGKILL
// (with its worker: the whole process group) at random points of its measurement, then run again,
// loses no finished trial, duplicates none and finishes; the database passes integrity_check after
// every kill. And `sweep --devices` on this host's GPUs: every trial records its device, and an
// index the host does not have is refused. Its own executable: no context in the test process.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "../gpu_test_support.hpp"

namespace {

namespace fs = std::filesystem;

// 6 problems x about 12 block_row configurations, one target: 15-20 s of measurement on an H200
// (2 problems took 3 s: too short to kill six times).
const char* sweep_text =
    "op: softmax\n"
    "problems: [{rows: 4096, cols: 4096, dtype: f32}, {rows: 2048, cols: 8192, dtype: f16},\n"
    "           {rows: 4096, cols: 4096, dtype: bf16}, {rows: 8192, cols: 4096, dtype: f32},\n"
    "           {rows: 4096, cols: 8192, dtype: bf16}, {rows: 2048, cols: 8192, dtype: f32}]\n"
    "candidates:\n"
    "  - family: block_row\n"
    "    params: {vec: [1, 2, 4], block_threads: [128, 256, 512, 1024], chunks: [8]}\n"
    "    constraints: [\"vec * block_threads * chunks >= cols / 4\"]\n"
    "targets: [sm_90a]\n"
    "measure: {warmup_ms: 5, min_samples: 10, max_samples: 60, max_time_s: 0.3, timeout_s: 30}\n";

struct scratch {
  fs::path path = fs::temp_directory_path() / ("cuop-crash-gpu-" + std::to_string(::getpid()));
  scratch() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~scratch() { fs::remove_all(path); }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

// Starts `cuop-tune ARGS` in a process group of its own (its worker joins it); output to `log`.
pid_t start(const std::vector<std::string>& args, const std::string& log) {
  std::fflush(stdout);  // else the child writes the parent's buffered lines into its log too
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    std::FILE* out = std::freopen(log.c_str(), "a", stdout);
    (void)out;
    ::dup2(STDOUT_FILENO, STDERR_FILENO);
    std::vector<char*> argv{const_cast<char*>(CUOP_TUNE_BIN)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(CUOP_TUNE_BIN, argv.data());
    _exit(127);
  }
  ::setpgid(pid, pid);
  return pid;
}

int wait_for(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

// Every (problem, instance, env) with a finished trial, and whether any of them is there twice.
struct db_state {
  std::set<std::tuple<std::string, std::string, std::string>> finished;
  int duplicates = 0;
  std::string integrity;
  std::set<int> devices;
};

db_state read_state(const std::string& db) {
  db_state s;
  sqlite3* h = nullptr;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) return s;
  const auto each = [&](const char* sql, auto&& row) {
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(h, sql, -1, &st, nullptr);
    while (st && sqlite3_step(st) == SQLITE_ROW) row(st);
    sqlite3_finalize(st);
  };
  const auto text = [](sqlite3_stmt* st, int i) {
    return std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, i)));
  };
  each("PRAGMA integrity_check", [&](sqlite3_stmt* st) { s.integrity += text(st, 0); });
  each(
      "SELECT p.key, c.instance, t.env_key, t.device FROM trials t JOIN problems p ON p.id = t.problem_id "
      "JOIN configs c ON c.id = t.config_id WHERE t.status <> 'rejected'",
      [&](sqlite3_stmt* st) {
        if (!s.finished.insert({text(st, 0), text(st, 1), text(st, 2)}).second) ++s.duplicates;
        s.devices.insert(sqlite3_column_int(st, 3));
      });
  sqlite3_close(h);
  return s;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace

TEST(crash_safety_gpu, sigkill_while_measuring_loses_and_duplicates_nothing) {
  CUOP_REQUIRE_GPU();
  scratch s;
  std::ofstream(s / "sweep.yaml") << sweep_text;
  const std::vector<std::string> args{"sweep", "--db", s / "k.db", "--cache", s / "cache", s / "sweep.yaml"};
  // Compile once, so that every later run is measurement from its first second.
  ASSERT_EQ(wait_for(start({"sweep", "--validate-only", "--db", s / "v.db", "--cache", s / "cache", s / "sweep.yaml"},
                           s / "log.txt")),
            0)
      << read_text(s / "log.txt");

  // Each kill lands while a trial is being measured: after 1 to 6 more trials were stored since the
  // last kill, plus 0 to 150 ms (a trial takes about 100 ms here), whatever the GPU's speed.
  std::mt19937 rng(20261201);
  std::uniform_int_distribution<int> more_trials(1, 6), extra_ms(0, 150);
  db_state before;
  int kills = 0;
  for (int round = 0; round < 6; ++round) {
    const pid_t pid = start(args, s / "log.txt");
    const auto wanted = before.finished.size() + static_cast<std::size_t>(more_trials(rng));
    bool finished = false;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (!finished && read_state(s / "k.db").finished.size() < wanted &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      finished = ::waitpid(pid, nullptr, WNOHANG) == pid;
    }
    if (finished) break;  // the sweep ended before the kill
    std::this_thread::sleep_for(std::chrono::milliseconds(extra_ms(rng)));
    ::kill(-pid, SIGKILL);
    wait_for(pid);
    ++kills;
    const auto after = read_state(s / "k.db");
    EXPECT_EQ(after.integrity, "ok") << "after kill " << kills;
    EXPECT_EQ(after.duplicates, 0) << "after kill " << kills;
    for (const auto& t : before.finished)
      EXPECT_TRUE(after.finished.contains(t)) << "lost after kill " << kills << ": " << std::get<1>(t);
    std::cout << "kill " << kills << ": " << after.finished.size() << " trials stored\n";
    before = after;
  }
  EXPECT_GE(kills, 4) << "the sweep finished before it could be killed four times: make it longer";
  const int status = wait_for(start(args, s / "log.txt"));
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << read_text(s / "log.txt");
  const auto final_state = read_state(s / "k.db");
  EXPECT_EQ(final_state.integrity, "ok");
  EXPECT_EQ(final_state.duplicates, 0);
  for (const auto& t : before.finished) EXPECT_TRUE(final_state.finished.contains(t)) << std::get<1>(t);
  // A second complete run finds every trial there and measures nothing.
  const auto again = wait_for(start(args, s / "again.txt"));
  ASSERT_EQ(again, 0) << read_text(s / "again.txt");
  EXPECT_NE(read_text(s / "again.txt").find("0 trials measured"), std::string::npos) << read_text(s / "again.txt");
}

TEST(crash_safety_gpu, devices_all_records_each_trials_device_and_refuses_what_is_not_there) {
  CUOP_REQUIRE_GPU();
  scratch s;
  std::ofstream(s / "sweep.yaml") << sweep_text;
  const int status = wait_for(start(
      {"sweep", "--devices", "all", "--db", s / "d.db", "--cache", s / "cache", s / "sweep.yaml"}, s / "log.txt"));
  ASSERT_EQ(status, 0) << read_text(s / "log.txt");
  const auto log = read_text(s / "log.txt");
  std::cout << log;
  EXPECT_NE(log.find("cuop-tune: measuring on NVIDIA"), std::string::npos) << log;
  const auto state = read_state(s / "d.db");
  EXPECT_FALSE(state.finished.empty());
  EXPECT_EQ(state.duplicates, 0);
  int count = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  for (const int d : state.devices) EXPECT_LT(d, count);

  const int bad = wait_for(start({"sweep", "--devices", "0," + std::to_string(count), "--db", s / "e.db", "--cache",
                                  s / "cache", s / "sweep.yaml"},
                                 s / "bad.txt"));
  EXPECT_TRUE(WIFEXITED(bad) && WEXITSTATUS(bad) == 1) << read_text(s / "bad.txt");
  EXPECT_NE(read_text(s / "bad.txt")
                .find("device " + std::to_string(count) + " requested but " + std::to_string(count) + " present"),
            std::string::npos)
      << read_text(s / "bad.txt");
}
