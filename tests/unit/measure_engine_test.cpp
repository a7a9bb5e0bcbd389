// The measurement engine's decisions on synthetic data: warm-up settling, the stopping rule,
// batching plans, the environment checks, the race's eliminations and ties, the clock probe
// (compiled with NVRTC, no GPU needed), the protocol's new fields and the measure settings.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "test_support.hpp"
#include "tuner/measure/batching.hpp"
#include "tuner/measure/environment_check.hpp"
#include "tuner/measure/settle.hpp"
#include "tuner/measure/sm_clock.hpp"
#include "tuner/measure/stopping.hpp"
#include "tuner/spec/spec.hpp"
#include "tuner/strategy/race.hpp"
#include "tuner/trial/protocol.hpp"

using namespace cuop::measure;
using cuop::test::error_of;

namespace {

std::vector<double> constant(std::size_t n, double v) { return std::vector<double>(n, v); }

std::vector<double> noisy(std::size_t n, double center, double rel_sd, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> d(center, center * rel_sd);
  std::vector<double> v;
  for (std::size_t i = 0; i < n; ++i) v.push_back(d(rng));
  return v;
}

}  // namespace

// --- warm-up --------------------------------------------------------------------------------

TEST(settle, median_of_odd_even_and_empty) {
  EXPECT_DOUBLE_EQ(median_of(std::vector<double>{3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median_of(std::vector<double>{4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median_of(std::vector<double>{}), 0);
}

TEST(settle, needs_two_windows_of_times) {
  const settle_rule rule;
  EXPECT_FALSE(is_settled(constant(15, 10.0), constant(15, 1980), rule));
  EXPECT_TRUE(is_settled(constant(16, 10.0), constant(16, 1980), rule));
}

TEST(settle, a_ramping_clock_is_not_settled_until_it_stops) {
  // Idle -> boost: 1000 MHz rising 60 MHz per launch to 1980, times falling with it.
  std::vector<double> clocks, times;
  for (int i = 0; i < 40; ++i) {
    const double mhz = std::min(1980.0, 1000.0 + 60.0 * i);
    clocks.push_back(mhz);
    times.push_back(20.0 * 1980.0 / mhz);
  }
  const settle_rule rule;
  int first_settled = -1;
  for (std::size_t n = 1; n <= times.size(); ++n)
    if (is_settled(std::span(times).first(n), std::span(clocks).first(n), rule)) {
      first_settled = static_cast<int>(n);
      break;
    }
  // The clock reaches 1980 at launch 17 (index 16); 8 steady readings and 16 steady times later.
  EXPECT_GE(first_settled, 17 + 8);
  EXPECT_LE(first_settled, 17 + 16);
}

TEST(settle, clock_band_and_unknown_clocks) {
  const settle_rule rule;  // 1% band
  std::vector<double> clocks = constant(16, 1980);
  clocks[12] = 1950;  // 1.5% off: not settled
  EXPECT_FALSE(is_settled(constant(16, 10.0), clocks, rule));
  clocks[12] = 1965;  // 0.76%: within the band (one NVML step of 15 MHz)
  EXPECT_TRUE(is_settled(constant(16, 10.0), clocks, rule));
  // A 0 reading is "unknown": the time test alone decides.
  clocks[12] = 0;
  EXPECT_TRUE(is_settled(constant(16, 10.0), clocks, rule));
  EXPECT_TRUE(is_settled(constant(16, 10.0), {}, rule));
}

TEST(settle, moving_times_are_not_settled_but_resolution_jitter_is) {
  const settle_rule rule;  // 2% or 0.5 us
  std::vector<double> t = constant(8, 100.0);
  for (int i = 0; i < 8; ++i) t.push_back(95.0);  // 5% faster: still moving
  EXPECT_FALSE(is_settled(t, {}, rule));
  std::vector<double> shortk = constant(8, 3.0);
  for (int i = 0; i < 8; ++i) shortk.push_back(3.4);  // 13% but under the events' 0.5 us
  EXPECT_TRUE(is_settled(shortk, {}, rule));
}

// --- stopping rule --------------------------------------------------------------------------

namespace {

// Feeds `samples` to the rule in batches of 8; the reason and the count it stopped at.
std::pair<std::string, std::size_t> run_rule(const stop_rule& r, const std::vector<double>& samples,
                                             double seconds_per_batch = 0.001) {
  stopping_rule rule(r);
  for (std::size_t n = 8; n <= samples.size(); n += 8) {
    const std::size_t batches = n / 8;
    const auto why = rule.after_batch(std::span(samples).first(n), seconds_per_batch * static_cast<double>(batches));
    if (!why.empty()) return {why, n};
  }
  return {"", samples.size()};
}

}  // namespace

TEST(stopping, tight_samples_stop_on_the_ci_after_min_samples) {
  stop_rule r;
  r.min_samples = 10;
  const auto [why, n] = run_rule(r, noisy(1000, 100, 0.002, 1));
  EXPECT_EQ(why, "ci");
  EXPECT_EQ(n, 16u);  // the first batch end at or past min_samples
}

TEST(stopping, noise_that_stops_shrinking_exits_with_stable_noise) {
  // Samples quantized to the events' 0.5 us on a 4 us kernel: the CI's ends stick to the same
  // values, its width stops changing well above 1%.
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> q(7, 9);  // 3.5, 4.0 or 4.5 us
  std::vector<double> v;
  for (int i = 0; i < 2000; ++i) v.push_back(0.5 * q(rng));
  stop_rule r;
  r.max_samples = 2000;
  r.max_time_s = 1e9;
  const auto [why, n] = run_rule(r, v);
  EXPECT_EQ(why, "stable_noise");
  EXPECT_LT(n, 200u);
}

TEST(stopping, a_shrinking_ci_does_not_trigger_stable_noise) {
  stop_rule r;
  r.rel_ci = 0.001;  // out of reach
  r.max_samples = 64;
  r.max_time_s = 1e9;
  r.stable_change = 0.0;  // only an exactly constant width would count
  const auto [why, n] = run_rule(r, noisy(64, 100, 0.05, 5));
  EXPECT_EQ(why, "max_samples");
  EXPECT_EQ(n, 64u);
}

TEST(stopping, stable_noise_waits_for_min_samples_and_can_be_turned_off) {
  stop_rule r;
  r.min_samples = 40;
  r.rel_ci = 1e-6;
  r.max_samples = 200;
  r.max_time_s = 1e9;
  // Constant width from the start (two values): not before the window lies past min_samples.
  std::vector<double> v;
  for (int i = 0; i < 200; ++i) v.push_back(i % 2 ? 10.0 : 11.0);
  const auto [why, n] = run_rule(r, v);
  EXPECT_EQ(why, "stable_noise");
  EXPECT_EQ(n, 40u + 3 * 8);  // first batch end >= 40 is 40; three more batches
  r.stable_batches = 0;
  EXPECT_EQ(run_rule(r, v).first, "max_samples");
}

TEST(stopping, time_cap_needs_three_samples_and_caps_are_reported) {
  stop_rule r;
  r.rel_ci = 1e-6;
  r.stable_batches = 0;
  r.max_time_s = 0.0025;
  const auto [why, n] = run_rule(r, noisy(400, 100, 0.1, 9));
  EXPECT_EQ(why, "max_time");
  EXPECT_EQ(n, 24u);  // 3 batches x 1 ms
  stopping_rule rule(r);
  EXPECT_EQ(rule.after_batch(std::vector<double>{1, 2}, 10.0), "");  // 2 samples: not yet
  EXPECT_EQ(rule.widths().size(), 1u);
}

// --- batching -------------------------------------------------------------------------------

TEST(batching, long_kernels_and_ops_without_sets_stay_single) {
  const long long l2 = 60LL << 20;
  EXPECT_EQ(plan_batch(25.0, 20.0, 1 << 20, l2).launches, 1);
  EXPECT_EQ(plan_batch(5.0, 0.0, 1 << 20, l2).launches, 1);   // threshold 0: never
  EXPECT_EQ(plan_batch(5.0, 20.0, 0, l2).launches, 1);        // no sets offered
  EXPECT_EQ(plan_batch(0.0, 20.0, 1 << 20, l2).launches, 1);  // no estimate
}

TEST(batching, sets_exceed_twice_the_l2_and_every_set_is_used) {
  const long long l2 = 60LL << 20;  // H200: 60 MB
  // A 5 us softmax moving 16 MB (in + out): 8 sets (128 MB > 120 MB), 40 launches (200 us).
  const auto p = plan_batch(5.0, 20.0, 16u << 20, l2);
  EXPECT_EQ(p.sets, 8);
  EXPECT_GT(static_cast<double>(p.sets) * (16 << 20), 2.0 * l2);
  EXPECT_EQ(p.launches, 40);
  EXPECT_FALSE(p.flush);
  EXPECT_GE(p.launches, p.sets);
  // A 1 us kernel on 64 KB: 256 sets at most (16 MB, short of 2 x L2): flushed before each graph.
  const auto tiny = plan_batch(1.0, 20.0, 64u << 10, l2);
  EXPECT_EQ(tiny.sets, 256);
  EXPECT_EQ(tiny.launches, 256);
  EXPECT_TRUE(tiny.flush);
  // A later round forces the launches of the first.
  const auto forced = plan_forced_batch(40, 16u << 20, l2);
  EXPECT_EQ(forced.launches, 40);
  EXPECT_EQ(forced.sets, 8);
  EXPECT_EQ(plan_forced_batch(1, 16u << 20, l2).launches, 1);
}

// --- environment ----------------------------------------------------------------------------

TEST(environment_check, other_processes_leave_out_the_worker) {
  EXPECT_EQ(other_processes({10, 42, 7}, 42), (std::vector<unsigned>{10, 7}));
  EXPECT_EQ(other_processes({42}, 42), std::vector<unsigned>{});
  // PID namespace: the worker's own PID is not listed; one entry is taken to be it.
  EXPECT_EQ(other_processes({9001}, 42), std::vector<unsigned>{});
  EXPECT_EQ(other_processes({9001, 9002}, 42), std::vector<unsigned>{9002});
}

TEST(environment_check, assess_names_what_is_wrong) {
  const environment_limits limits;  // 85 C
  gpu_environment e;
  EXPECT_EQ(assess(e, limits), "");  // not checked: nothing known against it
  e.checked = e.pids_known = e.reasons_known = true;
  e.temperature_c = 40;
  e.slowdown_c = 90;
  e.clock_reasons = clock_reason::gpu_idle | clock_reason::applications_clocks;
  EXPECT_EQ(assess(e, limits), "");
  e.other_pids = {1234};
  EXPECT_EQ(assess(e, limits), "1 other compute process on the GPU (pid 1234)");
  e.other_pids = {1234, 5678};
  e.clock_reasons |= clock_reason::sw_thermal | 0x10000;
  e.temperature_c = 86;
  EXPECT_EQ(assess(e, limits),
            "2 other compute processes on the GPU (pids 1234, 5678), clock event reasons: sw_thermal, 0x10000, "
            "temperature 86 C (limit 85 C)");
  e.other_pids.clear();
  e.clock_reasons = 0;
  e.temperature_c = 84;
  e.slowdown_c = 87;
  EXPECT_EQ(assess(e, limits), "temperature 84 C (the GPU slows down at 87 C)");
}

TEST(environment_check, a_run_is_judged_on_both_ends_and_survives_json) {
  gpu_environment good;
  good.checked = good.pids_known = good.reasons_known = true;
  good.temperature_c = 35;
  good.sm_clock_mhz = 1980;
  auto bad = good;
  bad.clock_reasons = clock_reason::sw_power_cap;
  const environment_limits limits;
  EXPECT_EQ(assess_run(good, good, limits), "");
  // Power-capped after the run: its own GEMMs at the board's limit. Before it: something else.
  EXPECT_EQ(assess_run(good, bad, limits), "");
  EXPECT_EQ(assess_run(bad, good, limits), "before the run: clock event reasons: sw_power_cap");
  EXPECT_EQ(assess_run(bad, bad, limits), "before the run: clock event reasons: sw_power_cap");
  auto hot = bad;
  hot.clock_reasons |= clock_reason::sw_thermal;
  EXPECT_EQ(assess_run(good, hot, limits), "after the run: clock event reasons: sw_thermal");

  bad.other_pids = {77};
  const auto back = gpu_environment_from_json(to_json(bad));
  EXPECT_TRUE(back.checked);
  EXPECT_EQ(back.other_pids, std::vector<unsigned>{77});
  EXPECT_EQ(back.clock_reasons, clock_reason::sw_power_cap);
  EXPECT_EQ(back.temperature_c, 35u);
  EXPECT_EQ(back.sm_clock_mhz, 1980u);
  EXPECT_EQ(assess(back, limits), assess(bad, limits));
  gpu_environment absent;
  absent.error = "NVML unavailable: libnvidia-ml.so.1: cannot open shared object file";
  const auto a = gpu_environment_from_json(to_json(absent));
  EXPECT_FALSE(a.checked);
  EXPECT_EQ(a.error, absent.error);
  EXPECT_EQ(describe_clock_reasons(0), "none");
}

// --- race -----------------------------------------------------------------------------------

TEST(race, clearly_slower_candidates_are_dropped_and_the_leader_stays) {
  using cuop::strategy::race_entry;
  const std::vector<race_entry> e = {
      {10.0, 9.9, 10.1},    // 0: the leader
      {10.15, 10.0, 10.3},  // 1: overlaps: stays
      {10.4, 10.25, 10.5},  // 2: above 10.1 but within 2%: stays
      {11.0, 10.9, 11.1},   // 3: clearly slower: dropped
  };
  EXPECT_EQ(cuop::strategy::race_leader(e), 0u);
  EXPECT_EQ(cuop::strategy::race_survivors(e, 0.02), (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(cuop::strategy::race_survivors(e, 0.0), (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(cuop::strategy::ties_with_leader(e), (std::vector<std::size_t>{1}));
  EXPECT_TRUE(cuop::strategy::race_survivors({}, 0.02).empty());
}

TEST(race, interleaved_rounds_alternate_direction) {
  EXPECT_EQ(cuop::strategy::interleaved_order(3, 0), (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(cuop::strategy::interleaved_order(3, 1), (std::vector<std::size_t>{2, 1, 0}));
  EXPECT_EQ(cuop::strategy::interleaved_order(3, 2), (std::vector<std::size_t>{0, 1, 2}));
}

// --- clocks ---------------------------------------------------------------------------------

TEST(sm_clock, probe_compiles_to_ptx_without_a_gpu) {
  std::string log;
  const std::string ptx = compile_clock_probe(log);
  ASSERT_FALSE(ptx.empty()) << log;
  EXPECT_NE(ptx.find("cuop_clock_probe"), std::string::npos);
  EXPECT_NE(ptx.find("%globaltimer"), std::string::npos);
  EXPECT_NE(ptx.find("%clock64"), std::string::npos);
}

TEST(sm_clock, probe_readings_to_mhz) {
  EXPECT_DOUBLE_EQ(probe_to_mhz(20000, 39600000ULL / 1000), 1980.0);  // 39600 cycles in 20 us
  EXPECT_DOUBLE_EQ(probe_to_mhz(0, 123), 0.0);
  EXPECT_STREQ(sm_clock::unknown()->name(), "none");
  EXPECT_DOUBLE_EQ(sm_clock::unknown()->read_now(), 0.0);
}

// --- protocol and settings ------------------------------------------------------------------

TEST(measure_protocol, new_fields_round_trip_and_old_messages_still_read) {
  cuop::trial::trial_response r;
  r.status = "ok";
  r.samples_us = {3.0, 3.1};
  r.clocks_mhz = {1980, 1965};
  r.warmup_ms = 42.5;
  r.warmup_launches = 64;
  r.warmup_capped = true;
  r.batch = 40;
  r.buffer_sets = 8;
  r.clock_source = "nvml";
  r.note = "n";
  const auto back = cuop::trial::trial_response_from_json(cuop::trial::to_json(r));
  EXPECT_EQ(back.clocks_mhz, r.clocks_mhz);
  EXPECT_DOUBLE_EQ(back.warmup_ms, 42.5);
  EXPECT_EQ(back.warmup_launches, 64);
  EXPECT_TRUE(back.warmup_capped);
  EXPECT_EQ(back.batch, 40);
  EXPECT_EQ(back.buffer_sets, 8);
  EXPECT_EQ(back.clock_source, "nvml");
  const auto old = cuop::trial::trial_response_from_json({{"status", "ok"}, {"samples_us", {1.0}}});
  EXPECT_EQ(old.batch, 1);
  EXPECT_TRUE(old.clocks_mhz.empty());

  cuop::trial::trial_request q;
  q.cubin_path = "x.cubin";
  q.entry = "k";
  q.dtype = "f32";
  q.config = nlohmann::json::object();
  q.dims = nlohmann::json::object();
  q.force_batch = 40;
  q.measure.warmup_cap_ms = 123;
  q.measure.stable_batches = 5;
  q.measure.stable_change = 0.07;
  q.measure.batch_below_us = 12.5;
  const auto qb = cuop::trial::trial_request_from_json(cuop::trial::to_json(q));
  EXPECT_EQ(qb.force_batch, 40);
  EXPECT_EQ(qb.measure.warmup_cap_ms, 123);
  EXPECT_EQ(qb.measure.stable_batches, 5);
  EXPECT_DOUBLE_EQ(qb.measure.stable_change, 0.07);
  EXPECT_DOUBLE_EQ(qb.measure.batch_below_us, 12.5);
}

namespace {

const std::string sweep_head =
    "op: softmax\n"
    "problems: [{rows: 8, cols: 1024, dtype: f32}]\n"
    "candidates:\n"
    "  - family: block_row\n"
    "    params: {vec: 4, block_threads: 256, chunks: 1}\n";

}  // namespace

TEST(measure_settings, new_keys_parse_with_defaults_and_race_is_a_strategy) {
  const auto d = cuop::spec::parse(sweep_head, "x.yaml");
  EXPECT_EQ(d.strategy, "exhaustive");
  EXPECT_EQ(d.measure.warmup_cap_ms, 300);
  EXPECT_EQ(d.measure.stable_batches, 3);
  EXPECT_DOUBLE_EQ(d.measure.batch_below_us, 20);
  EXPECT_TRUE(d.measure.env_check);
  const auto s =
      cuop::spec::parse(sweep_head +
                            "measure: {warmup_cap_ms: 800, stable_batches: 4, stable_change: 0.05, batch_below_us: 0, "
                            "env_check: false, max_temp_c: 80, race_round_s: 0.1, race_margin: 0.03, race_rounds: 2, "
                            "race_final_rounds: 6}\n"
                            "strategy: race\n",
                        "x.yaml");
  EXPECT_EQ(s.strategy, "race");
  EXPECT_EQ(s.measure.warmup_cap_ms, 800);
  EXPECT_EQ(s.measure.stable_batches, 4);
  EXPECT_DOUBLE_EQ(s.measure.stable_change, 0.05);
  EXPECT_DOUBLE_EQ(s.measure.batch_below_us, 0);
  EXPECT_FALSE(s.measure.env_check);
  EXPECT_EQ(s.measure.max_temp_c, 80);
  EXPECT_DOUBLE_EQ(s.measure.race_round_s, 0.1);
  EXPECT_DOUBLE_EQ(s.measure.race_margin, 0.03);
  EXPECT_EQ(s.measure.race_rounds, 2);
  EXPECT_EQ(s.measure.race_final_rounds, 6);
}

TEST(measure_settings, bad_values_name_the_place) {
  EXPECT_EQ(error_of([] { cuop::spec::parse(sweep_head + "measure: {stable_change: 1.5}\n", "x.yaml"); }),
            "x.yaml:6:26: expected a number in [0, 1) for \"stable_change\", got \"1.5\"");
  EXPECT_EQ(error_of([] { cuop::spec::parse(sweep_head + "measure: {race_rounds: 0}\n", "x.yaml"); }),
            "x.yaml:6:24: expected an integer in [1, 1000000] for \"race_rounds\", got \"0\"");
  EXPECT_EQ(error_of([] { cuop::spec::parse(sweep_head + "strategy: rase\n", "x.yaml"); }),
            "x.yaml:6:11: unknown strategy \"rase\" (did you mean \"race\"?)");
}
