// The race (strategy: race) driven with a fake worker answering synthetic samples: the clearly
// slower are dropped with their samples, failures are stored once, the finalists are measured
// interleaved with the first round's batch size, and every contender is stored exactly once.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "tuner/runner/race.hpp"
#include "tuner/runner/trial_results.hpp"

using namespace cuop;

namespace {

runner::race_contender contender(const std::string& instance) {
  runner::race_contender c;
  c.trial.problem = {"softmax_f32_8x1024", "softmax", "f32", R"({"cols":1024,"rows":8})", 65536};
  c.trial.config = {instance, "softmax", "block_row", "f32", "{}"};
  c.request.entry = instance;
  c.request.measure.max_time_s = 2.0;
  return c;
}

struct fake_worker {
  std::map<std::string, double> center_us;  // per instance; absent: wrong answer
  std::map<std::string, int> batch;         // launches per sample the timer would choose
  std::mt19937 rng{11};
  std::vector<std::string> calls;
  std::vector<trial::trial_request> requests;

  trial::trial_response operator()(const trial::trial_request& r) {
    calls.push_back(r.entry);
    requests.push_back(r);
    trial::trial_response out;
    const auto it = center_us.find(r.entry);
    if (it == center_us.end()) {
      out.status = "wrong_answer";
      out.message = "row 0 column 0";
      return out;
    }
    out.status = "ok";
    std::normal_distribution<double> d(it->second, it->second * 0.002);
    for (int i = 0; i < 16; ++i) out.samples_us.push_back(d(rng));
    out.clocks_mhz.assign(16, 1980);
    out.batch = r.force_batch > 0 ? r.force_batch : batch[r.entry] > 0 ? batch[r.entry] : 1;
    out.clock_source = "nvml";
    out.warmup_ms = 30;
    return out;
  }
};

}  // namespace

TEST(race, drops_the_slow_stores_failures_and_measures_finalists_interleaved) {
  fake_worker w;
  w.center_us = {{"a", 10.0}, {"b", 10.01}, {"c", 12.0}};  // "d": wrong answer
  w.batch = {{"a", 40}, {"b", 40}, {"c", 40}};
  measure::settings m;
  m.race_round_s = 0.05;
  m.race_margin = 0.02;
  m.race_rounds = 3;
  m.race_final_rounds = 4;

  std::vector<store::trial_record> stored;
  runner::race_callbacks cb;
  cb.measure = [&](const trial::trial_request& r) { return w(r); };
  cb.store = [&](store::trial_record& t) {
    if (t.status == "ok" || t.status == "dropped_race") runner::summarize_trial(t);
    stored.push_back(t);
  };
  int between = 0;
  cb.between = [&] { ++between; };

  runner::run_race({contender("a"), contender("b"), contender("c"), contender("d")}, m, cb);

  ASSERT_EQ(stored.size(), 4u);  // each once
  std::map<std::string, store::trial_record> by;
  for (const auto& t : stored) by[t.config.instance] = t;
  EXPECT_EQ(by["d"].status, "wrong_answer");
  EXPECT_EQ(by["c"].status, "dropped_race");
  EXPECT_EQ(by["c"].sample_us.size(), 16u);  // dropped after round 1, its samples kept
  EXPECT_NE(by["c"].message.find("dropped in round 1"), std::string::npos) << by["c"].message;
  EXPECT_GT(by["c"].median_us, 11.5);
  for (const char* f : {"a", "b"}) {
    const auto& t = by[f];
    EXPECT_EQ(t.status, "ok") << f;
    EXPECT_EQ(t.stop_reason, "race");
    EXPECT_EQ(t.batch, 40);
    EXPECT_EQ(t.clock_source, "nvml");
    EXPECT_EQ(t.sample_us.size(), (3u + 4u) * 16u);  // 3 elimination + 4 final rounds, pooled
    EXPECT_EQ(t.sample_clock_mhz.size(), t.sample_us.size());
    EXPECT_NE(t.message.find("race finalist (2 of them)"), std::string::npos) << t.message;
  }
  // Round 1 decides the batch; every later round asks for it.
  for (const auto& r : w.requests) {
    EXPECT_DOUBLE_EQ(r.measure.max_time_s, 0.05);
  }
  int forced = 0;
  for (const auto& r : w.requests) forced += r.force_batch == 40 ? 1 : 0;
  EXPECT_EQ(forced, 2 * (2 + 4));
  // Finals alternate: a b, b a, a b, b a after the elimination rounds.
  const std::vector<std::string> tail(w.calls.end() - 8, w.calls.end());
  EXPECT_EQ(tail, (std::vector<std::string>{"a", "b", "b", "a", "a", "b", "b", "a"}));
  EXPECT_EQ(between, static_cast<int>(w.calls.size()));
}

TEST(race, a_round_with_another_batch_size_is_not_pooled) {
  fake_worker w;
  w.center_us = {{"a", 5.0}};
  w.batch = {{"a", 40}};
  measure::settings m;
  m.race_rounds = 2;
  std::vector<store::trial_record> stored;
  runner::race_callbacks cb;
  int call = 0;
  cb.measure = [&](const trial::trial_request& r) {
    auto out = w(r);
    if (++call == 2) out.batch = 1;  // the graph failed in round 2: single launches
    return out;
  };
  cb.store = [&](store::trial_record& t) { stored.push_back(t); };
  cb.between = [] {};
  runner::run_race({contender("a")}, m, cb);
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].status, "ok");
  EXPECT_EQ(stored[0].message, "race winner");
  // A lone contender: one round only (nothing to race), so the batch-1 round never happened.
  EXPECT_EQ(call, 1);
  EXPECT_EQ(stored[0].sample_us.size(), 16u);

  // Two contenders tied: rounds continue, and a mismatched round is left out.
  fake_worker w2;
  w2.center_us = {{"a", 5.0}, {"b", 5.0}};
  w2.batch = {{"a", 40}, {"b", 40}};
  stored.clear();
  call = 0;
  cb.measure = [&](const trial::trial_request& r) {
    auto out = w2(r);
    if (r.entry == "a" && ++call == 2) out.batch = 1;
    return out;
  };
  m.race_final_rounds = 2;
  runner::run_race({contender("a"), contender("b")}, m, cb);
  ASSERT_EQ(stored.size(), 2u);
  for (const auto& t : stored) {
    EXPECT_EQ(t.status, "ok");
    EXPECT_EQ(t.batch, 40);
    EXPECT_EQ(t.sample_us.size(), (t.config.instance == "a" ? 3u : 4u) * 16u) << t.config.instance;
  }
}

TEST(race, a_batch_plan_decides_round_one_too) {
  fake_worker w;
  w.center_us = {{"a", 5.0}, {"b", 5.01}};
  w.batch = {{"a", 40}, {"b", 40}};  // what the timer would choose; the plan says single launches
  measure::settings m;
  m.race_rounds = 2;
  m.race_final_rounds = 2;
  runner::race_callbacks cb;
  cb.measure = [&](const trial::trial_request& r) { return w(r); };
  std::vector<store::trial_record> stored;
  cb.store = [&](store::trial_record& t) { stored.push_back(t); };
  cb.between = [] {};
  auto a = contender("a"), b = contender("b");
  a.request.force_batch = b.request.force_batch = 1;
  runner::run_race({a, b}, m, cb);
  ASSERT_FALSE(w.requests.empty());
  for (const auto& r : w.requests) EXPECT_EQ(r.force_batch, 1) << r.entry;
  for (const auto& t : stored) EXPECT_EQ(t.batch, 1) << t.config.instance;
}

// The baseline (what the dispatch model must beat) is never dropped: it is measured through the
// final rounds and stored "ok", so every raced problem is an anchor of the model.
TEST(race, the_baseline_is_a_finalist_however_slow) {
  fake_worker w;
  w.center_us = {{"a", 10.0}, {"base", 20.0}, {"c", 30.0}};
  measure::settings m;
  m.race_rounds = 3;
  m.race_final_rounds = 2;
  std::vector<store::trial_record> stored;
  runner::race_callbacks cb;
  cb.measure = [&](const trial::trial_request& r) { return w(r); };
  cb.store = [&](store::trial_record& t) {
    if (t.status == "ok" || t.status == "dropped_race") runner::summarize_trial(t);
    stored.push_back(t);
  };
  cb.between = [] {};
  auto base = contender("base");
  base.baseline = true;
  runner::run_race({contender("a"), base, contender("c")}, m, cb);
  std::map<std::string, store::trial_record> by;
  for (const auto& t : stored) by[t.config.instance] = t;
  ASSERT_EQ(stored.size(), 3u);
  EXPECT_EQ(by["c"].status, "dropped_race");
  EXPECT_EQ(by["base"].status, "ok");
  EXPECT_EQ(by["a"].status, "ok");
  EXPECT_EQ(by["base"].sample_us.size(), (3u + 2u) * 16u);  // every round, as the winner's
  EXPECT_NE(by["base"].message.find("race finalist (2 of them)"), std::string::npos) << by["base"].message;
}
