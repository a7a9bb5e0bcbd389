// GroupNorm on the CPU: the family's names, shapes, configurations and launch plans; the op's
// problems, sweep file and emitted table.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "cuop/kernels/groupnorm/family.hpp"
#include "test_support.hpp"
#include "tuner/catalog/catalog.hpp"
#include "tuner/ops/groupnorm/groupnorm_op.hpp"
#include "tuner/results/results_file.hpp"
#include "tuner/spec/spec.hpp"

namespace kg = cuop::kernels::groupnorm;
using cuop::dtype;

namespace {

const kg::device_limits h200{90, 132, 1024};

TEST(groupnorm_family, names_templates_and_parameters) {
  kg::groupnorm_config c{kg::family::group_loop, dtype::bf16, kg::layout::nhwc, true};
  EXPECT_TRUE(kg::set_param(c, "vec", 8));
  EXPECT_TRUE(kg::set_param(c, "block_threads", 512));
  EXPECT_FALSE(kg::set_param(c, "chunks", 2));
  EXPECT_FALSE(kg::set_param(c, "vec", -1));
  EXPECT_EQ(kg::get_param(c, "block_threads"), 512);
  EXPECT_EQ(kg::get_param(c, "chunks"), -1);
  EXPECT_EQ(kg::instance_name(c), "groupnorm_bf16_nhwc_silu_group_loop_vec8_threads512");
  EXPECT_EQ(kg::template_name(c), "cuop::kernels::groupnorm::group_loop<__nv_bfloat16, 8, 512, 0, 1>");
  c = {kg::family::group_loop, dtype::f32, kg::layout::nchw, false, 4, 256};
  EXPECT_EQ(kg::instance_name(c), "groupnorm_f32_nchw_group_loop_vec4_threads256");
  EXPECT_EQ(kg::template_name(c), "cuop::kernels::groupnorm::group_loop<float, 4, 256, 1, 0>");
  kg::layout l{};
  EXPECT_TRUE(kg::parse_layout("nhwc", l));
  EXPECT_EQ(l, kg::layout::nhwc);
  EXPECT_FALSE(kg::parse_layout("chwn", l));
  kg::family f{};
  EXPECT_TRUE(kg::parse_family("group_loop", f));
  EXPECT_FALSE(kg::parse_family("warp_row", f));
  c = {kg::family::group_cluster, dtype::f16, kg::layout::nhwc, true, 8, 512, 8};
  EXPECT_EQ(kg::instance_name(c), "groupnorm_f16_nhwc_silu_group_cluster_vec8_threads512_cluster8");
  EXPECT_EQ(kg::template_name(c), "cuop::kernels::groupnorm::group_cluster<__half, 8, 512, 0, 1, 8>");
  EXPECT_EQ(kg::header_of(c.fam), "cuop/kernels/groupnorm/group_cluster.cuh");
  EXPECT_EQ(kg::get_param(c, "cluster"), 8);
  EXPECT_TRUE(kg::parse_family("group_cluster", f));
  EXPECT_EQ(f, kg::family::group_cluster);
  EXPECT_EQ(kg::min_sm(kg::family::group_cluster), 90);
  EXPECT_EQ(kg::min_sm(kg::family::group_loop), 80);
  c = {kg::family::group_span, dtype::bf16, kg::layout::nhwc, false, 8, 512, 1, 8};
  EXPECT_EQ(kg::instance_name(c), "groupnorm_bf16_nhwc_group_span_vec8_threads512_span8_cluster1");
  EXPECT_EQ(kg::template_name(c), "cuop::kernels::groupnorm::group_span<__nv_bfloat16, 8, 512, 0, 0, 8, 1>");
  EXPECT_EQ(kg::param_names(c.fam), (std::vector<std::string_view>{"vec", "block_threads", "span", "cluster"}));
  EXPECT_EQ(kg::min_sm(c), 80);
  c.cluster = 4;
  EXPECT_EQ(kg::min_sm(c), 90);  // a cluster of spans
}

TEST(groupnorm_family, spans_are_nhwc_divide_the_groups_and_fit_the_block) {
  kg::groupnorm_config c{kg::family::group_span, dtype::bf16, kg::layout::nhwc, false, 8, 256, 1, 8};
  EXPECT_EQ(kg::check_config(c), "");
  kg::launch_plan plan;
  EXPECT_EQ(kg::plan_launch(c, {2, 64, 100, 32}, h200, plan), "");
  EXPECT_EQ(plan.grid_x, 8u);  // 2 samples x 4 spans of 8 groups
  EXPECT_EQ(plan.cluster_x, 1u);
  EXPECT_EQ(kg::plan_launch(c, {2, 96, 100, 12}, h200, plan), "span of 8 does not divide 12 groups");
  EXPECT_EQ(kg::plan_launch(c, {2, 2560, 100, 32}, h200, plan), "a span of 640 channels > 256 threads");
  c.lay = kg::layout::nchw;
  EXPECT_EQ(kg::check_config(c), "group_span runs NHWC only");  // refused before it is compiled
  EXPECT_EQ(kg::plan_launch(c, {2, 64, 100, 32}, h200, plan), "group_span runs NHWC only");
  c = {kg::family::group_span, dtype::bf16, kg::layout::nhwc, false, 8, 256, 4, 8};
  EXPECT_EQ(kg::plan_launch(c, {2, 64, 100, 32}, h200, plan), "");
  EXPECT_EQ(plan.grid_x, 32u);
  EXPECT_EQ(plan.cluster_x, 4u);
  EXPECT_EQ(kg::plan_launch(c, {2, 64, 100, 32}, {80, 108, 1024}, plan),
            "group_span with a cluster needs sm_90 or newer");
  c.span = 3;
  EXPECT_EQ(kg::check_config(c), "span must be 2, 4, 8, 16 or 32 groups");
  c = {kg::family::group_span, dtype::f32, kg::layout::nhwc, false, 4, 1024, 1, 8};
  EXPECT_EQ(kg::check_config(c), "");
  c.vec = 8;
  c.type = dtype::bf16;
  EXPECT_EQ(kg::check_config(c), "block_threads x vec > 4096 (the lanes' moments in shared memory)");
  c = {kg::family::group_loop, dtype::bf16, kg::layout::nhwc, false, 8, 256, 0, 4};
  EXPECT_EQ(kg::check_config(c), "group_loop takes no span");
}

TEST(groupnorm_family, malformed_shapes_and_configurations_say_why) {
  EXPECT_EQ(kg::check_shape({2, 64, 100, 32}), "");
  EXPECT_EQ(kg::check_shape({2, 64, 100, 30}), "channels 64 do not divide into 30 groups");
  EXPECT_EQ(kg::check_shape({2, 64, 100, 0}), "c and groups must be >= 1");
  EXPECT_EQ(kg::check_shape({-1, 64, 100, 32}), "n and hw must be >= 0");
  EXPECT_EQ(kg::check_shape({1, 1LL << 31, 1, 1}), "c must be < 2^31");
  EXPECT_EQ(kg::check_shape({1, 1 << 16, 1 << 15, 1}),
            "a group of 65536 x 32768 elements reaches 2^31 vectors with its margins");
  kg::groupnorm_config c{kg::family::group_loop, dtype::f32, kg::layout::nchw, false, 8, 256};
  EXPECT_EQ(kg::check_config(c), "vec * sizeof(element) > 16 bytes");
  c.vec = 4;
  c.block_threads = 100;
  EXPECT_EQ(kg::check_config(c), "threads per block must be a multiple of 32");
  c.block_threads = 256;
  kg::launch_plan plan;
  EXPECT_EQ(kg::plan_launch(c, {3, 64, 100, 32}, h200, plan), "");
  EXPECT_EQ(plan.grid_x, 96u);  // one block per group
  EXPECT_EQ(plan.block_x, 256u);
  EXPECT_EQ(kg::plan_launch(c, {3, 64, 100, 30}, h200, plan), "channels 64 do not divide into 30 groups");
  EXPECT_EQ(kg::plan_launch(c, {3, 64, 100, 32}, {75, 40, 1024}, plan), "group_loop needs sm_80 or newer");
  EXPECT_EQ(plan.cluster_x, 1u);
  c.cluster = 2;
  EXPECT_EQ(kg::check_config(c), "group_loop takes no cluster");
  c = {kg::family::group_cluster, dtype::bf16, kg::layout::nchw, false, 8, 512, 3};
  EXPECT_EQ(kg::check_config(c), "cluster must be 2, 4, 8 or 16 blocks");
  c.cluster = 4;
  EXPECT_EQ(kg::plan_launch(c, {2, 64, 100, 32}, h200, plan), "");
  EXPECT_EQ(plan.grid_x, 256u);  // a cluster of 4 blocks per group
  EXPECT_EQ(plan.cluster_x, 4u);
  EXPECT_EQ(kg::plan_launch(c, {2, 64, 100, 32}, {80, 108, 1024}, plan), "group_cluster needs sm_90 or newer");
}

TEST(groupnorm_op, problems_name_their_layout_and_silu_and_errors_name_the_place) {
  const std::string tail = "\ncandidates: [{family: group_loop, params: {vec: 8, block_threads: 512}}]\n";
  const auto s = cuop::spec::parse(
      "op: groupnorm\ndtypes: [bf16]\nproblems:\n  - {n: 2, c: 320, h: 64, w: 64, layout: nhwc, silu: 1}\n"
      "  - {n: 2, c: 64, h: 8, w: 4, groups: 8, layout: nchw}" +
          tail,
      "g.yaml");
  ASSERT_EQ(s.problems.size(), 2u);
  EXPECT_EQ(s.problems[0].key(s.op), "groupnorm_bf16_2x320x64x64_g32_nhwc_silu");  // groups: 32 when omitted
  EXPECT_EQ(s.problems[1].key(s.op), "groupnorm_bf16_2x64x8x4_g8_nchw");
  const auto error = [&](const std::string& problem) {
    return cuop::test::error_of(
        [&] { cuop::spec::parse("op: groupnorm\ndtypes: [bf16]\nproblems:\n  - " + problem + tail, "g.yaml"); });
  };
  EXPECT_EQ(error("{n: 2, c: 64, h: 8, w: 8, silu: 2}"),
            "g.yaml:4:37: expected an integer in [0, 1] for \"silu\", got \"2\"");
  EXPECT_NE(error("{n: 2, c: 64, h: 8, w: 8, layout: chwn}").find("g.yaml:4:"), std::string::npos);
  EXPECT_NE(error("{n: 2, c: 64, h: 8}").find("g.yaml:4:"), std::string::npos);  // w missing
  EXPECT_EQ(error("{n: 2, c: 64, h: 8, w: 8, groups: 30}"),
            "g.yaml:4:5: problem groupnorm_bf16_2x64x8x8_g30_nhwc: channels 64 do not divide into 30 groups");
}

TEST(groupnorm_op, without_results_emit_ships_the_default_rule_byte_for_byte) {
  const auto& op = cuop::ops::groupnorm_op();
  const auto a = op.emit({}, {"80", "90a"});
  const auto b = op.emit({}, {"80", "90a"});
  EXPECT_EQ(a.header, b.header);
  EXPECT_EQ(a.instantiation, b.instantiation);
  EXPECT_NE(a.header.find("groupnorm_model_count = 0;"), std::string::npos);
  // One kernel per configuration the rule returns on either architecture (sm_80's are sm_90a's).
  std::set<std::string> rule;
  for (const dtype d : {dtype::f32, dtype::f16, dtype::bf16})
    for (const kg::layout l : {kg::layout::nhwc, kg::layout::nchw})
      for (const bool silu : {false, true})
        for (const int sm : {80, 90})
          for (const auto& c : kg::default_configs(d, l, silu, sm)) rule.insert(kg::instance_name(c));
  EXPECT_NE(a.instantiation.find("groupnorm_kernels[" + std::to_string(rule.size()) + "]"), std::string::npos)
      << a.instantiation;
  std::string units;
  for (const auto& u : a.kernel_units) units += u;
  EXPECT_NE(units.find("cuop::kernels::groupnorm::group_loop<__nv_bfloat16, 8, 512, 0, 1>::run(a);"),
            std::string::npos);
  EXPECT_NE(units.find("cuop::kernels::groupnorm::group_cluster<__nv_bfloat16, 8, 256, 1, 1, 16>::run(a);"),
            std::string::npos);
}

cuop::results::result_trial trial(const kg::groupnorm_config& c, double us) {
  cuop::results::result_trial t;
  t.problem = "groupnorm_bf16_2x320x64x64_g32_nhwc_silu";
  t.dtype = "bf16";
  t.dims = {{"n", 2}, {"c", 320}, {"h", 64}, {"w", 64}, {"groups", 32}, {"layout", 0}, {"silu", 1}};
  t.family = std::string(kg::name_of(c.fam));
  for (const auto name : kg::param_names(c.fam)) t.params[std::string(name)] = kg::get_param(c, name);
  t.instance = kg::instance_name(c);
  t.status = "ok";
  t.median_us = us;
  t.ci_lo_us = 0.99 * us;
  t.ci_hi_us = 1.01 * us;
  t.run = 1;
  return t;
}

// An H200 results file at 2 x 320 x 64 x 64 NHWC with SiLU: the rule's configuration in 30 us and
// `other` in `other_us`, both built for `targets`.
cuop::results::result_file h200_file(const kg::groupnorm_config& other, double other_us,
                                     const std::vector<const char*>& targets) {
  cuop::results::result_file f;
  f.path = "results/groupnorm/nvidia-h200.json";
  f.op = "groupnorm";
  f.gpu = "NVIDIA H200";
  f.cc = 90;
  f.runs.push_back({1, "2026-12-06T05:00:00Z", "configs/groupnorm.yaml", "abc", "rev", {}});
  const auto rule = kg::default_config(dtype::bf16, kg::layout::nhwc, true, {2, 320, 4096, 32}, 90);
  f.trials.push_back(trial(rule, 30));
  f.trials.push_back(trial(other, other_us));
  for (const char* target : targets)
    for (const auto& c : {rule, other}) f.builds.push_back({kg::instance_name(c), target, "ok", "", 32, 0, 0, 0});
  return f;
}

// 256 threads beat the rule's 512.
TEST(groupnorm_op, emit_keeps_a_tuned_winner_in_its_dtype_layout_and_silu_group) {
  const kg::groupnorm_config fast{kg::family::group_loop, dtype::bf16, kg::layout::nhwc, true, 8, 256};
  const auto f = h200_file(fast, 20, {"sm_80", "sm_90a", "sm_100a"});
  const auto& op = cuop::ops::groupnorm_op();
  const auto out = op.emit({f}, {"90a"});
  EXPECT_NE(out.header.find("dtype::bf16, kernels::groupnorm::layout::nhwc, true}"), std::string::npos) << out.header;
  EXPECT_NE(out.header.find("detail::entry_source::tuned, 20, \"groupnorm_bf16_nhwc_silu_group_loop_vec8_threads256\""),
            std::string::npos)
      << out.header;
  EXPECT_EQ(out.header, op.emit({f}, {"sm_90a"}).header);
}

// A cluster configuration that won on sm_90a compiles for sm_80 too (to a trap): the sm_80
// table must not ship it, and its kernel is built for sm_90a only.
TEST(groupnorm_op, emit_leaves_the_cluster_family_out_below_sm_90) {
  const kg::groupnorm_config split{kg::family::group_cluster, dtype::bf16, kg::layout::nhwc, true, 8, 512, 8};
  const auto f = h200_file(split, 12, {"sm_80", "sm_90a"});
  const auto out = cuop::ops::groupnorm_op().emit({f}, {"80", "90a"});
  const std::string name = "\"groupnorm_bf16_nhwc_silu_group_cluster_vec8_threads512_cluster8\"";
  const auto first = out.header.find(name);
  ASSERT_NE(first, std::string::npos) << out.header;
  EXPECT_EQ(out.header.find(name, first + 1), std::string::npos) << "shipped twice: " << out.header;
  EXPECT_NE(out.header.find("{90, \"NVIDIA H200\", dtype::bf16, kernels::groupnorm::layout::nhwc, true, 2, 320"),
            std::string::npos)
      << out.header;
}

}  // namespace
