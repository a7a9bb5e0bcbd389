// The dispatch model: the choice (cuop/detail/nearest_choice.hpp, the library's own code), the fit
// and its leave-one-out validation (tuner/model/fit.hpp), the group default
// (tuner/model/group_default.hpp), and the softmax default rule.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "cuop/detail/nearest_choice.hpp"
#include "cuop/detail/shape_features.hpp"
#include "cuop/kernels/softmax/family.hpp"
#include "tuner/model/fit.hpp"
#include "tuner/model/group_default.hpp"

namespace {

using namespace cuop;
const float nan = std::numeric_limits<float>::quiet_NaN();

// Four anchors on a line (one feature), two candidates.
struct line_model {
  double features[4] = {0, 1, 2, 3};
  float speedup[8] = {0.2f,  nan,   // anchor 0: candidate 0 20% faster (log), 1 not measured
                      0.2f,  0.1f,  // anchor 1
                      0.05f, 0.3f,  // anchor 2
                      -0.1f, 0.3f};
  unsigned char trusted[2] = {1, 1};
  detail::choice_model_view view(int k, double radius, double margin, double reach = 0, int group_default = -1) const {
    return {features, speedup, trusted, 4, 1, 2, {k, radius, margin, reach}, group_default};
  }
};

TEST(nearest_choice, the_worst_case_of_the_neighbours_decides) {
  line_model m;
  const auto all = [](int) { return true; };
  double q = 0.5;  // anchors 0 and 1: candidate 1 not measured at 0, candidate 0 wins at both
  EXPECT_EQ(detail::nearest_choice(m.view(2, 3, 0.02), &q, all), 0);
  q = 1.6;  // anchors 2 and 1: candidate 0's worst is 0.05, candidate 1's 0.1
  EXPECT_EQ(detail::nearest_choice(m.view(2, 3, 0.02), &q, all), 1);
  EXPECT_EQ(detail::nearest_choice(m.view(2, 3, 0.2), &q, all), -1);  // no clear win: the baseline
  q = 2.6;                                                            // anchors 3 and 2: candidate 0 lost at 3
  EXPECT_EQ(detail::nearest_choice(m.view(2, 3, 0.02), &q, all), 1);
  q = 10;  // nothing within the radius
  EXPECT_EQ(detail::nearest_choice(m.view(2, 3, 0.02), &q, all), -1);
  q = 3;  // at an anchor: its own measurement
  EXPECT_EQ(detail::nearest_choice(m.view(2, 3, 0.02), &q, all), 1);
}

TEST(nearest_choice, unusable_untrusted_and_left_out_candidates_are_skipped) {
  line_model m;
  double q = 1.6;
  EXPECT_EQ(detail::nearest_choice(m.view(2, 3, 0.02), &q, [](int c) { return c != 1; }), 0);
  m.trusted[0] = 0;
  EXPECT_EQ(detail::nearest_choice(m.view(2, 3, 0.02), &q, [](int c) { return c != 1; }), -1);
  m.trusted[0] = 1;
  q = 3;  // anchor 3 left out: anchors 2 and 1 vote (a unit past their span: reach 1 allows it)
  EXPECT_EQ(detail::nearest_choice(
                m.view(2, 3, 0.02, 1), &q, [](int) { return true; }, 3),
            1);
  EXPECT_EQ(detail::nearest_choice(
                m.view(2, 3, 0.02), &q, [](int) { return true; }, 3),
            -1);
  q = 0.4;  // one anchor within the radius (not at it): no choice
  EXPECT_EQ(detail::nearest_choice(m.view(2, 0.5, 0.02), &q, [](int) { return true; }), -1);
}

TEST(nearest_choice, a_call_outside_the_voters_span_gets_the_baseline) {
  line_model m;
  const auto all = [](int) { return true; };
  double q = -0.4;  // anchors 0 and 1 vote, but the call lies below both
  EXPECT_EQ(detail::nearest_choice(m.view(2, 3, 0.02), &q, all), -1);
  auto reaching = m.view(2, 3, 0.02);
  reaching.params.reach = 0.5;  // within half a unit of the span: chosen
  EXPECT_EQ(detail::nearest_choice(reaching, &q, all), 0);
  q = -0.6;
  EXPECT_EQ(detail::nearest_choice(reaching, &q, all), -1);
}

TEST(nearest_choice, the_group_default_runs_where_the_vote_declines) {
  line_model m;
  const auto all = [](int) { return true; };
  double q = 1.5;  // no anchor within a radius of 0.4: the group default, among the anchors
  EXPECT_EQ(detail::nearest_choice(m.view(2, 0.4, 0.02, 0, 1), &q, all), 1);
  EXPECT_EQ(detail::nearest_vote(m.view(2, 0.4, 0.02, 0, 1), &q, all), -1);
  EXPECT_EQ(detail::nearest_choice(m.view(2, 0.4, 0.02, 0, 1), &q, [](int c) { return c != 1; }), -1);  // cannot run
  EXPECT_EQ(detail::nearest_choice(m.view(2, 0.4, 0.02, 0, 7), &q, all), -1);  // out of range: ignored
  q = 3.4;  // past the anchors' span (0..3), within a reach of 0.5 but not of 0
  EXPECT_EQ(detail::nearest_choice(m.view(2, 0.3, 0.02, 0.5, 1), &q, all), 1);
  EXPECT_EQ(detail::nearest_choice(m.view(2, 0.3, 0.02, 0, 1), &q, all), -1);
  q = 10;  // far outside: the baseline
  EXPECT_EQ(detail::nearest_choice(m.view(2, 3, 0.02, 0.5, 1), &q, all), -1);
  q = 0.5;  // the vote chooses: it stands
  EXPECT_EQ(detail::nearest_choice(m.view(2, 3, 0.02, 0, 1), &q, all), 0);
}

results::result_trial timed(const std::string& instance, double us) {
  results::result_trial t;
  t.instance = instance;
  t.status = "ok";
  t.median_us = us;
  t.ci_lo_us = us * 0.99;
  t.ci_hi_us = us * 1.01;
  return t;
}

// GEMMs whose rows miss 16-byte alignment and those whose rows keep it never vote for each other:
// cuBLASLt has aligned kernels only for the second kind.
TEST(gemm_features, misaligned_rows_lie_beyond_the_models_reach) {
  EXPECT_TRUE(detail::rows_misaligned(4093, 2));
  EXPECT_FALSE(detail::rows_misaligned(4096, 2));
  EXPECT_FALSE(detail::rows_misaligned(4, 4));  // f32: 16 bytes
  EXPECT_TRUE(detail::rows_misaligned(6, 4));
  const auto& p = model::default_params;
  EXPECT_GT(detail::gemm_misaligned_distance, p.radius + p.reach);

  // Two aligned anchors where candidate 0 wins, two with misaligned operands where candidate 1 does.
  double features[4 * detail::gemm_feature_count];
  detail::gemm_features(1024, 4096, 4096, false, false, features);
  detail::gemm_features(2048, 4096, 4096, false, false, features + detail::gemm_feature_count);
  detail::gemm_features(1024, 4096, 4093, true, false, features + 2 * detail::gemm_feature_count);
  detail::gemm_features(2048, 4096, 4099, true, false, features + 3 * detail::gemm_feature_count);
  const float speedup[8] = {0.3f, -0.5f, 0.3f, -0.5f, -0.5f, 0.3f, -0.5f, 0.3f};
  const unsigned char trusted[2] = {1, 1};
  const detail::choice_model_view view{features, speedup, trusted, 4, detail::gemm_feature_count, 2, p, -1};
  const auto all = [](int) { return true; };
  double q[detail::gemm_feature_count];
  detail::gemm_features(1500, 4096, 4096, false, false, q);
  EXPECT_EQ(detail::nearest_choice(view, q, all), 0);
  detail::gemm_features(1500, 4096, 4095, true, false, q);
  EXPECT_EQ(detail::nearest_choice(view, q, all), 1);
  detail::gemm_features(1500, 4095, 4096, false, true, q);  // D misaligned: neither kind votes
  EXPECT_EQ(detail::nearest_choice(view, q, all), -1);
}

TEST(model_fit, a_candidate_that_loses_where_validation_chose_it_is_not_trusted) {
  // Five anchors on a line; "a" wins by 30% everywhere but at anchor 4, where it loses by 20%.
  std::vector<results::result_trial> trials;
  trials.reserve(15);
  std::vector<model::anchor> anchors;
  for (int i = 0; i < 5; ++i) {
    trials.push_back(timed("base", 100));
    trials.push_back(timed("a", i == 4 ? 120 : 70));
    trials.push_back(timed("b", 95));
    model::anchor a;
    a.problem = "p" + std::to_string(i);
    a.features = {static_cast<double>(i)};
    a.baseline = &trials[trials.size() - 3];
    a.trials = {{"base", &trials[trials.size() - 3]}, {"a", &trials[trials.size() - 2]}, {"b", &trials.back()}};
    anchors.push_back(a);
  }
  // reach 1: leave-one-out at the line's ends extrapolates by one unit (the test is about trust).
  const auto f = model::fit(anchors, {2, 3.0, 0.0198, 1.0});
  ASSERT_EQ(f.candidates, (std::vector<std::string>{"a", "b"}));
  // Leave-one-out chose "a" for anchor 4 (its neighbours 3 and 2 say 30%): it lost, so it is
  // not trusted, and "b" (5% everywhere) is chosen instead.
  EXPECT_EQ(f.trusted, (std::vector<unsigned char>{0, 1}));
  EXPECT_EQ(f.loo.anchors, 5);
  EXPECT_EQ(f.loo.slower, 0);
  EXPECT_NEAR(f.loo.geomean, 100.0 / 95, 1e-9);
  // Deterministic.
  const auto g = model::fit(anchors, {2, 3.0, 0.0198, 1.0});
  EXPECT_EQ(g.log_speedup.size(), f.log_speedup.size());
  for (std::size_t i = 0; i < f.log_speedup.size(); ++i)
    EXPECT_EQ(std::isnan(g.log_speedup[i]) || g.log_speedup[i] == f.log_speedup[i], true);
}

// Anchors on a line, each with a baseline of 100 us and the candidates' times given per anchor.
struct timed_anchors {
  std::vector<results::result_trial> trials;
  std::vector<model::anchor> anchors;
  explicit timed_anchors(const std::vector<std::map<std::string, double>>& times) {
    std::size_t count = 0;
    for (const auto& t : times) count += t.size() + 1;
    trials.reserve(count);  // no reallocation: anchors point into it
    for (std::size_t i = 0; i < times.size(); ++i) {
      model::anchor a;
      a.problem = "p" + std::to_string(i);
      a.features = {static_cast<double>(i)};
      trials.push_back(timed("base", 100));
      a.baseline = &trials.back();
      a.trials["base"] = &trials.back();
      for (const auto& [name, us] : times[i]) {
        trials.push_back(timed(name, us));
        a.trials[name] = &trials.back();
      }
      anchors.push_back(a);
    }
  }
};

TEST(group_default, the_best_mean_of_those_that_win_by_ten_percent_everywhere) {
  // "fast" wins by half where it was measured, but not at every anchor; "steady" wins by 15% to
  // 20% everywhere; "other" was measured once.
  timed_anchors t({{{"fast", 50}, {"steady", 80}},
                   {{"fast", 50}, {"steady", 80}},
                   {{"fast", 50}, {"steady", 80}},
                   {{"steady", 80}},
                   {{"steady", 85}, {"other", 60}}});
  const auto g = model::fit_group_default(t.anchors);
  EXPECT_EQ(g.pick.candidate, "steady");
  EXPECT_FALSE(g.pick.floored);
  ASSERT_EQ(g.held_out.size(), 5u);
  for (const auto& h : g.held_out) EXPECT_EQ(h.candidate, "steady");
  // The fit makes it a column, trusted or not, and the view carries it.
  const auto f = model::fit(t.anchors);
  ASSERT_GE(f.group_default, 0);
  EXPECT_EQ(f.candidates[static_cast<std::size_t>(f.group_default)], "steady");
  EXPECT_EQ(f.view().group_default, f.group_default);
  EXPECT_EQ(f.loo.slower, 0);
}

TEST(group_default, none_without_three_anchors_or_a_clear_win_everywhere) {
  EXPECT_EQ(model::fit_group_default(timed_anchors({{{"a", 50}}, {{"a", 50}}}).anchors).pick.candidate, "");
  const auto weak = model::fit_group_default(timed_anchors({{{"a", 50}}, {{"a", 50}}, {{"a", 95}}}).anchors);
  EXPECT_EQ(weak.pick.candidate, "");
  EXPECT_FALSE(weak.why_none.empty());
  EXPECT_EQ(model::fit(timed_anchors({{{"a", 50}}, {{"a", 50}}, {{"a", 95}}}).anchors).group_default, -1);
}

TEST(group_default, leave_one_out_refuses_a_pick_that_loses_without_its_anchor) {
  // Over all anchors only "steady" qualifies; without anchor 2, "fast" does (a higher mean), and
  // at anchor 2 "fast" is slower than the baseline: the group has no default.
  timed_anchors t({{{"fast", 40}, {"steady", 85}}, {{"fast", 40}, {"steady", 85}}, {{"fast", 120}, {"steady", 85}}});
  const auto g = model::fit_group_default(t.anchors);
  EXPECT_EQ(g.pick.candidate, "");
  EXPECT_NE(g.why_none.find("leave-one-out"), std::string::npos);
  EXPECT_NE(g.why_none.find("p2"), std::string::npos);
}

TEST(group_default, a_floor_on_the_size_where_no_candidate_wins_everywhere) {
  // "staged" loses at the small anchors (0 and 1), breaks even at 2 and wins by 25% from 3 up:
  // no group default over all anchors, one above the floor 3 (the anchors' feature is their size).
  const std::vector<std::map<std::string, double>> times{{{"staged", 150}}, {{"staged", 120}}, {{"staged", 99}},
                                                         {{"staged", 80}},  {{"staged", 80}},  {{"staged", 75}}};
  timed_anchors t(times);
  EXPECT_EQ(model::fit_group_default(t.anchors).pick.candidate, "");
  const auto g = model::fit_group_default(t.anchors, 1);
  EXPECT_EQ(g.pick.candidate, "staged");
  EXPECT_TRUE(g.pick.floored);
  EXPECT_EQ(g.pick.floor, 3.0);
  // Floors lie at anchors' own sizes: without anchor 3 the floor rises to the next one.
  ASSERT_EQ(g.held_out.size(), 6u);
  EXPECT_EQ(g.held_out[2].floor, 3.0);
  EXPECT_EQ(g.held_out[3].floor, 4.0);
  // The fit carries the floor into the view: the default runs at and above it, among its anchors.
  const auto f = model::fit(t.anchors, model::default_params, 1);
  ASSERT_GE(f.group_default, 0);
  EXPECT_EQ(f.candidates[static_cast<std::size_t>(f.group_default)], "staged");
  const auto v = f.view();
  EXPECT_EQ(v.floor_features, 1);
  EXPECT_EQ(v.default_floor, 3.0);
  const double above = 4.5, below = 2.5, beyond = 5.6;
  EXPECT_TRUE(detail::within_anchors(v, &above));
  EXPECT_FALSE(detail::within_anchors(v, &below));
  EXPECT_FALSE(detail::within_anchors(v, &beyond));  // past the top anchor by more than the reach
  EXPECT_EQ(f.loo.slower, 0);
}

TEST(group_default, the_floor_size_of_several_dimensions_is_their_arithmetic_intensity) {
  // log2 of 1 / (1/m + 1/n + 1/k): a GEMM's multiply-adds per element of its three operands.
  const double cube[] = {std::log2(300.0), std::log2(300.0), std::log2(300.0)};
  EXPECT_NEAR(detail::floor_size(cube, 3), std::log2(100.0), 1e-12);
  // Small wherever one dimension is, however large the work: short K and wide D move more than
  // they compute.
  const double short_k[] = {std::log2(8192.0), std::log2(8192.0), std::log2(16.0)};
  EXPECT_LT(detail::floor_size(short_k, 3), 4.0);
  EXPECT_GT(detail::floor_size(short_k, 3), 3.9);
  // One dimension is its own size; none, no size.
  EXPECT_DOUBLE_EQ(detail::floor_size(cube, 1), std::log2(300.0));
  EXPECT_EQ(detail::floor_size(cube, 0), 0.0);
}

TEST(group_default, a_floor_that_leave_one_out_would_cross_into_a_loss_is_refused) {
  // Anchor 3 loses by 20% between winners: the floor lies above it, and without it the floor
  // falls below it, where leave-one-out would have run "staged" at a loss: refused.
  timed_anchors t({{{"staged", 150}},
                   {{"staged", 80}},
                   {{"staged", 80}},
                   {{"staged", 125}},
                   {{"staged", 80}},
                   {{"staged", 80}},
                   {{"staged", 75}}});
  const auto g = model::fit_group_default(t.anchors, 1);
  EXPECT_EQ(g.pick.candidate, "");
  EXPECT_NE(g.why_none.find("p3"), std::string::npos);
}

TEST(softmax_default_rule, holds_rows_in_registers_with_the_fewest_threads) {
  namespace ks = kernels::softmax;
  const auto rule = [](dtype t, long long rows, long long cols) {
    return ks::instance_name(ks::default_config(t, rows, cols));
  };
  // Enough rows to fill the GPU: the region sweeps' winners (configs/regions/softmax-grid.yaml).
  constexpr long long many = 1'000'000;
  EXPECT_EQ(rule(dtype::f16, many, 2), "softmax_f16_warp_row_vec2_rowthreads1_blockrows256_chunks1_persistent0");
  // 16-bit rows of 5 to 64 columns off the 16-byte grid: whole rows staged in shared memory.
  EXPECT_EQ(rule(dtype::bf16, many, 7), "softmax_bf16_row_tile_vec8_rowthreads1_blockrows128_chunks8");
  EXPECT_EQ(rule(dtype::f16, many, 10), "softmax_f16_row_tile_vec8_rowthreads2_blockrows64_chunks8");
  EXPECT_EQ(rule(dtype::bf16, many, 22), "softmax_bf16_row_tile_vec8_rowthreads4_blockrows32_chunks8");
  EXPECT_EQ(rule(dtype::f16, many, 41), "softmax_f16_row_tile_vec8_rowthreads4_blockrows32_chunks16");
  // ... but not on the grid (32), at 4 columns (one 8-byte vector a row), in f32, or in launches
  // of fewer than 2^19 elements.
  EXPECT_EQ(rule(dtype::bf16, many, 32), "softmax_bf16_warp_row_vec2_rowthreads4_blockrows64_chunks4_persistent0");
  EXPECT_EQ(rule(dtype::f16, many, 4), "softmax_f16_warp_row_vec4_rowthreads1_blockrows256_chunks1_persistent0");
  EXPECT_EQ(rule(dtype::bf16, 74898, 7), "softmax_bf16_warp_row_vec8_rowthreads1_blockrows256_chunks1_persistent0");
  EXPECT_EQ(rule(dtype::bf16, 74899, 7), "softmax_bf16_row_tile_vec8_rowthreads1_blockrows128_chunks8");
  EXPECT_EQ(rule(dtype::f16, 50000, 10), "softmax_f16_warp_row_vec2_rowthreads2_blockrows128_chunks4_persistent0");
  EXPECT_EQ(rule(dtype::bf16, 20000, 22), "softmax_bf16_warp_row_vec2_rowthreads4_blockrows64_chunks4_persistent0");
  // Strided rows (a stride other than cols) stay in registers: row_tile would stage them one by one.
  EXPECT_EQ(ks::instance_name(ks::default_config(dtype::bf16, many, 7, false)),
            "softmax_bf16_warp_row_vec8_rowthreads1_blockrows256_chunks1_persistent0");
  EXPECT_EQ(ks::instance_name(ks::default_config(dtype::f16, many, 41, false)),
            ks::instance_name(ks::default_config(dtype::f16, many, 64)));
  EXPECT_EQ(rule(dtype::f16, many, 66), "softmax_f16_warp_row_vec4_rowthreads8_blockrows32_chunks4_persistent0");
  EXPECT_EQ(rule(dtype::bf16, many, 165), "softmax_bf16_warp_row_vec4_rowthreads8_blockrows32_chunks8_persistent0");
  EXPECT_EQ(rule(dtype::f32, many, 60), "softmax_f32_warp_row_vec4_rowthreads8_blockrows32_chunks2_persistent0");
  EXPECT_EQ(rule(dtype::f32, many, 77), "softmax_f32_warp_row_vec4_rowthreads8_blockrows32_chunks4_persistent0");
  EXPECT_EQ(rule(dtype::f32, many, 1), "softmax_f32_warp_row_vec1_rowthreads1_blockrows256_chunks1_persistent0");
  EXPECT_EQ(rule(dtype::f16, many, 300), "softmax_f16_warp_row_vec4_rowthreads16_blockrows8_chunks8_persistent0");
  EXPECT_EQ(rule(dtype::f32, many, 4096), "softmax_f32_block_row_vec4_threads256_chunks4_persistent0");
  EXPECT_EQ(rule(dtype::bf16, many, 32000), "softmax_bf16_block_row_vec8_threads1024_chunks4_persistent0");
  EXPECT_EQ(rule(dtype::f32, many, 262144), "softmax_f32_split_row_vec4_threads256_chunks8_persistent0");
  EXPECT_EQ(rule(dtype::f32, many, 1LL << 22), "softmax_f32_split_row_vec4_threads1024_chunks8_persistent0");
  // Few rows spread out: more lanes in 128-thread blocks, more threads a row, shorter segments.
  EXPECT_EQ(rule(dtype::f16, 91, 197), "softmax_f16_warp_row_vec4_rowthreads32_blockrows4_chunks2_persistent0");
  EXPECT_EQ(rule(dtype::f32, 4, 4096), "softmax_f32_block_row_vec4_threads1024_chunks1_persistent0");
  EXPECT_EQ(rule(dtype::bf16, 3, 128256), "softmax_bf16_split_row_vec8_threads256_chunks2_persistent0");
  EXPECT_EQ(rule(dtype::f16, 1000, 65537), "softmax_f16_split_row_vec8_threads256_chunks8_persistent0");
  // Past block_row's registers with 1024 rows or more: one block a row, the rest in shared memory.
  EXPECT_EQ(rule(dtype::f16, 2048, 50257), "softmax_f16_block_row_vec8_threads512_chunks4_persistent0_smemchunks10");
  EXPECT_EQ(rule(dtype::f32, 8521, 32768), "softmax_f32_block_row_vec4_threads512_chunks4_persistent0_smemchunks12");
  EXPECT_EQ(rule(dtype::f16, 2418, 65537), "softmax_f16_block_row_vec8_threads1024_chunks8_persistent0_smemchunks2");
  EXPECT_EQ(rule(dtype::bf16, 3271, 128256), "softmax_bf16_block_row_vec8_threads1024_chunks8_persistent0_smemchunks8");
  EXPECT_EQ(rule(dtype::bf16, 3271, 151936), "softmax_bf16_split_row_vec8_threads256_chunks8_persistent0");
  // Shapes that no rows make a warp_row block larger than 1024 threads or a split finer than the
  // co-resident blocks allow, and every configuration listed for the library.
  for (const dtype t : {dtype::f32, dtype::f16, dtype::bf16}) {
    const auto all = ks::default_configs(t);
    for (long long rows = 1; rows <= (1LL << 24); rows = rows * 5 / 2 + 1)
      for (long long cols = 1; cols <= (1LL << 23); cols = cols * 3 / 2 + 1) {
        for (const bool contiguous : {true, false}) {
          const auto s = ks::default_config(t, rows, cols, contiguous);
          EXPECT_TRUE(ks::check_config(s).empty()) << rows << "x" << cols;
          EXPECT_TRUE(std::any_of(all.begin(), all.end(),
                                  [&](const auto& o) { return ks::instance_name(o) == ks::instance_name(s); }))
              << ks::instance_name(s) << " (" << rows << "x" << cols << ") is not among default_configs";
          if (!contiguous) {
            EXPECT_NE(s.fam, ks::family::row_tile);
          }
        }
        const auto c = ks::default_config(t, rows, cols);
        if (c.fam != ks::family::split_row) {
          EXPECT_GE(ks::cols_per_owner(c), cols) << ks::instance_name(c);
        } else {
          EXPECT_LE((cols + ks::cols_per_owner(c) - 1) / ks::cols_per_owner(c), 512) << ks::instance_name(c);
        }
      }
  }
}

}  // namespace
