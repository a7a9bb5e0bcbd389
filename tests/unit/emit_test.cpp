#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cuop/kernels/softmax/family.hpp"
#include "tuner/core/error.hpp"
#include "tuner/ops/softmax/emit.hpp"
#include "tuner/results/results_file.hpp"

using namespace cuop::emit;
using namespace cuop::results;
using cuop::ops::emit_softmax;

namespace {

// The kernels' definitions: every kernel unit of an emit.
std::string kernel_text(const cuop::emit::emitted& out) {
  std::string all;
  for (const auto& u : out.kernel_units) all += u;
  return all;
}

result_trial trial(const std::string& dtype, long long rows, long long cols, const std::string& family,
                   std::map<std::string, long long> params, const std::string& instance, double us) {
  result_trial t;
  t.problem = "softmax_" + dtype + "_" + std::to_string(rows) + "x" + std::to_string(cols);
  t.dtype = dtype;
  t.dims = {{"rows", rows}, {"cols", cols}};
  t.family = family;
  t.params = std::move(params);
  t.instance = instance;
  t.status = "ok";
  t.median_us = us;
  t.ci_lo_us = 0.99 * us;
  t.ci_hi_us = 1.01 * us;
  t.run = 1;
  return t;
}

result_file h200_results() {
  result_file f;
  f.path = "results/softmax/nvidia-h200.json";
  f.op = "softmax";
  f.gpu = "NVIDIA H200";
  f.cc = 90;
  f.runs.push_back({1, "2026-11-30T13:00:00Z", "configs/softmax.yaml", "abc", "rev", {}});
  const std::map<std::string, long long> fast = {{"vec", 4}, {"block_threads", 256}, {"chunks", 4}};
  const std::map<std::string, long long> slow = {{"vec", 4}, {"block_threads", 1024}, {"chunks", 1}};
  // The default rule's configuration for 4096 f32 columns: the baseline.
  const std::map<std::string, long long> rule = {{"vec", 4}, {"block_threads", 256}, {"chunks", 4}, {"persistent", 0}};
  f.trials.push_back(
      trial("f32", 4096, 4096, "block_row", rule, "softmax_f32_block_row_vec4_threads256_chunks4_persistent0", 45));
  f.trials.push_back(trial("f32", 4096, 4096, "block_row", slow, "softmax_f32_block_row_vec4_threads1024_chunks1", 50));
  f.trials.push_back(trial("f32", 4096, 4096, "block_row", fast, "softmax_f32_block_row_vec4_threads256_chunks4", 40));
  auto wrong = trial("f32", 4096, 4096, "block_row", {{"vec", 2}, {"block_threads", 512}, {"chunks", 4}},
                     "softmax_f32_block_row_vec2_threads512_chunks4", 10);
  wrong.status = "wrong_answer";  // never wins, however fast
  f.trials.push_back(wrong);
  for (const char* target : {"sm_80", "sm_90a", "sm_100a"}) {
    f.builds.push_back({"softmax_f32_block_row_vec4_threads1024_chunks1", target, "ok", "", 32, 0, 0, 0});
    // The winner does not fit sm_80 in this fixture: sm_80's model must not ship it.
    f.builds.push_back({"softmax_f32_block_row_vec4_threads256_chunks4", target,
                        std::string(target) == "sm_80" ? "over_limit" : "ok", "", 40, 0, 0, 0});
    f.builds.push_back({"softmax_f32_block_row_vec2_threads512_chunks4", target, "ok", "", 40, 0, 0, 0});
  }
  return f;
}

std::size_t default_rule_configs() {
  std::size_t n = 0;
  for (const auto t : {cuop::dtype::f32, cuop::dtype::f16, cuop::dtype::bf16})
    n += cuop::kernels::softmax::default_configs(t).size();
  return n;
}

}  // namespace

TEST(emit, same_results_give_byte_identical_files) {
  const auto a = emit_softmax({h200_results()}, {"80", "90a", "100a"});
  const auto b = emit_softmax({h200_results()}, {"100a", "90a-real", "sm_80"});
  EXPECT_EQ(a.header, b.header);
  EXPECT_EQ(a.instantiation, b.instantiation);
}

TEST(emit, tuned_target_models_the_verified_winners) {
  const auto out = emit_softmax({h200_results()}, {"90a"});
  // One model (f32), one candidate: the winner, which beats the default rule's 45 us clearly.
  EXPECT_NE(out.header.find("softmax_model_count = 1;"), std::string::npos) << out.header;
  EXPECT_NE(out.header.find("{{90, \"NVIDIA H200\", detail::entry_source::tuned, 0, 1, 0, 1, 0, "), std::string::npos)
      << out.header;
  EXPECT_NE(out.header.find("detail::entry_source::tuned, 40, \"softmax_f32_block_row_vec4_threads256_chunks4\""),
            std::string::npos)
      << out.header;
  EXPECT_NE(out.header.find("// softmax_f32_block_row_vec4_threads256_chunks4"), std::string::npos);  // its column
  EXPECT_EQ(out.header.find("softmax_f32_block_row_vec2_threads512_chunks4"), std::string::npos);     // wrong answer
  EXPECT_EQ(out.header.find("\"softmax_f32_block_row_vec4_threads1024_chunks1\""),
            std::string::npos);  // slower than the rule
}

// A one-block-per-row winner ships as such: its table entry carries persistent 0 (dispatch plans
// the grid from that field) and the unit instantiates the `_p0` template.
TEST(emit, a_persistent_0_winner_keeps_its_grid_choice_in_the_table) {
  auto f = h200_results();
  f.trials.push_back(trial("bf16", 8192, 8192, "block_row",
                           {{"vec", 8}, {"block_threads", 256}, {"chunks", 4}, {"persistent", 0}},
                           "softmax_bf16_block_row_vec8_threads256_chunks4_persistent0", 70));  // the default rule's
  f.trials.push_back(trial("bf16", 8192, 8192, "block_row",
                           {{"vec", 8}, {"block_threads", 512}, {"chunks", 2}, {"persistent", 0}},
                           "softmax_bf16_block_row_vec8_threads512_chunks2_persistent0", 60));
  f.builds.push_back({"softmax_bf16_block_row_vec8_threads512_chunks2_persistent0", "sm_90a", "ok", "", 40, 0, 0, 0});
  const auto out = emit_softmax({f}, {"90a"});
  EXPECT_NE(out.header.find("{kernels::softmax::family::block_row, dtype::bf16, 8, 0, 0, 512, 2, 0, 0, 0}"),
            std::string::npos)
      << out.header;
  EXPECT_NE(kernel_text(out).find("cuop::kernels::softmax::block_row<__nv_bfloat16, 8, 512, 2, 0>::run(a);"),
            std::string::npos)
      << kernel_text(out);
}

// A winner that holds part of its row in shared memory ships with its smem_chunks (dispatch
// plans the dynamic shared memory from it) and instantiates the 6-argument template.
TEST(emit, a_shared_memory_winner_keeps_its_smem_chunks_in_the_table) {
  auto f = h200_results();
  f.trials.push_back(trial("f32", 512, 65536, "split_row",
                           {{"vec", 4}, {"block_threads", 256}, {"chunks", 8}, {"persistent", 0}},
                           "softmax_f32_split_row_vec4_threads256_chunks8_persistent0", 210));  // the default rule's
  f.trials.push_back(trial("f32", 512, 65536, "block_row",
                           {{"vec", 4}, {"block_threads", 1024}, {"chunks", 6}, {"persistent", 0}, {"smem_chunks", 10}},
                           "softmax_f32_block_row_vec4_threads1024_chunks6_persistent0_smemchunks10", 137));
  f.builds.push_back(
      {"softmax_f32_block_row_vec4_threads1024_chunks6_persistent0_smemchunks10", "sm_90a", "ok", "", 55, 0, 0, 0});
  const auto out = emit_softmax({f}, {"90a"});
  EXPECT_NE(out.header.find("{kernels::softmax::family::block_row, dtype::f32, 4, 0, 0, 1024, 6, 0, 0, 10}"),
            std::string::npos)
      << out.header;
  EXPECT_NE(kernel_text(out).find("cuop::kernels::softmax::block_row<float, 4, 1024, 6, 0, 10>::run(a);"),
            std::string::npos)
      << kernel_text(out);
}

TEST(emit, untimed_targets_take_the_model_restricted_to_what_is_legal_there) {
  const auto out = emit_softmax({h200_results()}, {"80", "100a"});
  // sm_100a: the H200 winner is legal there; its model and entry say they were not measured there.
  EXPECT_NE(out.header.find("{{100, \"NVIDIA H200\", detail::entry_source::nearest_arch, "), std::string::npos)
      << out.header;
  EXPECT_NE(out.header.find("nearest_arch, 40, \"softmax_f32_block_row_vec4_threads256_chunks4\""), std::string::npos);
  // sm_80: the winner is over the limit there, and nothing else beats the rule: a model without
  // candidates (the default rule everywhere).
  EXPECT_NE(out.header.find("{{80, \"NVIDIA H200\", detail::entry_source::nearest_arch, 0, 1, 0, 0, 0, "),
            std::string::npos)
      << out.header;
  EXPECT_EQ(out.header.find("{80, \"NVIDIA H200\", dtype::f32"), std::string::npos) << out.header;
}

TEST(emit, no_results_gives_the_default_rule_only) {
  const auto out = emit_softmax({}, {"90a"});
  EXPECT_EQ(out.header.find("entry_source::tuned"), std::string::npos);
  EXPECT_NE(out.header.find("softmax_model_count = 0;"), std::string::npos);
  EXPECT_NE(out.header.find("entry_source::fallback"), std::string::npos);
  EXPECT_NE(out.instantiation.find("softmax_kernels[" + std::to_string(default_rule_configs()) + "]"),
            std::string::npos);
}

TEST(emit, instantiation_defines_each_kernel_once) {
  const auto out = emit_softmax({h200_results()}, {"80", "90a", "100a"});
  const std::string def = "void __launch_bounds__(256) softmax_f32_block_row_vec4_threads256_chunks4(";
  const auto first = out.instantiation.find(def);
  ASSERT_NE(first, std::string::npos) << out.instantiation;
  EXPECT_EQ(out.instantiation.find(def, first + 1), std::string::npos);
}

TEST(emit, unknown_target_is_an_error) { EXPECT_THROW(emit_softmax({}, {"sm_91"}), cuop::error); }

// An architecture without a table of its own (8.7) takes the sm_86 table: what is legal there
// ships, under its own compute capability, and the kernels its entries name are compiled for it.
TEST(emit, an_architecture_served_by_another_table_carries_its_own_compute_capability) {
  const std::string winner = "softmax_f32_block_row_vec4_threads256_chunks4";
  const std::string guard_90_only = "#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900\n";
  const auto without = emit_softmax({h200_results()}, {"87", "90a"});
  EXPECT_NE(without.header.find("//   CUDA architecture 87 (compute capability 8.7): the sm_86 table\n"),
            std::string::npos)
      << without.header;
  EXPECT_NE(without.header.find("constexpr bool softmax_arch_specific(int arch) noexcept { return arch == 90; }"),
            std::string::npos);
  EXPECT_NE(without.header.find("{87, \"\", dtype::f32"), std::string::npos);  // the default rule, under 87
  // Not built for sm_86: the winner is in the 9.0 table alone, its body compiled for 9.0 alone.
  const auto text = kernel_text(without);
  const auto at = text.find("void __launch_bounds__(256) " + winner + "(");
  ASSERT_NE(at, std::string::npos) << text;
  EXPECT_NE(text.find(guard_90_only, at), std::string::npos) << text.substr(at, 400);

  auto f = h200_results();
  f.builds.push_back({winner, "sm_86", "ok", "", 40, 0, 0, 0});
  const auto with = emit_softmax({f}, {"87", "90a"});
  EXPECT_NE(with.header.find("{87, \"NVIDIA H200\", dtype::f32, 4096, 4096"), std::string::npos) << with.header;
  EXPECT_EQ(kernel_text(with).find(guard_90_only), std::string::npos);  // both tables: compiled for both
}

TEST(emit, portable_builds_have_no_arch_specific_tables) {
  const auto out = emit_softmax({}, {"75", "86", "120"});
  EXPECT_NE(out.header.find("constexpr bool softmax_arch_specific(int) noexcept { return false; }"), std::string::npos)
      << out.header;
  EXPECT_THROW(emit_softmax({}, {"90", "90a"}), cuop::error);
}

TEST(results_file, write_if_changed_reports_changes_only) {
  const auto dir = std::filesystem::temp_directory_path() / "cuop-emit-test";
  std::filesystem::remove_all(dir);
  const auto path = (dir / "a" / "f.txt").string();
  EXPECT_TRUE(write_if_changed(path, "one"));
  EXPECT_FALSE(write_if_changed(path, "one"));
  EXPECT_TRUE(write_if_changed(path, "two"));
  std::ifstream in(path);
  std::string s;
  in >> s;
  EXPECT_EQ(s, "two");
  std::filesystem::remove_all(dir);
}

TEST(results_file, slug_of_gpu_names) {
  EXPECT_EQ(slug("NVIDIA H200"), "nvidia-h200");
  EXPECT_EQ(slug("NVIDIA A100-SXM4-80GB"), "nvidia-a100-sxm4-80gb");
  EXPECT_EQ(slug(""), "validation");
}

TEST(emit, header_and_unit_carry_the_same_emit_id) {
  const auto out = emit_softmax({h200_results()}, {"90a"});
  const std::string key = "softmax_emit_id = 0x";
  const auto at = out.header.find(key);
  ASSERT_NE(at, std::string::npos);
  const std::string id = out.header.substr(at + key.size(), 16);
  EXPECT_NE(out.instantiation.find("softmax_emit_id == 0x" + id + "ull"), std::string::npos) << out.instantiation;
  // Different data, different id.
  EXPECT_EQ(emit_softmax({}, {"90a"}).header.find(id), std::string::npos);
}
