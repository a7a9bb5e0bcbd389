// cuop-tune gate end to end on a GPU, on a two-configuration softmax suite: this build against
// itself in A B B A rounds (A/A: no SLOWER row, exit 0, every row pooled from both rounds of each
// side), then against the first round's database as a baseline. Skipped without a GPU.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "../gpu_test_support.hpp"

namespace {

namespace fs = std::filesystem;

struct run_result {
  int code = -1;
  std::string out;  // stdout only: the report
};

run_result run_gate(const std::string& args) {
  run_result r;
  FILE* pipe = popen((std::string(CUOP_TUNE_BIN) + " gate " + args).c_str(), "r");  // stderr: the log
  if (!pipe) return r;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe)) r.out += buffer;
  const int status = pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

class gate_gpu : public testing::Test {
 protected:
  void SetUp() override {
    CUOP_REQUIRE_GPU();
    m_dir = fs::temp_directory_path() / ("cuop-gate-gpu-test-" + std::to_string(::getpid()));
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
    std::ofstream(m_dir / "suite.yaml")
        << "op: softmax\n"
           "problems:\n"
           "  - {rows: 4096, cols: 4096, dtype: f16}\n"
           "candidates:\n"
           "  - family: block_row\n"
           "    params: {vec: [8], block_threads: [256, 512], chunks: [1, 2]}\n"
           "    constraints: [\"vec * block_threads * chunks == cols\"]\n"
           "measure: {warmup_ms: 10, min_samples: 10, max_samples: 100, max_time_s: 0.5, timeout_s: 30}\n";
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(m_dir, ec);
  }
  std::string path(const std::string& name) const { return (m_dir / name).string(); }

  fs::path m_dir;
};

}  // namespace

TEST_F(gate_gpu, this_build_against_itself_in_abba_rounds_finds_nothing_slower) {
  const auto r = run_gate(path("suite.yaml") + " --against " + CUOP_TUNE_BIN + " --format json --retries 1 --db " +
                          path("gate.db") + " --cache " + path("cache"));
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["gate"]["mode"], "abba");
  EXPECT_EQ(j["gate"]["schedule"], "A B B A");
  EXPECT_EQ(j["summary"]["slower"], 0);
  ASSERT_EQ(j["rows"].size(), 1u);
  const auto& row = j["rows"][0];
  EXPECT_EQ(row["problem"], "softmax_f16_4096x4096");
  EXPECT_EQ(row["method"], "bootstrap");
  EXPECT_GE(row["candidate"]["samples"].get<int>(), 20);  // two rounds of at least 10
  EXPECT_GE(row["baseline"]["samples"].get<int>(), 20);
  EXPECT_LE(row["retries"].get<int>(), 1);
  // Round 1 (A) is --db itself; the other rounds are beside it.
  EXPECT_TRUE(fs::exists(path("gate.db")));
  for (const char* round : {"gate.round2-b.db", "gate.round3-b.db", "gate.round4-a.db"})
    EXPECT_TRUE(fs::exists(path(round))) << round;

  // The first round as a baseline: the same build, measured a minute apart.
  const auto again =
      run_gate(path("suite.yaml") + " --baseline " + path("gate.db") + " --format json --cache " + path("cache"));
  ASSERT_EQ(again.code, 0) << again.out;
  const auto k = nlohmann::json::parse(again.out);
  EXPECT_EQ(k["gate"]["mode"], "baseline");
  EXPECT_EQ(k["summary"]["compared"], 1);
  EXPECT_EQ(k["summary"]["slower"], 0);
}
