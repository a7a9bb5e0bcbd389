// `gate`'s whole run without a GPU: stand-in builds (scripts) answer the worker's hello as if a
// GPU were there and, asked to `sweep --db DB`, copy the next of their prepared databases to DB.
// What is checked is the gate's own work: the round order, pooling, the comparison, which rows
// are retried and how, the pooling of passes, the counts, the kept databases, and its refusals.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "test_support.hpp"
#include "tuner/gate/gate_run.hpp"
#include "tuner/measure/statistics.hpp"
#include "tuner/store/store.hpp"
#include "tuner/trial/protocol.hpp"

namespace {

namespace fs = std::filesystem;
using namespace cuop;
using measure::verdict;

const std::string problem = "softmax_f32_4096x4096";

// A fresh folder per test, removed afterwards.
struct scratch : cuop::test::scratch {
  scratch() : cuop::test::scratch("cuop-gate-run-test") {}
};

std::vector<double> around(double us, int n, double step) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) {
    const int from_middle = i - n / 2;
    v.push_back(us + from_middle * step);
  }
  return v;
}

// A database as one build's sweep of the problem would leave it: one finished run, one verified
// trial per configuration with its raw samples.
void write_db(const std::string& path, const std::string& rev,
              const std::vector<std::pair<std::string, std::vector<double>>>& configs,
              const std::map<std::string, int>& batch = {}) {
  fs::create_directories(fs::path(path).parent_path());
  auto db = store::database::open(path, store::open_mode::read_write);
  store::run_info run;
  run.op = "softmax";
  run.mode = "measure";
  run.state = "running";
  run.started_at = "2026-12-01T00:00:00Z";
  run.env.gpu_name = "NVIDIA H200";
  run.env.gpu_uuid = "GPU-test";
  run.env.cc = 90;
  run.env.sm_count = 132;
  run.env.driver = "13.0";
  run.env.cuda_runtime = "13.0";
  run.env.git_rev = rev;
  run.env.source_hash = "src-" + rev;
  const auto id = db->begin_run(run);
  for (const auto& [instance, samples] : configs) {
    store::trial_record t;
    t.run_id = id;
    t.env_key = run.env.key();
    t.problem = {problem, "softmax", "f32", R"({"cols":4096,"rows":4096})", 1 << 27};
    t.config = {instance, "softmax", "block_row", "f32", R"({"block_threads":128,"chunks":8,"vec":4})"};
    t.status = "ok";
    t.sample_us = samples;
    const auto s = measure::summarize(samples);
    t.median_us = s.median;
    t.ci_lo_us = s.ci_lo;
    t.ci_hi_us = s.ci_hi;
    t.samples = s.count;
    if (const auto b = batch.find(instance); b != batch.end()) t.batch = b->second;
    t.created_at = "2026-12-01T00:00:01Z";
    db->put_trial(t);
  }
  db->finish_run(id, "finished");
}

// A stand-in build in folder `name`: its worker sees the same H200 as every other stand-in; its
// sweeps copy `name`/1.db, 2.db, ... in turn to --db and log "name ARGS..." to log.txt, and the
// batch plan they were given (none: "-") to plans.txt.
std::string stand_in(const scratch& s, const std::string& name, int protocol = trial::protocol_version) {
  fs::create_directories(s / name);
  const auto exe = s / (name + "/cuop-tune");
  std::ofstream(exe)
      << "#!/bin/sh\n"
         "here=$(dirname \"$0\")\n"
         "if [ \"$1\" = worker ]; then\n"
         "  read line\n"
         "  echo '{\"protocol\":"
      << protocol
      << ",\"present\":true,\"index\":0,\"name\":\"NVIDIA H200\","
         "\"uuid\":\"GPU-test\",\"sm_count\":132,\"cc\":90,\"driver\":\"13.0\",\"runtime\":\"13.0\"}'\n"
         "  read line\n"
         "  exit 0\n"
         "fi\n"
         "n=$(cat \"$here/count\" 2>/dev/null || echo 0); n=$((n + 1)); echo $n > \"$here/count\"\n"
         "echo \""
      << name
      << " $*\" >> \"$here/../log.txt\"\n"
         "plan=-; prev=\n"
         "for a in \"$@\"; do [ \"$prev\" = --batch-plan ] && plan=$(tr -d ' \\n' < \"$a\"); prev=$a; done\n"
         "echo \"$plan\" >> \"$here/../plans.txt\"\n"
         "[ -f \"$here/$n.db\" ] || exit 1\n"
         "cp \"$here/$n.db\" \"$3\"\n";
  ::chmod(exe.c_str(), 0755);
  return exe;
}

std::vector<std::string> log_lines(const scratch& s, const std::string& file = "log.txt") {
  std::ifstream in(s / file);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::string suite(const scratch& s) {
  std::ofstream(s / "suite.yaml")
      << "op: softmax\n"
         "problems: [{rows: 4096, cols: 4096, dtype: f32}]\n"
         "candidates: [{family: block_row, params: {vec: 4, block_threads: 128, chunks: 8}}]\n"
         "measure: {min_samples: 10, max_samples: 50, max_time_s: 1, timeout_s: 30}\n";
  return s / "suite.yaml";
}

const std::string x = "softmax_f32_block_row_vec4_threads128_chunks8";
const std::string y = "softmax_f32_block_row_vec4_threads256_chunks4";

}  // namespace

TEST(gate_run, abba_rounds_run_in_order_pool_per_build_and_retry_what_is_ambiguous) {
  scratch s;
  // Rounds 1-4 (A B B A): five noisy samples each, so the first verdict is AMBIGUOUS; the retry's
  // rounds 5-8 are tight and the same on both sides.
  const std::vector<double> noisy{92, 97, 100, 104, 109};
  write_db(s / "a/1.db", "new", {{x, noisy}, {y, around(120, 21, 0.01)}});
  write_db(s / "b/1.db", "old", {{x, around(100, 21, 0.01)}});
  write_db(s / "b/2.db", "old", {{x, around(100.1, 21, 0.01)}});
  write_db(s / "a/2.db", "new", {{x, noisy}});  // y only in round 1: left out of A's pool
  write_db(s / "a/3.db", "new", {{x, around(100.05, 101, 0.01)}});
  write_db(s / "b/3.db", "old", {{x, around(100, 101, 0.01)}});
  write_db(s / "b/4.db", "old", {{x, around(100.1, 101, 0.01)}});
  write_db(s / "a/4.db", "new", {{x, around(100.05, 101, 0.01)}});

  gate::gate_options o;
  o.specs = {suite(s)};
  o.self = stand_in(s, "a");
  o.against = stand_in(s, "b");
  o.retries = 2;
  o.db = s / "kept/gate.db";
  fs::create_directories(s / "kept");
  const auto c = gate::run_gate(o);

  const auto log = log_lines(s);
  ASSERT_EQ(log.size(), 8u);  // one pass of rounds, one retry pass; the second retry was not needed
  std::string order;
  for (const auto& line : log) order += line.substr(0, 1);
  EXPECT_EQ(order, "abbaabba");
  EXPECT_NE(log[0].find("sweep --db " + (s / "kept/gate.db") + " --device 0 " + (s / "suite.yaml")), std::string::npos)
      << log[0];
  EXPECT_NE(log[1].find(s / "kept/gate.round2-b.db"), std::string::npos) << log[1];
  EXPECT_EQ(log[0].find("--only"), std::string::npos);
  // Round 1 is timed as the timer decides; its way (single launches here, per configuration)
  // times every later round and the retries, of either build.
  const auto plans = log_lines(s, "plans.txt");
  ASSERT_EQ(plans.size(), 8u);
  EXPECT_EQ(plans[0], "-");
  for (std::size_t i = 1; i < 8; ++i)
    EXPECT_EQ(plans[i], "{\"" + problem + "\":{\"*\":1,\"" + x + "\":1,\"" + y + "\":1}}") << i;
  for (std::size_t i = 4; i < 8; ++i) {  // the retry: only the ambiguous problem, the suite as it is
    EXPECT_NE(log[i].find("--only " + problem + " --batch-plan "), std::string::npos) << log[i];
  }
  EXPECT_TRUE(fs::exists(s / "kept/gate.retry1-round4-a.db"));

  ASSERT_EQ(c.rows.size(), 1u);
  const auto& r = c.rows[0];
  EXPECT_EQ(r.verdict, verdict::same);
  EXPECT_EQ(r.retries, 1);
  EXPECT_EQ(r.candidate.sample_count, 212);  // A's rounds 1 and 4 (5 + 5), and 5 and 8 of the retry
  EXPECT_EQ(r.baseline.sample_count, 244);   // B's rounds 2 and 3 (21 + 21), 6 and 7
  EXPECT_EQ(c.candidate_source, "this build (rounds 1, 4)");
  EXPECT_EQ(c.baseline_source, o.against + " (rounds 2, 3)");
  ASSERT_TRUE(c.gate);
  EXPECT_EQ(c.gate->mode, "abba");
  EXPECT_EQ(c.gate->schedule, "A B B A");
  EXPECT_EQ(c.gate->retry_passes, 1);
  EXPECT_EQ(c.gate->databases.size(), 8u);
  // y was verified in one of A's two first rounds only: said, not pooled.
  ASSERT_FALSE(c.warnings.empty());
  EXPECT_NE(c.warnings[0].find(y + ": verified in 1 of 2 rounds"), std::string::npos) << c.warnings[0];
}

TEST(gate_run, against_a_baseline_a_retry_can_find_a_real_slowdown) {
  scratch s;
  write_db(s / "baseline.db", "old", {{x, around(100, 41, 0.01)}, {y, around(130, 41, 0.01)}});
  write_db(s / "a/1.db", "new", {{x, {95, 100, 106, 112, 118}}, {y, around(130, 41, 0.01)}});
  write_db(s / "a/2.db", "new", {{x, around(110, 201, 0.01)}, {y, around(131, 201, 0.01)}});
  gate::gate_options o;
  o.specs = {suite(s)};
  o.self = stand_in(s, "a");
  o.baseline = s / "baseline.db";
  o.retries = 2;
  o.compare.per_config = true;
  const auto c = gate::run_gate(o);
  const auto log = log_lines(s);
  ASSERT_EQ(log.size(), 2u);
  EXPECT_NE(log[1].find("--only " + problem), std::string::npos) << log[1];
  ASSERT_EQ(c.rows.size(), 3u);  // the winner row and the two configurations
  EXPECT_TRUE(c.rows[0].winner);
  EXPECT_EQ(c.rows[0].verdict, verdict::slower);  // 110 against 100, decided by the retry
  EXPECT_EQ(c.rows[0].retries, 1);
  EXPECT_EQ(c.rows[1].candidate.instance, x);
  EXPECT_EQ(c.rows[1].verdict, verdict::slower);
  EXPECT_EQ(c.rows[1].retries, 1);
  // y was SAME from the start, but the winner row's retry measured the whole problem again.
  EXPECT_EQ(c.rows[2].candidate.instance, y);
  EXPECT_EQ(c.rows[2].verdict, verdict::same);
  EXPECT_EQ(c.rows[2].retries, 1);
  EXPECT_EQ(c.rows[2].candidate.sample_count, 242);  // 41 + 201, pooled
  EXPECT_TRUE(c.regression());
  EXPECT_EQ(c.gate->mode, "baseline");
  EXPECT_TRUE(c.gate->databases.empty());  // temporary, removed
}

TEST(gate_run, a_problem_this_build_verified_nothing_of_is_an_error) {
  scratch s;
  write_db(s / "baseline.db", "old", {{x, around(100, 41, 0.01)}});
  write_db(s / "a/1.db", "new", {});  // the run finished with nothing verified
  gate::gate_options o;
  o.specs = {suite(s)};
  o.self = stand_in(s, "a");
  o.baseline = s / "baseline.db";
  const auto message = test::error_of([&] { gate::run_gate(o); });
  EXPECT_NE(message.find("nothing measured"), std::string::npos) << message;
}

TEST(gate_run, a_sweep_that_fails_stops_the_gate_and_an_unmeasurable_problem_is_named) {
  scratch s;
  gate::gate_options o;
  o.specs = {suite(s)};
  o.self = stand_in(s, "a");  // no database prepared: its sweep exits 1
  o.baseline = s / "baseline.db";
  write_db(s / "baseline.db", "old", {{x, around(100, 41, 0.01)}});
  auto message = test::error_of([&] { gate::run_gate(o); });
  EXPECT_NE(message.find("this build: its sweep failed (exit code 1)"), std::string::npos) << message;

  // A database of another problem only: the suite's problem is named.
  scratch t;
  std::ofstream(t / "suite.yaml")
      << "op: softmax\n"
         "problems: [{rows: 4096, cols: 4096, dtype: f32}, {rows: 8, cols: 32, dtype: f32}]\n"
         "candidates: [{family: block_row, params: {vec: 1, block_threads: 32, chunks: 1}}]\n";
  write_db(t / "a/1.db", "new", {{x, around(100, 41, 0.01)}});
  write_db(t / "baseline.db", "old", {{x, around(100, 41, 0.01)}});
  gate::gate_options p;
  p.specs = {t / "suite.yaml"};
  p.self = stand_in(t, "a");
  p.baseline = t / "baseline.db";
  message = test::error_of([&] { gate::run_gate(p); });
  EXPECT_NE(message.find("no verified result for 1 of the problems it measured: softmax_f32_8x32"), std::string::npos)
      << message;
}

TEST(gate_run, another_protocol_is_refused_before_anything_is_measured) {
  scratch s;
  gate::gate_options o;
  o.specs = {suite(s)};
  o.self = stand_in(s, "a");
  o.against = stand_in(s, "b", trial::protocol_version + 1);
  const auto message = test::error_of([&] { gate::run_gate(o); });
  EXPECT_NE(message.find(fmt::format("speaks protocol {}, this cuop-tune speaks protocol {}",
                                     trial::protocol_version + 1, trial::protocol_version)),
            std::string::npos)
      << message;
  EXPECT_TRUE(log_lines(s).empty());
}

TEST(gate_run, against_a_baseline_each_problem_is_timed_like_the_baselines_winner) {
  scratch s;
  // The baseline's winner x was timed in CUDA-graph batches of 241 launches: this build's sweep is
  // told to time the problem the same way, every configuration of it.
  write_db(s / "baseline.db", "old", {{x, around(10, 41, 0.01)}, {y, around(30, 41, 0.01)}}, {{x, 241}});
  write_db(s / "a/1.db", "new", {{x, around(10, 41, 0.01)}, {y, around(30, 41, 0.01)}}, {{x, 241}, {y, 241}});
  gate::gate_options o;
  o.specs = {suite(s)};
  o.self = stand_in(s, "a");
  o.baseline = s / "baseline.db";
  const auto c = gate::run_gate(o);
  EXPECT_EQ(log_lines(s, "plans.txt"),
            (std::vector<std::string>{"{\"" + problem + "\":{\"*\":241,\"" + x + "\":241,\"" + y + "\":1}}"}));
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].verdict, verdict::same);
  EXPECT_TRUE(c.measured_differently.empty());
}
