// Sweep files: valid ones parse to the expected values, malformed ones fail with one exact
// message naming file:line:column.
#include <gtest/gtest.h>

#include "test_support.hpp"

#include <ostream>
#include <string>

#include "tuner/catalog/catalog.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/suggest.hpp"
#include "tuner/space/space.hpp"
#include "tuner/spec/spec.hpp"

namespace {

using cuop::spec::load;
using cuop::spec::parse;

std::string fixture(const std::string& name) { return std::string(CUOP_TEST_DATA_DIR) + "/spec/" + name; }

using cuop::test::error_of;

TEST(spec, full_example_parses) {
  const auto s = load(fixture("valid_full.yaml"));
  EXPECT_EQ(s.file, fixture("valid_full.yaml"));
  EXPECT_EQ(s.op, "softmax");
  ASSERT_EQ(s.problems.size(), 6u);
  const std::vector<std::string> keys = {"softmax_f32_4096x4096", "softmax_f16_32768x1024", "softmax_bf16_32768x1024",
                                         "softmax_f32_65536x128", "softmax_f16_65536x128",  "softmax_bf16_65536x128"};
  for (std::size_t i = 0; i < keys.size(); ++i) EXPECT_EQ(s.problems[i].key(s.op), keys[i]);
  EXPECT_EQ(s.problems[1].dims.at("rows"), 32768);
  EXPECT_EQ(s.problems[1].dims.at("cols"), 1024);
  EXPECT_EQ(s.problems[1].where.str(), fixture("valid_full.yaml") + ":6:5");

  ASSERT_EQ(s.candidates.size(), 2u);
  const auto& warp = s.candidates[0];
  EXPECT_EQ(warp.family, "warp_row");
  ASSERT_EQ(warp.params.size(), 4u);
  EXPECT_EQ(warp.params[0].name, "vec");
  EXPECT_EQ(warp.params[0].values, (std::vector<std::int64_t>{1, 2, 4, 8}));
  EXPECT_EQ(warp.params[1].values, (std::vector<std::int64_t>{1, 2, 4, 8, 16, 32}));
  EXPECT_EQ(warp.params[2].values, (std::vector<std::int64_t>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(warp.params[1].where.line, 12);
  EXPECT_EQ(warp.params[1].where.column, 24);
  ASSERT_EQ(warp.constraints.size(), 2u);
  EXPECT_EQ(warp.constraints[1].expr, "vec * threads_per_row * chunks >= cols");
  EXPECT_EQ(warp.constraints[1].where.str(), fixture("valid_full.yaml") + ":17:9");

  const auto& block = s.candidates[1];
  EXPECT_EQ(block.params[1].name, "block_threads");
  EXPECT_EQ(block.params[1].values, (std::vector<std::int64_t>{128, 256, 384, 512, 640, 768, 896, 1024}));
  EXPECT_EQ(block.params[2].values, (std::vector<std::int64_t>{2}));  // a scalar is one value

  ASSERT_EQ(s.constraints.size(), 1u);
  EXPECT_EQ(s.constraints[0].expr, "vec * elem_bytes <= 16");
  EXPECT_EQ(s.targets, (std::vector<std::string>{"sm_80", "sm_90a", "sm_100a"}));
  EXPECT_EQ(s.measure.warmup_ms, 50);
  EXPECT_EQ(s.measure.min_samples, 20);
  EXPECT_EQ(s.measure.max_samples, 200);
  EXPECT_DOUBLE_EQ(s.measure.max_time_s, 1.5);
  EXPECT_DOUBLE_EQ(s.measure.rel_ci, 0.02);
  EXPECT_FALSE(s.measure.flush_l2);
  EXPECT_DOUBLE_EQ(s.measure.timeout_s, 10);
  EXPECT_EQ(s.strategy, "exhaustive");
}

TEST(spec, minimal_file_gets_defaults) {
  const auto s = load(fixture("valid_minimal.yaml"));
  ASSERT_EQ(s.problems.size(), 1u);
  EXPECT_EQ(s.problems[0].key("softmax"), "softmax_f16_8x32");
  EXPECT_EQ(s.targets, (std::vector<std::string>{"sm_80", "sm_90a", "sm_100a"}));
  const cuop::measure::settings defaults;
  EXPECT_EQ(s.measure.min_samples, defaults.min_samples);
  EXPECT_EQ(s.measure.max_samples, defaults.max_samples);
  EXPECT_TRUE(s.measure.flush_l2);
  EXPECT_EQ(s.strategy, "exhaustive");
  EXPECT_TRUE(s.constraints.empty());
}

TEST(spec, problem_key_follows_op_dimension_order) {
  cuop::spec::problem p;
  p.dtype = "bf16";
  p.dims = {{"cols", 1024}, {"rows", 32768}};  // the map sorts cols first; the key must not
  EXPECT_EQ(p.key("softmax"), "softmax_bf16_32768x1024");
}

TEST(spec, location_str) {
  const cuop::spec::location l{"configs/a.yaml", 12, 5};
  EXPECT_EQ(l.str(), "configs/a.yaml:12:5");
}

TEST(spec, messages_use_the_name_as_given) {
  const std::string text =
      "op: softmax\nproblems: [{rows: 4, cols: 4, dtype: f32}]\n"
      "candidates: [{family: block_row, params: {vec: 1, block_threads: 32, chunk: 1}}]\n";
  EXPECT_EQ(error_of([&] { parse(text, "configs/x.yaml"); }),
            "configs/x.yaml:3:70: unknown parameter \"chunk\" for family \"block_row\" (did you "
            "mean \"chunks\"?)");
}

// An optional parameter (persistent) may be given or left out; misspelt, it is suggested; a
// family without it refuses it.
TEST(spec, optional_parameter_may_be_left_out_and_is_suggested) {
  const std::string head = "op: softmax\nproblems: [{rows: 4, cols: 4, dtype: f32}]\n";
  const auto with = parse(head +
                              "candidates: [{family: block_row, params: {vec: 1, block_threads: 32, chunks: 1, "
                              "persistent: [0, 1]}}]\n",
                          "x.yaml");
  ASSERT_EQ(with.candidates.size(), 1u);
  ASSERT_EQ(with.candidates[0].params.size(), 4u);
  EXPECT_EQ(with.candidates[0].params[3].name, "persistent");
  EXPECT_EQ(with.candidates[0].params[3].values, (std::vector<std::int64_t>{0, 1}));
  const auto without =
      parse(head + "candidates: [{family: block_row, params: {vec: 1, block_threads: 32, chunks: 1}}]\n", "x.yaml");
  EXPECT_EQ(without.candidates[0].params.size(), 3u);
  EXPECT_EQ(error_of([&] {
              parse(head +
                        "candidates: [{family: warp_row, params: {vec: 1, threads_per_row: 32, rows_per_block: 2, "
                        "chunks: 1, persistant: 0}}]\n",
                    "x.yaml");
            }),
            "x.yaml:3:101: unknown parameter \"persistant\" for family \"warp_row\" (did you mean \"persistent\"?)");
  EXPECT_NE(error_of([&] {
              parse(head +
                        "candidates: [{family: cluster_row, params: {vec: 1, block_threads: 32, chunks: 1, cluster: 2, "
                        "persistent: 0}}]\n",
                    "x.yaml");
            }).find("unknown parameter \"persistent\" for family \"cluster_row\""),
            std::string::npos);
}

TEST(spec, missing_file_is_an_error) {
  EXPECT_EQ(error_of([] { load("/nonexistent/sweep.yaml"); }),
            "/nonexistent/sweep.yaml: cannot open sweep file (No such file or directory)");
}

TEST(spec, range_expansion_is_capped) {
  const std::string text =
      "op: softmax\nproblems: [{rows: 4, cols: 4, dtype: f32}]\n"
      "candidates: [{family: block_row, params: {vec: 1, block_threads: {range: [1, 100000]}, "
      "chunks: 1}}]\n";
  EXPECT_EQ(error_of([&] { parse(text, "x.yaml"); }),
            "x.yaml:3:66: parameter \"block_threads\" expands to more than 4096 values");
}

struct bad_case {
  const char* file;
  const char* message;  // after "<path>:"
};

// Failure output names the fixture instead of dumping bytes.
void PrintTo(const bad_case& c, std::ostream* os) { *os << c.file; }

class spec_bad : public testing::TestWithParam<bad_case> {};

TEST_P(spec_bad, fails_with_exact_message) {
  const std::string path = fixture(GetParam().file);
  EXPECT_EQ(error_of([&] { load(path); }), path + ":" + GetParam().message);
}

const bad_case bad_cases[] = {
    {"bad_yaml_syntax.yaml", "4:11: end of map flow not found"},
    {"bad_empty_file.yaml", "1:1: empty sweep file"},
    {"bad_unknown_key.yaml", "7:1: unknown key \"measur\" (did you mean \"measure\"?)"},
    {"bad_unknown_key_far.yaml",
     "2:1: unknown key \"colour\" (expected one of: op, dtypes, problems, candidates, "
     "constraints, targets, measure, strategy, budget, transfer_neighbours, transfer_seed)"},
    {"bad_duplicate_key.yaml", "4:1: duplicate key \"op\""},
    {"bad_missing_op.yaml", "1:1: missing required key \"op\""},
    {"bad_missing_problems.yaml", "1:1: missing required key \"problems\""},
    {"bad_missing_candidates.yaml", "1:1: missing required key \"candidates\""},
    {"bad_unknown_op.yaml", "1:5: unknown op \"sofmax\" (did you mean \"softmax\"?)"},
    {"bad_problems_not_list.yaml", "2:11: expected a list for \"problems\", got a map"},
    {"bad_unknown_family.yaml", "5:13: unknown family \"warp_rows\" for op \"softmax\" (did you mean \"warp_row\"?)"},
    {"bad_unknown_param.yaml", "7:7: unknown parameter \"vecs\" for family \"block_row\" (did you mean \"vec\"?)"},
    {"bad_missing_param.yaml", "7:7: missing parameter \"chunks\" for family \"warp_row\""},
    {"bad_unknown_dtype.yaml", "2:15: unknown dtype \"f64\" (expected one of: f32, f16, bf16)"},
    {"bad_no_dtype.yaml", "4:5: problem has no dtype (give \"dtype\" or \"dtypes\", here or at the top level)"},
    {"bad_unknown_target.yaml", "7:18: unknown target \"sm_91\" (did you mean \"sm_90\"?)"},
    {"bad_unknown_strategy.yaml", "7:11: unknown strategy \"exhaustiv\" (did you mean \"exhaustive\"?)"},
    {"bad_string_for_int.yaml", "3:12: expected a positive integer for \"rows\", got \"many\""},
    {"bad_zero_dim.yaml", "3:24: expected a positive integer for \"cols\", got \"0\""},
    {"bad_range_lo_gt_hi.yaml", "8:30: \"range\" of parameter \"block_threads\" has lo > hi: [512, 128]"},
    {"bad_range_step.yaml", "8:41: expected a positive step for \"range\" of parameter \"block_threads\", got \"0\""},
    {"bad_pow2_bound.yaml", "8:34: bound \"768\" of \"pow2\" of parameter \"block_threads\" is not a power of two"},
    {"bad_empty_list.yaml", "7:12: empty list for parameter \"vec\""},
    {"bad_duplicate_value.yaml", "7:19: duplicate value \"2\" for parameter \"vec\""},
    {"bad_duplicate_problem.yaml", "4:5: duplicate problem \"softmax_f16_4096x4096\" (first at " CUOP_TEST_DATA_DIR
                                   "/spec/bad_duplicate_problem.yaml:3:5)"},
    {"bad_min_gt_max_samples.yaml", "8:16: min_samples \"50\" is greater than max_samples \"20\""},
    {"bad_rel_ci.yaml", "7:19: expected a number in (0, 1) for \"rel_ci\", got \"0\""},
    {"bad_timeout.yaml", "7:37: timeout_s \"2\" must be greater than max_time_s \"5\""},
    {"bad_flush_l2.yaml", "7:21: expected true or false for \"flush_l2\", got \"sometimes\""},
    {"bad_unknown_measure_key.yaml", "8:3: unknown key \"warmup\" in \"measure\" (did you mean \"warmup_ms\"?)"},
    {"bad_unknown_symbol.yaml",
     "8:9: unknown symbol \"vex\" in constraint \"vex * elem_bytes <= 16\" (did you mean "
     "\"vec\"?)"},
    {"bad_shared_constraint_symbol.yaml",
     "10:5: unknown symbol \"threads_per_row\" in constraint \"threads_per_row <= 32\" for family "
     "\"block_row\" (expected one of: vec, block_threads, chunks, rows, cols, elem_bytes)"},
    {"bad_constraint_syntax.yaml", "7:19: constraint \"vec * <= 16\": unexpected token \"<= 16 \" found at position 6"},
};

INSTANTIATE_TEST_SUITE_P(files, spec_bad, testing::ValuesIn(bad_cases),
                         [](const testing::TestParamInfo<bad_case>& info) {
                           std::string name = info.param.file;
                           return name.substr(0, name.find('.'));
                         });

TEST(suggest, edit_distance_counts_transpositions_as_one) {
  EXPECT_EQ(cuop::edit_distance("measure", "measure"), 0u);
  EXPECT_EQ(cuop::edit_distance("measur", "measure"), 1u);
  EXPECT_EQ(cuop::edit_distance("cehv", "chev"), 1u);
  EXPECT_EQ(cuop::edit_distance("", "abc"), 3u);
  EXPECT_EQ(cuop::edit_distance("kitten", "sitting"), 3u);
}

TEST(suggest, closest_name_only_when_plausible) {
  const std::vector<std::string> names = {"vec", "block_threads", "chunks"};
  EXPECT_EQ(cuop::closest_name("vex", names).value_or("-"), "vec");
  EXPECT_EQ(cuop::closest_name("VEC", names).value_or("-"), "vec");
  EXPECT_EQ(cuop::closest_name("block_thread", names).value_or("-"), "block_threads");
  EXPECT_FALSE(cuop::closest_name("x", names).has_value());
  EXPECT_FALSE(cuop::closest_name("tile_m", names).has_value());
  EXPECT_EQ(cuop::suggest_suffix("tile_m", names), " (expected one of: vec, block_threads, chunks)");
  EXPECT_EQ(cuop::suggest_suffix("chunk", names), " (did you mean \"chunks\"?)");
  EXPECT_EQ(cuop::suggest_suffix("chunk", {}), "");
}

TEST(registry, softmax_families_and_dims) {
  const auto* op = cuop::catalog::find_op("softmax");
  ASSERT_NE(op, nullptr);
  EXPECT_EQ(op->problem_dims, (std::vector<std::string>{"rows", "cols"}));
  EXPECT_EQ(op->family_names(),
            (std::vector<std::string>{"warp_row", "block_row", "split_row", "cluster_row", "row_tile", "custom"}));
  EXPECT_TRUE(op->find_family("custom")->user_source);  // the sweep file's own kernel
  EXPECT_EQ(op->find_family("custom")->params, std::vector<std::string>{"block_threads"});
  EXPECT_FALSE(op->find_family("block_row")->user_source);
  const auto* warp = op->find_family("warp_row");
  ASSERT_NE(warp, nullptr);
  EXPECT_EQ(warp->params, (std::vector<std::string>{"vec", "threads_per_row", "rows_per_block", "chunks"}));
  EXPECT_EQ(warp->kind, "kernel");
  EXPECT_EQ(warp->optional_params, std::vector<std::string>{"persistent"});
  EXPECT_EQ(op->find_family("block_row")->optional_params, (std::vector<std::string>{"persistent", "smem_chunks"}));
  EXPECT_TRUE(op->find_family("cluster_row")->optional_params.empty());
  EXPECT_EQ(op->find_family("split_row")->params, (std::vector<std::string>{"vec", "block_threads", "chunks"}));
  EXPECT_EQ(op->find_family("cluster_row")->params,
            (std::vector<std::string>{"vec", "block_threads", "chunks", "cluster"}));
  EXPECT_EQ(op->find_family("nope"), nullptr);
  EXPECT_EQ(cuop::catalog::find_op("gemmm"), nullptr);
  EXPECT_EQ(cuop::catalog::op_names(),
            (std::vector<std::string>{"softmax", "gemm", "conv2d", "layernorm", "rmsnorm", "groupnorm"}));
}

TEST(spec, conv2d_problems_take_defaults_zero_padding_and_a_named_layout) {
  const std::string text =
      "op: conv2d\ndtypes: [f16]\nproblems:\n"
      "  - {n: 32, h: 56, w: 56, c: 128, k: 128, r: 7, s: 7, pad: 3, groups: 128}\n"
      "  - {n: 1, h: 8, w: 8, c: 16, k: 16, r: 3, s: 3, stride: 2, groups: 16, layout: nchw}\n"
      "candidates: [{family: depthwise, params: {vec: 8, cvecs: 1, block_c: 16, tile_h: 4, "
      "tile_w: 8, ph: 1, pw: 2, algo: smem}}]\n";
  const auto sw = parse(text, "c.yaml");
  ASSERT_EQ(sw.problems.size(), 2u);
  const auto& a = sw.problems[0].dims;
  EXPECT_EQ(a.at("stride"), 1);
  EXPECT_EQ(a.at("dilation"), 1);
  EXPECT_EQ(a.at("pad"), 3);
  EXPECT_EQ(a.at("layout"), 0);
  EXPECT_EQ(sw.problems[0].key("conv2d"), "conv2d_f16_nhwc_32x56x56x128_k128_filter7x7_stride1_pad3_dil1_groups128");
  const auto& b = sw.problems[1].dims;
  EXPECT_EQ(b.at("pad"), 0);
  EXPECT_EQ(b.at("layout"), 1);
  EXPECT_EQ(sw.problems[1].key("conv2d"), "conv2d_f16_nchw_1x8x8x16_k16_filter3x3_stride2_pad0_dil1_groups16");
}

TEST(spec, conv2d_dimension_errors_name_the_place) {
  const auto with = [](const std::string& problem) {
    return "op: conv2d\ndtypes: [f16]\nproblems:\n  - " + problem +
           "\ncandidates: [{family: depthwise, params: {vec: 8, cvecs: 1, block_c: 16, tile_h: 4, "
           "tile_w: 8, ph: 1, pw: 2, algo: smem}}]\n";
  };
  EXPECT_EQ(error_of([&] { parse(with("{n: 1, h: 8, w: 8, c: 16, k: 16, r: 3, s: 3, layout: nhcw}"), "c.yaml"); }),
            "c.yaml:4:58: unknown layout \"nhcw\" (did you mean \"nhwc\"?)");
  EXPECT_EQ(error_of([&] { parse(with("{n: 1, h: 8, w: 8, c: 16, k: 16, r: 3, s: 3, pad: -1}"), "c.yaml"); }),
            "c.yaml:4:55: expected an integer >= 0 for \"pad\", got \"-1\"");
  EXPECT_EQ(error_of([&] { parse(with("{n: 1, h: 8, w: 8, c: 16, k: 16, r: 3, stride: 1}"), "c.yaml"); }),
            "c.yaml:4:5: missing dimension \"s\" in problem");
}

TEST(registry, conv2d_dims_and_families) {
  const auto* op = cuop::catalog::find_op("conv2d");
  ASSERT_NE(op, nullptr);
  EXPECT_EQ(op->problem_dims, (std::vector<std::string>{"n", "h", "w", "c", "k", "r", "s", "stride", "pad", "dilation",
                                                        "groups", "tf32", "layout"}));
  EXPECT_EQ(op->family_names(), (std::vector<std::string>{"depthwise", "cudnn", "fft"}));
  EXPECT_EQ(op->find_family("cudnn")->kind, "library");
  EXPECT_EQ(op->find_family("fft")->kind, "library");
  EXPECT_EQ(op->dim("tf32").fallback.value_or(-1), 0);
  EXPECT_EQ(op->dim("pad").min, 0);
  EXPECT_EQ(op->dim("pad").fallback.value_or(-1), 0);
  EXPECT_FALSE(op->dim("n").fallback.has_value());
  EXPECT_EQ(op->dim("layout").choices, (std::vector<std::string>{"nhwc", "nchw"}));
  // Ops without rules: every dimension required and positive.
  EXPECT_EQ(cuop::catalog::find_op("gemm")->dim("m").min, 1);
  EXPECT_FALSE(cuop::catalog::find_op("gemm")->dim("m").fallback.has_value());
}

}  // namespace

// Depthwise's algo has named values: written by name (one or a list), stored as the index of the
// name, and its names stand for those values in constraints. Numbers, ranges and unknown names
// are refused, naming the place.
TEST(spec, a_named_parameter_is_written_by_name_and_stored_as_its_index) {
  const auto with = [](const std::string& algo, const std::string& constraints = "") {
    return "op: conv2d\ndtypes: [f16]\nproblems:\n  - {n: 1, h: 8, w: 8, c: 16, k: 16, r: 3, s: 3, groups: 16}\n"
           "candidates: [{family: depthwise, params: {vec: 8, cvecs: 1, block_c: 16, tile_h: 4, tile_w: 8, ph: 1, "
           "pw: 2, algo: " +
           algo + "}" + constraints + "}]\n";
  };
  const auto sw = parse(with("[direct, smem_f32, mma_seg]", ", constraints: [\"algo != smem_f32\"]"), "c.yaml");
  ASSERT_EQ(sw.candidates.size(), 1u);
  const auto& algo = sw.candidates[0].params.back();
  EXPECT_EQ(algo.name, "algo");
  EXPECT_EQ(algo.values, (std::vector<std::int64_t>{0, 2, 5}));
  std::vector<std::int64_t> accepted;
  for (const auto& v : cuop::space::enumerate(sw, sw.problems[0]))
    if (v.accepted) accepted.push_back(v.config.params.back().second);
  EXPECT_EQ(accepted, (std::vector<std::int64_t>{0, 5}));

  const auto error = [&](const std::string& algo) { return error_of([&] { parse(with(algo), "c.yaml"); }); };
  EXPECT_NE(error("smem2").find(": unknown algo \"smem2\" (did you mean \"smem\"?)"), std::string::npos);
  EXPECT_NE(
      error("1").find(": unknown algo \"1\" (expected one of: direct, smem, smem_f32, mma, mma_tma, mma_seg, plane)"),
      std::string::npos);
  EXPECT_NE(error("{range: [0, 2]}").find(": expected a name or a list of names for parameter \"algo\""),
            std::string::npos);
  EXPECT_NE(error("[smem, smem]").find(": duplicate value \"smem\" for parameter \"algo\""), std::string::npos);
}
