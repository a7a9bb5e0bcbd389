// GroupNorm's default rule on the CPU: what it returns on each architecture, that the library
// instantiates every configuration it can return, and that the sweep files race it.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cuop/kernels/groupnorm/family.hpp"
#include "tuner/ops/groupnorm/groupnorm_op.hpp"
#include "tuner/space/space.hpp"
#include "tuner/spec/spec.hpp"

namespace kg = cuop::kernels::groupnorm;
using cuop::dtype;

namespace {

constexpr int targets_cc[] = {80, 90, 100};  // the sweep files' targets

bool same(const kg::groupnorm_config& a, const kg::groupnorm_config& b) {
  return kg::instance_name(a) == kg::instance_name(b);
}

// Shapes of every kind the workloads hold: batches 1 to 64, 4 to 2560 channels in 1 to 32 groups,
// 1 to 512 x 512 positions.
std::vector<kg::groupnorm_shape> shapes() {
  std::vector<kg::groupnorm_shape> out;
  for (long long n : {1, 2, 3, 8, 64})
    for (long long c : {4, 64, 96, 320, 2336, 2560})
      for (long long hw : {1, 49, 1024, 4096, 262144})
        for (long long g : {1, 16, 32})
          if (c % g == 0) out.push_back({n, c, hw, g});
  return out;
}

TEST(groupnorm_rule, the_library_instantiates_every_configuration_it_returns_and_each_runs_its_shape) {
  for (const int sm : targets_cc)
    for (const dtype t : {dtype::f32, dtype::f16, dtype::bf16})
      for (const kg::layout l : {kg::layout::nhwc, kg::layout::nchw})
        for (const bool silu : {false, true}) {
          const auto listed = kg::default_configs(t, l, silu, sm);
          for (const auto& c : listed) EXPECT_EQ(kg::check_config(c), "") << kg::instance_name(c);
          for (const auto& s : shapes()) {
            const auto c = kg::default_config(t, l, silu, s, sm);
            EXPECT_TRUE(std::any_of(listed.begin(), listed.end(), [&](const auto& d) { return same(c, d); }))
                << kg::instance_name(c) << " on sm_" << sm << " is not instantiated";
            kg::launch_plan plan;
            EXPECT_EQ(kg::plan_launch(c, s, {sm, 132, 1024}, plan), "")
                << kg::instance_name(c) << " for " << s.n << "x" << s.c << "x" << s.hw << " g" << s.groups;
          }
        }
}

TEST(groupnorm_rule, clusters_run_only_from_sm_90) {
  for (const dtype t : {dtype::f32, dtype::bf16})
    for (const auto& s : shapes()) {
      const auto c = kg::default_config(t, kg::layout::nchw, false, s, 80);
      EXPECT_EQ(c.fam, kg::family::group_loop) << kg::instance_name(c);
    }
  for (const auto& c : kg::default_configs(dtype::bf16, kg::layout::nhwc, true, 80)) EXPECT_LE(kg::min_sm(c), 80);
}

// Clusters of 16 blocks are non-portable: the rule takes them on sm_90 only, where they were
// measured; elsewhere 8 at most.
TEST(groupnorm_rule, non_portable_clusters_only_on_the_measured_architecture) {
  for (const int sm : {100, 120})
    for (const auto& c : kg::default_configs(dtype::f16, kg::layout::nchw, false, sm)) EXPECT_LE(c.cluster, 8);
  const kg::groupnorm_shape few{1, 512, 4096, 16};
  EXPECT_EQ(kg::default_config(dtype::f16, kg::layout::nchw, false, few, 90).cluster, 16);
  EXPECT_EQ(kg::default_config(dtype::f16, kg::layout::nchw, false, few, 100).cluster, 8);
}

// The rule's regions (docs/norm.md, "GroupNorm's default rule"), at shapes of the training sweep.
TEST(groupnorm_rule, few_large_groups_take_a_cluster_many_or_small_ones_a_block_each) {
  const auto name = [](kg::layout l, const kg::groupnorm_shape& s, int sm) {
    return kg::instance_name(kg::default_config(dtype::bf16, l, true, s, sm));
  };
  const auto nchw = kg::layout::nchw, nhwc = kg::layout::nhwc;
  EXPECT_EQ(name(nchw, {1, 512, 4096, 32}, 90), "groupnorm_bf16_nchw_silu_group_cluster_vec8_threads256_cluster8");
  EXPECT_EQ(name(nchw, {1, 512, 4096, 16}, 90), "groupnorm_bf16_nchw_silu_group_cluster_vec8_threads256_cluster16");
  EXPECT_EQ(name(nchw, {2, 320, 4096, 32}, 90), "groupnorm_bf16_nchw_silu_group_cluster_vec8_threads1024_cluster2");
  EXPECT_EQ(name(nhwc, {2, 320, 4096, 32}, 100), "groupnorm_bf16_nhwc_silu_group_cluster_vec2_threads1024_cluster2");
  // No clusters: one large block a group where the groups leave the GPU short.
  EXPECT_EQ(name(nchw, {2, 320, 4096, 32}, 80), "groupnorm_bf16_nchw_silu_group_loop_vec8_threads1024");
  // More than 64 groups: pairs would not fit an SM each; one large block a group instead.
  EXPECT_EQ(name(nchw, {3, 320, 4096, 32}, 90), "groupnorm_bf16_nchw_silu_group_loop_vec8_threads1024");
  EXPECT_EQ(name(nchw, {2, 320, 256, 32}, 90), "groupnorm_bf16_nchw_silu_group_loop_vec8_threads512");  // small groups
  EXPECT_EQ(name(nchw, {2, 320, 49, 32}, 90),
            "groupnorm_bf16_nchw_silu_group_loop_vec8_threads128");  // < 1024 elements
  EXPECT_EQ(name(nchw, {4, 320, 4096, 32}, 90), "groupnorm_bf16_nchw_silu_group_loop_vec8_threads512");  // 128 groups
  EXPECT_EQ(name(nhwc, {8, 64, 3136, 32}, 90), "groupnorm_bf16_nhwc_silu_group_loop_vec2_threads512");
}

TEST(groupnorm_rule, nhwc_vectors_divide_a_groups_channels_nchw_ones_are_16_bytes) {
  std::vector<kg::groupnorm_shape> all = shapes();
  for (long long c : {73, 2336 / 32 * 31, 3 * 32}) all.push_back({2, c, 1024, c % 32 == 0 ? 32 : 1});  // odd groups
  for (const auto& s : all)
    for (const dtype t : {dtype::f32, dtype::f16}) {
      const auto nhwc = kg::default_config(t, kg::layout::nhwc, false, s, 90);
      const long long channels = s.c / s.groups;
      const long long bytes = static_cast<long long>(nhwc.vec) * static_cast<long long>(cuop::size_of(t));
      if (channels % 2 == 1) {  // off every vector's grid: the widest
        EXPECT_EQ(bytes, 16) << kg::instance_name(nhwc) << " for " << channels;
        continue;
      }
      EXPECT_TRUE(channels % nhwc.vec == 0 || bytes == 4) << kg::instance_name(nhwc) << " for " << channels;
      EXPECT_TRUE(bytes == 16 || channels % (2 * nhwc.vec) != 0) << kg::instance_name(nhwc) << " for " << channels;
      EXPECT_EQ(kg::default_config(t, kg::layout::nchw, false, s, 90).vec * static_cast<int>(cuop::size_of(t)), 16);
    }
}

// The dispatch model is measured against the default rule: each problem of the sweep files must
// race the rule's configuration of every target, else that problem is no anchor of the model.
TEST(groupnorm_rule, every_problem_of_the_sweep_files_races_the_rules_configuration_of_every_target) {
  const auto& op = cuop::ops::groupnorm_op();
  for (const char* file : {"configs/groupnorm.yaml", "configs/regions/groupnorm-grid.yaml"}) {
    const auto sweep = cuop::spec::load(std::string(CUOP_SOURCE_DIR) + "/" + file);
    ASSERT_FALSE(sweep.problems.empty()) << file;
    for (const auto& p : sweep.problems)
      for (const int cc : targets_cc) {
        const std::string baseline = op.desc().baseline_of(p.dtype, p.dims, cc);
        bool raced = false;
        for (const auto& v : cuop::space::enumerate(sweep, p))
          raced = raced || (v.accepted && op.kernel(v.config, p).instance == baseline);
        EXPECT_TRUE(raced) << file << ": " << p.key(sweep.op) << ": " << baseline << " is not among the candidates";
      }
  }
}

}  // namespace
