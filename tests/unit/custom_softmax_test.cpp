// Custom softmax kernels (family "custom", tuner/ops/softmax/custom.hpp): the sweep file's
// "source" and "kernel" keys, their errors at file:line:column, the translation unit and the
// instance name the tuner builds from them, and emit leaving them out of the library.
#include <gtest/gtest.h>

#include "test_support.hpp"

#include <fstream>
#include <string>

#include "tuner/ops/softmax/custom.hpp"
#include "tuner/ops/softmax/emit.hpp"
#include "tuner/results/results_file.hpp"
#include "tuner/space/space.hpp"
#include "tuner/spec/spec.hpp"

namespace {

using cuop::test::error_of;

struct custom_files {
  cuop::test::scratch dir{"cuop-custom"};
  custom_files() {
    std::ofstream(dir / "my_softmax.cuh") << "namespace mine {\ntemplate <typename T, int B, int X>\n"
                                             "struct soft { static __device__ void run(const "
                                             "cuop::kernels::softmax::softmax_args&) {} };\n}\n";
  }
  // A sweep file with `candidate` as its only candidate, written beside the header.
  std::string sweep(const std::string& candidate) const {
    const auto path = dir / "sweep.yaml";
    std::ofstream(path) << "op: softmax\nproblems:\n  - {rows: 64, cols: 1000, dtype: f16}\ncandidates:\n" << candidate;
    return path;
  }
};

constexpr const char* good =
    "  - family: custom\n"
    "    source: my_softmax.cuh\n"
    "    kernel: mine::soft\n"
    "    params: {block_threads: [128, 256], extra: [3]}\n";

}  // namespace

TEST(custom_softmax, a_custom_candidate_loads_with_its_source_beside_the_sweep_file) {
  custom_files f;
  const auto s = cuop::spec::load(f.sweep(good));
  ASSERT_EQ(s.candidates.size(), 1u);
  const auto& c = s.candidates[0];
  EXPECT_EQ(c.family, "custom");
  EXPECT_EQ(c.source, f.dir / "my_softmax.cuh");
  EXPECT_EQ(c.kernel, "mine::soft");
  ASSERT_EQ(c.params.size(), 2u);
  EXPECT_EQ(c.params[1].name, "extra");  // any parameter: the template's
  const auto points = cuop::space::enumerate(s, s.problems[0]);
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0].config.source, c.source);
  EXPECT_EQ(points[0].config.kernel, "mine::soft");
}

TEST(custom_softmax, mistakes_name_the_place) {
  custom_files f;
  const auto at = [&](const std::string& where) { return f.dir / "sweep.yaml" + ":" + where + ": "; };
  EXPECT_EQ(error_of([&] {
              cuop::spec::load(
                  f.sweep("  - family: block_row\n    source: my_softmax.cuh\n"
                          "    params: {vec: [4], block_threads: [128], chunks: [2]}\n"));
            }),
            at("6:5") + "\"source\" belongs to family \"custom\" only, not \"block_row\"");
  EXPECT_EQ(error_of([&] {
              cuop::spec::load(
                  f.sweep("  - family: custom\n    source: my_softmax.cuh\n"
                          "    params: {block_threads: [128]}\n"));
            }),
            at("5:5") + "missing required key \"kernel\" for family \"custom\"");
  EXPECT_EQ(error_of([&] {
              cuop::spec::load(
                  f.sweep("  - family: custom\n    source: missing.cuh\n    kernel: mine::soft\n"
                          "    params: {block_threads: [128]}\n"));
            }),
            at("6:13") + "no such source file \"missing.cuh\" (looked for \"" + (f.dir / "missing.cuh") + "\")");
  EXPECT_EQ(error_of([&] {
              cuop::spec::load(
                  f.sweep("  - family: custom\n    source: my_softmax.cuh\n    kernel: \"soft<int>\"\n"
                          "    params: {block_threads: [128]}\n"));
            }),
            at("7:13") + "\"kernel\" must name a class template, e.g. my_ns::my_softmax; got \"soft<int>\"");
  EXPECT_EQ(error_of([&] {
              cuop::spec::load(
                  f.sweep("  - family: custom\n    source: my_softmax.cuh\n    kernel: mine::soft\n"
                          "    params: {threads: [128]}\n"));
            }),
            at("8:13") + "missing parameter \"block_threads\" for family \"custom\"");
}

TEST(custom_softmax, the_unit_pastes_the_header_and_the_name_follows_its_contents) {
  custom_files f;
  const auto s = cuop::spec::load(f.sweep(good));
  const auto point = cuop::space::enumerate(s, s.problems[0])[1].config;  // block_threads 256
  const auto k = cuop::ops::custom_softmax_candidate(point, "f16");
  EXPECT_EQ(k.block_threads, 256);
  EXPECT_EQ(k.dynamic_smem, 0);
  EXPECT_EQ(k.dtype_label, "f16");
  EXPECT_EQ(k.instance.rfind("softmax_f16_custom_mine__soft_", 0), 0u) << k.instance;
  EXPECT_NE(k.instance.find("_block_threads256_extra3"), std::string::npos) << k.instance;
  EXPECT_NE(k.source.find("#line 1 \"" + point.source + "\""), std::string::npos) << k.source;
  EXPECT_NE(k.source.find("struct soft"), std::string::npos);
  EXPECT_NE(k.source.find("__launch_bounds__(256) " + k.instance + "("), std::string::npos) << k.source;
  EXPECT_NE(k.source.find("mine::soft<__half, 256, 3>::run(a);"), std::string::npos) << k.source;

  std::ofstream(point.source, std::ios::app) << "// edited\n";  // other code: another name
  EXPECT_NE(cuop::ops::custom_softmax_candidate(point, "f16").instance, k.instance);
}

TEST(custom_softmax, emit_never_ships_a_custom_kernel) {
  cuop::results::result_file f;
  f.path = "results/softmax/test.json";
  f.op = "softmax";
  f.gpu = "NVIDIA H200";
  f.cc = 90;
  f.runs.push_back({1, "2026-12-01T00:00:00Z", "tests/calibration/calibration.yaml", "abc", "rev"});
  cuop::results::result_trial t;
  t.problem = "softmax_f32_1024x1024";
  t.dtype = "f32";
  t.dims = {{"rows", 1024}, {"cols", 1024}};
  t.family = "custom";
  t.params = {{"block_threads", 256}, {"work", 1000}};
  t.instance = "softmax_f32_custom_cuop_test__extra_work_softmax_0badf00d_block_threads256_work1000";
  t.status = "ok";
  t.median_us = 1;
  t.run = 1;
  f.trials.push_back(t);
  f.builds.push_back({t.instance, "sm_90a", "ok", "", 32, 0, 0, 0});
  const auto out = cuop::ops::emit_softmax({f}, {"90a"});
  EXPECT_EQ(out.header.find("custom"), std::string::npos) << out.header;
  EXPECT_EQ(out.header.find("1024, 1024"), std::string::npos);
}
