// strategy: transfer's decisions (tuner/strategy/transfer.hpp) on synthetic shapes and outcomes:
// the budget's arithmetic, the visit order, the neighbours and their winners, the order of a
// problem's candidates (baseline, neighbours' winners, seeded rest), what a resumed problem still
// measures, and the replay's regret on results with a known answer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "test_support.hpp"
#include "tuner/runner/transfer_knowledge.hpp"
#include "tuner/spec/spec.hpp"
#include "tuner/strategy/replay.hpp"
#include "tuner/strategy/transfer.hpp"

using namespace cuop;
using strategy::measured_problem;
using strategy::outcome;
using strategy::pick_reason;
using strategy::shape_point;

namespace {

strategy::trial_budget trials(std::size_t n) { return {n, 0}; }
strategy::trial_budget fraction(double f) { return {0, f}; }

// A verified outcome with a tight interval (+-0.5%).
outcome timed(const std::string& instance, double us) { return {instance, us, us * 0.995, us * 1.005}; }

measured_problem known(const std::string& key, std::vector<double> features, std::vector<outcome> verified,
                       const std::string& group = "f16") {
  return {{key, group, std::move(features)}, std::move(verified)};
}

std::vector<std::string> instances(const std::vector<strategy::pick>& picks) {
  std::vector<std::string> out;
  for (const auto& p : picks) out.push_back(p.instance);
  return out;
}

std::vector<std::string> letters(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(std::string(1, static_cast<char>('a' + i)));
  return out;
}

}  // namespace

TEST(transfer, budget_counts_trials_or_a_fraction_of_the_candidates) {
  EXPECT_EQ(trials(12).for_problem(100), 12u);
  EXPECT_EQ(trials(12).for_problem(5), 5u);  // never more than there are
  EXPECT_EQ(trials(12).for_problem(0), 0u);
  EXPECT_EQ(fraction(0.25).for_problem(100), 25u);
  EXPECT_EQ(fraction(0.25).for_problem(10), 3u);  // rounded up
  EXPECT_EQ(fraction(0.1).for_problem(30), 3u);   // 0.1 x 30 is 3.0000000000000004 in doubles
  EXPECT_EQ(fraction(0.01).for_problem(20), 1u);  // at least one
  EXPECT_EQ(fraction(1).for_problem(7), 7u);
  EXPECT_EQ(fraction(0.5).for_problem(0), 0u);
  EXPECT_EQ(trials(1).str(), "1 trial");
  EXPECT_EQ(trials(12).str(), "12 trials");
  EXPECT_EQ(fraction(0.25).str(), "25%");
}

TEST(transfer, visits_by_group_then_features_whatever_the_input_order) {
  std::vector<shape_point> shapes = {{"f16_c", "f16", {3, 1}},
                                     {"bf16_a", "bf16", {9, 9}},
                                     {"f16_a", "f16", {1, 5}},
                                     {"f16_b", "f16", {1, 2}},
                                     {"bf16_b", "bf16", {2, 2}}};
  const auto keys = [](const std::vector<shape_point>& s) {
    std::vector<std::string> out;
    for (const auto i : strategy::visit_order(s)) out.push_back(s[i].key);
    return out;
  };
  const std::vector<std::string> expected = {"bf16_b", "bf16_a", "f16_b", "f16_a", "f16_c"};
  EXPECT_EQ(keys(shapes), expected);
  std::reverse(shapes.begin(), shapes.end());
  EXPECT_EQ(keys(shapes), expected);
  std::rotate(shapes.begin(), shapes.begin() + 2, shapes.end());
  EXPECT_EQ(keys(shapes), expected);
}

TEST(transfer, nearest_measured_problems_are_of_the_same_group_nearest_first) {
  const std::vector<measured_problem> k = {
      known("far", {10, 10}, {timed("x", 1)}),
      known("near_b", {1, 2}, {timed("x", 1)}),
      known("other_dtype", {1, 1}, {timed("x", 1)}, "bf16"),
      known("nothing_verified", {1, 1}, {}),
      known("near_a", {2, 1}, {timed("x", 1)}),  // as near as near_b: by key
      known("mid", {3, 3}, {timed("x", 1)}),
  };
  const shape_point s{"query", "f16", {1, 1}};
  EXPECT_EQ(strategy::nearest_measured(s, k, 3), (std::vector<std::size_t>{4, 1, 5}));
  EXPECT_EQ(strategy::nearest_measured(s, k, 10), (std::vector<std::size_t>{4, 1, 5, 0}));
  EXPECT_TRUE(strategy::nearest_measured(s, k, 0).empty());
  // The same shape measured before (an earlier run) is the nearest of all.
  const std::vector<measured_problem> again = {known("mid", {3, 3}, {timed("x", 1)}),
                                               known("query", {1, 1}, {timed("x", 1)})};
  EXPECT_EQ(strategy::nearest_measured(s, again, 1), (std::vector<std::size_t>{1}));
  // Among given candidates, a neighbour that measured none of them has nothing to say.
  const std::set<std::string> only_y = {"y"};
  const std::vector<measured_problem> mixed = {known("near_x", {1, 2}, {timed("x", 1)}),
                                               known("far_y", {4, 4}, {timed("x", 1), timed("y", 2)})};
  EXPECT_EQ(strategy::nearest_measured(s, mixed, 1, &only_y), (std::vector<std::size_t>{1}));
  EXPECT_EQ(strategy::nearest_measured(s, mixed, 1), (std::vector<std::size_t>{0}));
  EXPECT_DOUBLE_EQ(strategy::feature_distance(std::vector<double>{1, 2}, std::vector<double>{3, 0}), 4.0);
}

TEST(transfer, winners_are_the_best_and_what_the_data_cannot_tell_from_it) {
  const auto p = known("p", {1},
                       {timed("slow", 20),
                        timed("best", 10),
                        {"overlapping", 10.6, 9.9, 11.3},
                        timed("near", 10.25),
                        timed("runner_up", 10.8)});
  const auto w = strategy::winners_of(p);
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[0].instance, "best");
  EXPECT_DOUBLE_EQ(w[0].ratio, 1.0);
  EXPECT_EQ(w[1].instance, "near");  // within 3% of the best
  EXPECT_DOUBLE_EQ(w[1].ratio, 1.025);
  EXPECT_EQ(w[2].instance, "overlapping");  // 6% slower, but its interval reaches the best's
  EXPECT_TRUE(strategy::winners_of(known("none", {1}, {})).empty());
  // Among candidates: the best of those, "runner_up" (8% behind "best") wins when "best" and the
  // others within 3% of it are no candidates.
  const std::set<std::string> here = {"runner_up", "slow"};
  const auto among = strategy::winners_of(p, &here);
  ASSERT_EQ(among.size(), 1u);
  EXPECT_EQ(among[0].instance, "runner_up");
  EXPECT_DOUBLE_EQ(among[0].ratio, 1.0);
}

TEST(transfer, order_is_baseline_then_neighbours_winners_then_the_seeded_rest) {
  const std::vector<measured_problem> k = {
      known("far", {5}, {timed("w_far", 10), timed("r_far", 10.2), timed("base", 12)}),
      known("near", {2}, {timed("w_near", 10), timed("r_near", 10.1), timed("not_here", 9), timed("base", 30)}),
      known("other_group", {1}, {timed("w_other", 1)}, "bf16"),
  };
  // "not_here" won nearby but is no candidate of this problem: "near" is judged by the best of
  // the candidates ("w_near"); "w_other" won in another group.
  auto cands = letters(6);
  for (const char* c : {"w_far", "r_far", "base", "w_near", "r_near", "w_other"}) cands.push_back(c);
  const shape_point s{"query", "f16", {1}};
  const strategy::transfer_params params{fraction(1), 4, 7};
  const auto order = strategy::transfer_order(s, cands, "base", k, params);
  ASSERT_EQ(order.size(), cands.size());  // every candidate, once
  const auto ordered = instances(order);
  EXPECT_EQ(std::set<std::string>(cands.begin(), cands.end()), std::set<std::string>(ordered.begin(), ordered.end()));
  EXPECT_EQ(order[0].instance, "base");
  EXPECT_EQ(order[0].reason, pick_reason::baseline);
  // Winners first (nearest neighbour first), then the near-winners by their ratio.
  const std::vector<std::string> suggested = {"w_near", "w_far", "r_near", "r_far"};
  for (std::size_t i = 0; i < suggested.size(); ++i) {
    EXPECT_EQ(order[1 + i].instance, suggested[i]);
    EXPECT_EQ(order[1 + i].reason, pick_reason::neighbour);
  }
  EXPECT_EQ(order[1].from, "near");
  EXPECT_EQ(order[2].from, "far");
  for (std::size_t i = 5; i < order.size(); ++i) EXPECT_EQ(order[i].reason, pick_reason::random) << i;
  // The candidates' order and duplicates do not matter.
  auto shuffled = cands;
  std::reverse(shuffled.begin(), shuffled.end());
  shuffled.push_back("a");
  EXPECT_EQ(instances(strategy::transfer_order(s, shuffled, "base", k, params)), instances(order));
  // Without neighbours: the baseline, then the random order; a baseline that is no candidate is
  // not measured.
  const auto alone = strategy::transfer_order(s, cands, "base", {}, params);
  EXPECT_EQ(alone[0].instance, "base");
  EXPECT_EQ(alone[1].reason, pick_reason::random);
  EXPECT_EQ(strategy::transfer_order(s, cands, "absent", {}, params)[0].reason, pick_reason::random);
  // transfer_neighbours: 0 asks nobody.
  const strategy::transfer_params none{fraction(1), 0, 7};
  EXPECT_EQ(strategy::transfer_order(s, cands, "base", k, none)[1].reason, pick_reason::random);
}

TEST(transfer, random_order_is_reproducible_from_its_seed) {
  const auto names = letters(20);
  const auto once = strategy::seeded_order(names, 1, "softmax_f16_1024x1024");
  EXPECT_EQ(once, strategy::seeded_order(names, 1, "softmax_f16_1024x1024"));
  auto reversed = names;
  std::reverse(reversed.begin(), reversed.end());
  EXPECT_EQ(once, strategy::seeded_order(reversed, 1, "softmax_f16_1024x1024"));  // a set: input order aside
  EXPECT_EQ(std::set<std::string>(once.begin(), once.end()), std::set<std::string>(names.begin(), names.end()));
  EXPECT_NE(once, strategy::seeded_order(names, 2, "softmax_f16_1024x1024"));
  EXPECT_NE(once, strategy::seeded_order(names, 1, "softmax_f16_1024x2048"));  // each problem its own order
  // The sequence itself is fixed (splitmix64, Fisher-Yates): the same on every platform and build.
  EXPECT_EQ(strategy::seeded_order(letters(8), 1, "p"),
            (std::vector<std::string>{"e", "d", "c", "h", "b", "f", "a", "g"}));
}

TEST(transfer, to_measure_counts_what_was_measured_before_against_the_budget) {
  std::vector<strategy::pick> order;
  for (const auto& n : letters(6)) order.push_back({n, pick_reason::random, ""});
  EXPECT_EQ(instances(strategy::to_measure(order, {}, 3)), (std::vector<std::string>{"a", "b", "c"}));
  // A resumed problem: "b" and "z" (a configuration no longer listed) were measured already.
  const std::vector<std::string> before = {"b", "z"};
  EXPECT_EQ(instances(strategy::to_measure(order, before, 3)), (std::vector<std::string>{"a"}));
  EXPECT_EQ(instances(strategy::to_measure(order, before, 5)), (std::vector<std::string>{"a", "c", "d"}));
  EXPECT_TRUE(strategy::to_measure(order, before, 2).empty());
  EXPECT_TRUE(strategy::to_measure(order, {}, 0).empty());
  EXPECT_EQ(strategy::to_measure(order, {}, 100).size(), 6u);
}

// Three problems of one group along one feature; four candidates each. The first visited ("p1")
// knows nothing: baseline "base", then its random order. The others learn from what was measured
// before them.
TEST(transfer, replay_scores_the_choice_against_the_best_of_all) {
  const auto problem = [](const std::string& key, double feature, const std::vector<outcome>& verified,
                          const std::vector<std::string>& failed = {}) {
    strategy::replay_problem p;
    p.shape = {key, "f16", {feature}};
    p.baseline = "base";
    for (const auto& o : verified) {
      p.candidates.push_back(o.instance);
      p.verified[o.instance] = o;
    }
    for (auto& f : failed) p.candidates.push_back(f);
    return p;
  };
  std::vector<strategy::replay_problem> problems = {
      problem("p3", 3, {timed("base", 10), timed("fast", 5), timed("mid", 8)}, {"broken"}),
      problem("p1", 1, {timed("base", 10), timed("fast", 4), timed("mid", 9)}, {"broken"}),
      problem("p2", 2, {timed("base", 10), timed("fast", 5), timed("mid", 2)}, {"broken"}),
  };
  // Everything: no regret, every trial.
  const auto all = strategy::replay_transfer(problems, {fraction(1), 4, 1});
  EXPECT_EQ(all.trials, 12u);
  EXPECT_EQ(all.exhaustive_trials, 12u);
  EXPECT_DOUBLE_EQ(all.geomean_regret, 0);
  EXPECT_EQ(all.exact, 3u);
  // Two trials each: the baseline and one more. p1 knows nothing and takes the first of its
  // random order after the baseline (base fast broken mid, seed 1, salt "p1"): "fast", its best;
  // p2 takes p1's winner, "fast" (2.5 times its best, "mid"); p3 the winner of p2 and p1, "fast".
  ASSERT_EQ(strategy::seeded_order({"base", "broken", "fast", "mid"}, 1, "p1"),
            (std::vector<std::string>{"base", "fast", "broken", "mid"}));
  const auto two = strategy::replay_transfer(problems, {trials(2), 4, 1});
  ASSERT_EQ(two.rows.size(), 3u);
  EXPECT_EQ(two.trials, 6u);
  EXPECT_DOUBLE_EQ(two.fraction(), 0.5);
  const auto& r1 = two.rows[0];  // by key
  const auto& r2 = two.rows[1];
  const auto& r3 = two.rows[2];
  EXPECT_EQ(r1.key, "p1");
  EXPECT_EQ(r1.visit, 0u);
  EXPECT_EQ(r3.visit, 2u);
  EXPECT_TRUE(r1.baseline_measured);
  EXPECT_EQ(r1.neighbour_picks, 0u);
  EXPECT_EQ(r2.neighbour_picks, 1u);
  EXPECT_EQ(r1.chosen, "fast");
  EXPECT_DOUBLE_EQ(r1.regret(), 0);
  EXPECT_EQ(r2.chosen, "fast");
  EXPECT_EQ(r2.best, "mid");
  EXPECT_DOUBLE_EQ(r2.regret(), 5.0 / 2 - 1);
  EXPECT_EQ(r3.chosen, "fast");
  EXPECT_DOUBLE_EQ(r3.regret(), 0);
  EXPECT_NEAR(two.geomean_regret, std::cbrt(2.5) - 1, 1e-12);
  EXPECT_EQ(two.worst, "p2");
  EXPECT_EQ(two.exact, 2u);
  EXPECT_EQ(two.within_5, 2u);
  // With the others known in full (an earlier exhaustive sweep), each takes its nearest
  // neighbour's winner: p1 <- p2's "mid" (9: regret 1.25), p2 <- p1's or p3's "fast" (5 at
  // distance 1 from both: p1 by key), p3 <- p2's "mid" (8).
  const auto prior = strategy::replay_transfer(problems, {trials(2), 1, 1}, strategy::prior_knowledge::exhaustive);
  EXPECT_EQ(prior.rows[0].chosen, "mid");
  EXPECT_EQ(prior.rows[1].chosen, "fast");
  EXPECT_EQ(prior.rows[2].chosen, "mid");
  EXPECT_DOUBLE_EQ(prior.rows[0].regret(), 9.0 / 4 - 1);
  EXPECT_DOUBLE_EQ(prior.rows[1].regret(), 5.0 / 2 - 1);
  EXPECT_DOUBLE_EQ(prior.rows[2].regret(), 8.0 / 5 - 1);
  EXPECT_EQ(prior.worst, "p2");
  EXPECT_DOUBLE_EQ(prior.worst_regret, 1.5);
  EXPECT_EQ(prior.within_5, 0u);
}

TEST(transfer, replay_counts_a_problem_whose_measured_candidates_all_failed_as_missed) {
  strategy::replay_problem p;
  p.shape = {"p", "f16", {1}};
  p.baseline = "base";  // failed there
  p.candidates = {"base", "good"};
  p.verified["good"] = timed("good", 3);
  const auto one = strategy::replay_transfer(std::vector{p}, {trials(1), 4, 1});
  EXPECT_EQ(one.missed, 1u);
  EXPECT_EQ(one.scored, 0u);
  EXPECT_FALSE(one.rows[0].scored());
  EXPECT_EQ(strategy::replay_transfer(std::vector{p}, {trials(2), 4, 1}).scored, 1u);
}

namespace {

const std::string sweep_head =
    "op: softmax\n"
    "problems: [{rows: 8, cols: 1024, dtype: f32}, {rows: 64, cols: 1024, dtype: f32}]\n"
    "candidates:\n"
    "  - family: block_row\n"
    "    params: {vec: 4, block_threads: [128, 256], chunks: [1, 2]}\n";

}  // namespace

TEST(transfer, sweep_file_keys_set_the_strategy) {
  const auto by_fraction = spec::parse(sweep_head + "strategy: transfer\nbudget: {fraction: 0.25}\n", "x.yaml");
  EXPECT_EQ(by_fraction.strategy, "transfer");
  EXPECT_DOUBLE_EQ(by_fraction.transfer.fraction, 0.25);
  EXPECT_EQ(by_fraction.transfer.trials_per_problem, 0);
  EXPECT_EQ(by_fraction.transfer.neighbours, 4);  // the defaults
  EXPECT_EQ(by_fraction.transfer.seed, 1u);
  const auto by_count = spec::parse(sweep_head +
                                        "strategy: transfer\nbudget: {trials_per_problem: 12}\n"
                                        "transfer_neighbours: 0\ntransfer_seed: 18446744073709551615\n",
                                    "x.yaml");
  EXPECT_EQ(by_count.transfer.trials_per_problem, 12);
  EXPECT_EQ(by_count.transfer.neighbours, 0);
  EXPECT_EQ(by_count.transfer.seed, 18446744073709551615u);
  const auto params = runner::transfer_params_of(by_count.transfer);
  EXPECT_EQ(params.budget.trials, 12u);
  EXPECT_EQ(params.budget.for_problem(100), 12u);
  EXPECT_EQ(params.seed, 18446744073709551615u);
  const auto by_time = spec::parse(sweep_head + "strategy: transfer\nbudget: {seconds: 600}\n", "x.yaml");
  EXPECT_DOUBLE_EQ(by_time.transfer.seconds, 600);
  EXPECT_EQ(runner::transfer_params_of(by_time.transfer).budget.for_problem(37), 37u);  // time alone: all
  const auto both = spec::parse(sweep_head + "strategy: transfer\nbudget: {fraction: 0.25, seconds: 60}\n", "x.yaml");
  EXPECT_DOUBLE_EQ(both.transfer.seconds, 60);
  EXPECT_EQ(runner::transfer_params_of(both.transfer).budget.for_problem(100), 25u);
}

TEST(transfer, a_time_budget_is_shared_over_the_problems_left) {
  EXPECT_DOUBLE_EQ(strategy::time_share_s(600, 100, 1), 6);
  EXPECT_DOUBLE_EQ(strategy::time_share_s(600, 100, 4), 24);  // four GPUs measure four problems at once
  EXPECT_DOUBLE_EQ(strategy::time_share_s(600, 1, 1), 600);   // the last problem may take what is left
  EXPECT_DOUBLE_EQ(strategy::time_share_s(600, 3, 8), 600);   // fewer problems than lanes
  EXPECT_DOUBLE_EQ(strategy::time_share_s(600, 0, 1), 600);
  EXPECT_DOUBLE_EQ(strategy::time_share_s(-5, 10, 1), 0);  // past the budget
  EXPECT_TRUE(strategy::within_time(0, 100, 0));           // the first candidate (the baseline) always
  EXPECT_TRUE(strategy::within_time(3, 5.9, 6));
  EXPECT_FALSE(strategy::within_time(3, 6, 6));
  EXPECT_FALSE(strategy::within_time(1, 0.1, 0));
}

TEST(transfer, sweep_file_errors_name_the_place) {
  const auto error = [](const std::string& tail) {
    return test::error_of([&] { spec::parse(sweep_head + tail, "x.yaml"); });
  };
  EXPECT_EQ(error("strategy: transfer\n"),
            "x.yaml:6:11: strategy \"transfer\" needs a \"budget\": {trials_per_problem: N}, {fraction: F} or "
            "{seconds: S}");
  EXPECT_EQ(error("budget: {fraction: 0.5}\n"),
            "x.yaml:6:1: \"budget\" applies to strategy \"transfer\" only (the file's strategy is \"exhaustive\")");
  EXPECT_EQ(error("strategy: race\ntransfer_seed: 3\n"),
            "x.yaml:7:1: \"transfer_seed\" applies to strategy \"transfer\" only (the file's strategy is \"race\")");
  EXPECT_EQ(error("strategy: transfer\nbudget: {fraction: 0}\n"),
            "x.yaml:7:20: expected a number in (0, 1] for \"fraction\", got \"0\"");
  EXPECT_EQ(error("strategy: transfer\nbudget: {trials_per_problem: 2.5}\n"),
            "x.yaml:7:30: expected an integer for \"trials_per_problem\", got \"2.5\"");
}

// The runner's view: the problems' visit order, and a problem's plan with what it measured
// before counted.
TEST(transfer, knowledge_plans_a_problem_from_what_its_neighbours_measured) {
  const auto s = spec::parse(sweep_head + "strategy: transfer\nbudget: {trials_per_problem: 2}\n", "x.yaml");
  runner::transfer_knowledge k(s);
  EXPECT_EQ(k.order(), (std::vector<std::size_t>{0, 1}));  // 8 rows before 64
  store::trial_record t;
  t.problem = {"softmax_f32_8x1024", "softmax", "f32", R"({"cols":1024,"rows":8})", 65536};
  t.config.instance = "softmax_f32_block_row_vec4_threads128_chunks2_persistent0";
  t.status = "ok";
  t.median_us = 3;
  t.ci_lo_us = 2.9;
  t.ci_hi_us = 3.1;
  k.add(t);
  t.status = "wrong_answer";  // not verified: nothing to suggest
  t.config.instance = "softmax_f32_block_row_vec4_threads256_chunks2_persistent0";
  k.add(t);
  EXPECT_EQ(k.known_problems(), 1u);
  // The default rule's configuration for 1024 f32 columns (block_row, 256 threads, 1 chunk) first,
  // then the neighbour's winner.
  const std::string baseline = "softmax_f32_block_row_vec4_threads256_chunks1_persistent0";
  const std::vector<std::string> fresh = {"softmax_f32_block_row_vec4_threads128_chunks2_persistent0",
                                          "softmax_f32_block_row_vec4_threads256_chunks2_persistent0",
                                          "softmax_f32_block_row_vec4_threads128_chunks1_persistent0", baseline};
  const auto plan = k.plan(1, fresh, {}, 90);
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[0].instance, baseline);
  EXPECT_EQ(plan[0].reason, pick_reason::baseline);
  EXPECT_EQ(plan[1].instance, "softmax_f32_block_row_vec4_threads128_chunks2_persistent0");
  EXPECT_EQ(plan[1].reason, pick_reason::neighbour);
  EXPECT_EQ(plan[1].from, "softmax_f32_8x1024");
  // Resumed with the baseline measured already: one more, the neighbour's winner.
  const std::vector<std::string> rest(fresh.begin(), fresh.end() - 1);
  const std::vector<std::string> before = {baseline};
  const auto resumed = k.plan(1, rest, before, 90);
  ASSERT_EQ(resumed.size(), 1u);
  EXPECT_EQ(resumed[0].instance, "softmax_f32_block_row_vec4_threads128_chunks2_persistent0");
}
