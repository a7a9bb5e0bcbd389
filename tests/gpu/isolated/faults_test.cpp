// The fault-injection suite on a GPU (tests/faults/faults.yaml, issue 6): the sweep finishes, each
// configuration's status and message say what went wrong, the worker survives (or is replaced
// after) the sticky errors, and the faster healthy configuration wins. Its own executable, like the
// gate's test: the sweep's environment check wants no other process holding a context.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>

#include "../gpu_test_support.hpp"

namespace {

namespace fs = std::filesystem;

struct stored {
  std::string status, message;
  double median_us = 0;
};

// instance -> its trial, for every trial of the database.
std::map<std::string, stored> trials_of(const std::string& db) {
  std::map<std::string, stored> out;
  sqlite3* h = nullptr;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) return out;
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(
      h, "SELECT c.instance, t.status, t.message, t.median_us FROM trials t JOIN configs c ON c.id = t.config_id", -1,
      &s, nullptr);
  while (s && sqlite3_step(s) == SQLITE_ROW)
    out[reinterpret_cast<const char*>(sqlite3_column_text(s, 0))] = {
        reinterpret_cast<const char*>(sqlite3_column_text(s, 1)),
        reinterpret_cast<const char*>(sqlite3_column_text(s, 2)), sqlite3_column_double(s, 3)};
  sqlite3_finalize(s);
  sqlite3_close(h);
  return out;
}

const stored& with_fault(const std::map<std::string, stored>& trials, const std::string& tag) {
  for (const auto& [instance, t] : trials)
    if (instance.find(tag) != std::string::npos) return t;
  static const stored none{"(missing)", "", 0};
  return none;
}

}  // namespace

TEST(faults_gpu, every_fault_is_recorded_and_the_healthy_winner_is_chosen) {
  CUOP_REQUIRE_GPU();
  const auto dir = fs::temp_directory_path() / ("cuop-faults-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto db = (dir / "f.db").string();
  const std::string cmd = std::string(CUOP_TUNE_BIN) + " sweep --db " + db + " --cache " + (dir / "cache").string() +
                          " " + CUOP_SOURCE_DIR + "/tests/faults/faults.yaml 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe)) out += buffer;
  const int status = pclose(pipe);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;
  std::cout << out;

  const auto trials = trials_of(db);
  for (const auto& [instance, t] : trials) std::cout << instance << ": " << t.status << " " << t.message << "\n";
  EXPECT_EQ(with_fault(trials, "_fault1_").status, "crashed");
  EXPECT_NE(with_fault(trials, "_fault1_").message.find("illegal"), std::string::npos);
  EXPECT_EQ(with_fault(trials, "_fault2_").status, "crashed");
  EXPECT_EQ(with_fault(trials, "_fault3_").status, "timeout");
  EXPECT_EQ(with_fault(trials, "_fault4_").status, "not_built");
  EXPECT_NE(with_fault(trials, "_fault4_").message.find("bytes per block on sm_90a"), std::string::npos);
  EXPECT_EQ(with_fault(trials, "_fault5_").status, "not_built");
  EXPECT_NE(with_fault(trials, "_fault5_").message.find("registers per block on sm_90a"), std::string::npos);
  EXPECT_EQ(with_fault(trials, "_fault6_").status, "wrong_answer");
  EXPECT_EQ(with_fault(trials, "_fault7_").status, "wrong_answer");
  EXPECT_NE(with_fault(trials, "_fault7_").message.find("1 NaN"), std::string::npos);
  const auto& a = with_fault(trials, "block_threads128_fault0_");
  const auto& b = with_fault(trials, "block_threads256_fault0_");
  ASSERT_EQ(a.status, "ok");
  ASSERT_EQ(b.status, "ok");
  // The summary names the faster healthy configuration as the best.
  const auto best = a.median_us <= b.median_us ? "block_threads128_fault0_" : "block_threads256_fault0_";
  EXPECT_NE(out.find(best), std::string::npos) << out;
  fs::remove_all(dir);
}
