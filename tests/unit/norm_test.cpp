// The row normalizations on the CPU: the family's configurations, names and default rule, the
// ops' sweep files, and emit's tables of both ops.
#include <gtest/gtest.h>

#include <set>

#include "cuop/kernels/norm/family.hpp"
#include "test_support.hpp"
#include "tuner/catalog/catalog.hpp"
#include "tuner/ops/norm/layernorm_op.hpp"
#include "tuner/ops/norm/rmsnorm_op.hpp"
#include "tuner/results/results_file.hpp"
#include "tuner/space/space.hpp"
#include "tuner/spec/spec.hpp"

namespace kn = cuop::kernels::norm;
using cuop::dtype;

namespace {

const kn::device_limits h200{90, 132, 1024};

TEST(norm_family, the_default_rule_runs_every_row_length_with_a_configuration_it_lists) {
  for (const kn::norm_kind k : {kn::norm_kind::layernorm, kn::norm_kind::rmsnorm})
    for (const dtype t : {dtype::f32, dtype::f16, dtype::bf16}) {
      std::set<std::string> listed;
      for (const auto& c : kn::default_configs(k, t)) {
        EXPECT_EQ(kn::check_config(c), "") << kn::instance_name(c);
        EXPECT_TRUE(listed.insert(kn::instance_name(c)).second) << "listed twice: " << kn::instance_name(c);
      }
      for (long long cols = 1; cols <= (1LL << 22); cols = cols * 3 / 2 + 1) {
        const auto c = kn::default_config(k, t, 7, cols);
        SCOPED_TRACE(kn::instance_name(c) + " cols " + std::to_string(cols));
        EXPECT_TRUE(listed.contains(kn::instance_name(c)));
        kn::launch_plan plan;
        EXPECT_EQ(kn::plan_launch(c, 7, cols, h200, plan), "");
        EXPECT_EQ(plan.block_x, static_cast<unsigned>(kn::threads_per_block(c)));
      }
    }
}

// A launch of few rows takes one row's latency: the rule gives each thread one vector of the row.
TEST(norm_family, the_default_rule_spreads_the_rows_of_a_small_launch_one_vector_a_thread) {
  const auto rule = [](long long rows, long long cols, dtype t = dtype::bf16) {
    return kn::instance_name(kn::default_config(kn::norm_kind::layernorm, t, rows, cols));
  };
  EXPECT_EQ(rule(1, 128), "layernorm_bf16_warp_row_vec8_rowthreads16_blockrows8_chunks1");
  EXPECT_EQ(rule(511, 256), "layernorm_bf16_warp_row_vec8_rowthreads32_blockrows4_chunks1");
  EXPECT_EQ(rule(511, 2048), "layernorm_bf16_block_row_vec8_threads256_chunks1");
  EXPECT_EQ(rule(512, 2048), "layernorm_bf16_warp_row_vec8_rowthreads32_blockrows4_chunks8");
  EXPECT_EQ(rule(21, 808, dtype::f16), "layernorm_f16_block_row_vec8_threads128_chunks1");  // 101 vectors
  EXPECT_EQ(rule(6, 1024, dtype::f32), "layernorm_f32_block_row_vec4_threads256_chunks1");
  EXPECT_EQ(rule(1, 8192), "layernorm_bf16_block_row_vec8_threads1024_chunks1");
  // Rows longer than the largest block keep the rule of large launches.
  EXPECT_EQ(rule(1, 8200), rule(4096, 8200));
  EXPECT_EQ(rule(1, 16384), "layernorm_bf16_block_row_vec8_threads512_chunks4");
}

// The fused residual add stores each vector's sum before it loads the next: the rule spreads every
// such launch, and only RMSNorm's (LayerNorm has no residual form).
TEST(norm_family, the_default_rule_spreads_every_launch_with_the_residual_add_fused) {
  const auto rule = [](kn::norm_kind k, long long cols, bool residual) {
    return kn::instance_name(kn::default_config(k, dtype::bf16, 32768, cols, residual));
  };
  EXPECT_EQ(rule(kn::norm_kind::rmsnorm, 4096, true), "rmsnorm_bf16_block_row_vec8_threads512_chunks1");
  EXPECT_EQ(rule(kn::norm_kind::rmsnorm, 4096, false), "rmsnorm_bf16_block_row_vec8_threads128_chunks4");
  EXPECT_EQ(rule(kn::norm_kind::layernorm, 4096, true), rule(kn::norm_kind::layernorm, 4096, false));
  EXPECT_EQ(rule(kn::norm_kind::rmsnorm, 16384, true), rule(kn::norm_kind::rmsnorm, 16384, false));
}

TEST(norm_family, names_templates_and_parameters) {
  kn::norm_config c{kn::norm_kind::rmsnorm, kn::family::warp_row, dtype::bf16};
  EXPECT_TRUE(kn::set_param(c, "vec", 8));
  EXPECT_TRUE(kn::set_param(c, "threads_per_row", 32));
  EXPECT_TRUE(kn::set_param(c, "rows_per_block", 4));
  EXPECT_TRUE(kn::set_param(c, "chunks", 4));
  EXPECT_FALSE(kn::set_param(c, "block_threads", 128));  // not warp_row's
  EXPECT_FALSE(kn::set_param(c, "vec", -1));
  EXPECT_EQ(kn::get_param(c, "chunks"), 4);
  EXPECT_EQ(kn::get_param(c, "cluster"), -1);
  EXPECT_EQ(kn::instance_name(c), "rmsnorm_bf16_warp_row_vec8_rowthreads32_blockrows4_chunks4");
  EXPECT_EQ(kn::template_name(c), "cuop::kernels::norm::warp_row<1, __nv_bfloat16, 8, 32, 4, 4>");
  const kn::norm_config loop{kn::norm_kind::layernorm, kn::family::block_loop, dtype::f32, 4, 0, 0, 512, 0};
  EXPECT_EQ(kn::instance_name(loop), "layernorm_f32_block_loop_vec4_threads512");
  EXPECT_EQ(kn::template_name(loop), "cuop::kernels::norm::block_loop<0, float, 4, 512>");
  EXPECT_EQ(kn::param_names(kn::family::block_loop), (std::vector<std::string_view>{"vec", "block_threads"}));
}

TEST(norm_family, malformed_configurations_and_problems_say_why) {
  kn::norm_config c{kn::norm_kind::layernorm, kn::family::block_row, dtype::f32, 8, 0, 0, 256, 4};
  EXPECT_EQ(kn::check_config(c), "vec * sizeof(element) > 16 bytes");
  c.vec = 4;
  c.block_threads = 100;
  EXPECT_EQ(kn::check_config(c), "threads per block must be a multiple of 32");
  c.block_threads = 256;
  c.chunks = 64;
  EXPECT_EQ(kn::check_config(c), "a thread's tile of 256 registers > 128");
  c.chunks = 4;
  kn::launch_plan plan;
  EXPECT_EQ(kn::plan_launch(c, 3, 4097, h200, plan), "cols 4097 > 4096 held per row");
  EXPECT_EQ(kn::plan_launch(c, 3, 4096, h200, plan), "");
  EXPECT_EQ(plan.grid_x, 3u);
  const kn::norm_config warp{kn::norm_kind::rmsnorm, kn::family::warp_row, dtype::f16, 8, 8, 16, 0, 1};
  ASSERT_EQ(kn::plan_launch(warp, 33, 64, h200, plan), "");
  EXPECT_EQ(plan.grid_x, 3u);  // groups of 16 rows
  EXPECT_EQ(plan.block_x, 128u);
}

// The dispatch model is measured against the default rule: each problem of the committed sweep
// files must race the rule's configuration, else that problem is no anchor of the model.
TEST(norm_ops, every_problem_of_the_sweep_files_races_the_default_rules_configuration) {
  for (const std::string file : {"layernorm", "rmsnorm", "regions/layernorm-grid", "regions/rmsnorm-grid"}) {
    const auto sweep = cuop::spec::load(std::string(CUOP_SOURCE_DIR) + "/configs/" + file + ".yaml");
    const std::string op = sweep.op;
    const auto* desc = cuop::catalog::find_op(op);
    ASSERT_NE(desc, nullptr);
    for (const auto& p : sweep.problems) {
      const std::string baseline = desc->baseline_of(p.dtype, p.dims, 90);
      bool raced = false;
      for (const auto& v : cuop::space::enumerate(sweep, p)) {
        kn::norm_config c{op == "layernorm" ? kn::norm_kind::layernorm : kn::norm_kind::rmsnorm};
        ASSERT_TRUE(kn::parse_family(v.config.family, c.fam));
        c.type = *cuop::parse_dtype(p.dtype);
        for (const auto& [name, value] : v.config.params) kn::set_param(c, name, value);
        raced = raced || (v.accepted && kn::instance_name(c) == baseline);
      }
      EXPECT_TRUE(raced) << p.key(op) << ": " << baseline << " is not among the candidates";
    }
  }
}

TEST(norm_ops, rmsnorm_problems_take_residual_0_or_1_and_errors_name_the_place) {
  const std::string head = "op: rmsnorm\ndtypes: [bf16]\nproblems:\n  - ";
  const std::string tail = "\ncandidates: [{family: block_loop, params: {vec: 8, block_threads: 256}}]\n";
  const auto s = cuop::spec::parse(
      "op: rmsnorm\ndtypes: [bf16]\nproblems:\n  - {rows: 4, cols: 4096}\n"
      "  - {rows: 4, cols: 4096, residual: 1}" +
          tail,
      "r.yaml");
  ASSERT_EQ(s.problems.size(), 2u);
  EXPECT_EQ(s.problems[0].key(s.op), "rmsnorm_bf16_4x4096");
  EXPECT_EQ(s.problems[1].key(s.op), "rmsnorm_bf16_4x4096_residual");
  EXPECT_EQ(
      cuop::test::error_of([&] { cuop::spec::parse(head + "{rows: 4, cols: 4096, residual: 2}" + tail, "r.yaml"); }),
      "r.yaml:4:37: expected an integer in [0, 1] for \"residual\", got \"2\"");
  EXPECT_EQ(cuop::test::error_of([&] {
              cuop::spec::parse("op: layernorm\ndtypes: [bf16]\nproblems:\n  - {rows: 4, cols: 8, residual: 1}" + tail,
                                "l.yaml");
            }).substr(0, 12),
            "l.yaml:4:24:");
}

cuop::results::result_trial trial(const std::string& dtype, long long rows, long long cols, bool residual,
                                  const kn::norm_config& c, double us) {
  cuop::results::result_trial t;
  t.problem =
      "rmsnorm_" + dtype + "_" + std::to_string(rows) + "x" + std::to_string(cols) + (residual ? "_residual" : "");
  t.dtype = dtype;
  t.dims = {{"rows", rows}, {"cols", cols}, {"residual", residual ? 1 : 0}};
  t.family = std::string(kn::name_of(c.fam));
  for (const auto name : kn::param_names(c.fam)) t.params[std::string(name)] = kn::get_param(c, name);
  t.instance = kn::instance_name(c);
  t.status = "ok";
  t.median_us = us;
  t.ci_lo_us = 0.99 * us;
  t.ci_hi_us = 1.01 * us;
  t.run = 1;
  return t;
}

// An H200 results file of rmsnorm: at 8192 x 4096 bf16 fused, a 256-thread block_row with 2 vectors
// a thread beats the default rule's 512 threads with one clearly.
cuop::results::result_file rmsnorm_results() {
  cuop::results::result_file f;
  f.path = "results/rmsnorm/nvidia-h200.json";
  f.op = "rmsnorm";
  f.gpu = "NVIDIA H200";
  f.cc = 90;
  f.runs.push_back({1, "2026-12-06T05:00:00Z", "configs/rmsnorm.yaml", "abc", "rev", {}});
  const auto rule = kn::default_config(kn::norm_kind::rmsnorm, dtype::bf16, 8192, 4096, true);
  const kn::norm_config fast{kn::norm_kind::rmsnorm, kn::family::block_row, dtype::bf16, 8, 0, 0, 256, 2};
  f.trials.push_back(trial("bf16", 8192, 4096, true, rule, 60));
  f.trials.push_back(trial("bf16", 8192, 4096, true, fast, 50));
  for (const char* target : {"sm_80", "sm_90a", "sm_100a"})
    for (const auto& c : {rule, fast}) f.builds.push_back({kn::instance_name(c), target, "ok", "", 32, 0, 0, 0});
  return f;
}

TEST(norm_emit, byte_identical_and_the_fused_group_keeps_its_winner) {
  const auto& op = cuop::ops::rmsnorm_op();
  const auto a = op.emit({rmsnorm_results()}, {"80", "90a", "100a"});
  const auto b = op.emit({rmsnorm_results()}, {"100a", "90a-real", "sm_80"});
  EXPECT_EQ(a.header, b.header);
  EXPECT_EQ(a.instantiation, b.instantiation);
  const auto out = op.emit({rmsnorm_results()}, {"90a"});
  EXPECT_NE(out.header.find("dtype::bf16, true}"), std::string::npos) << out.header;  // the fused group's model
  EXPECT_NE(out.header.find("detail::entry_source::tuned, 50, \"rmsnorm_bf16_block_row_vec8_threads256_chunks2\""),
            std::string::npos)
      << out.header;
  std::string units;
  for (const auto& u : out.kernel_units) units += u;
  EXPECT_NE(units.find("cuop::kernels::norm::block_row<1, __nv_bfloat16, 8, 256, 2>::run(a);"), std::string::npos);
}

TEST(norm_emit, no_results_gives_each_ops_default_rule_only) {
  for (const auto* op : {&cuop::ops::layernorm_op(), &cuop::ops::rmsnorm_op()}) {
    const auto out = op->emit({}, {"90a"});
    const auto kind = op->name() == "layernorm" ? kn::norm_kind::layernorm : kn::norm_kind::rmsnorm;
    std::size_t n = 0;
    for (const dtype t : {dtype::f32, dtype::f16, dtype::bf16}) n += kn::default_configs(kind, t).size();
    EXPECT_NE(out.header.find(op->name() + "_model_count = 0;"), std::string::npos);
    EXPECT_EQ(out.header.find("entry_source::tuned"), std::string::npos);
    EXPECT_NE(out.instantiation.find(op->name() + "_kernels[" + std::to_string(n) + "]"), std::string::npos);
  }
}

}  // namespace
