#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tuner/core/error.hpp"
#include "tuner/emit/results_file.hpp"
#include "tuner/emit/softmax_emit.hpp"

using namespace cuop::emit;

namespace {

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
  t.run = 1;
  return t;
}

result_file h200_results() {
  result_file f;
  f.path = "results/softmax/nvidia-h200.json";
  f.op = "softmax";
  f.gpu = "NVIDIA H200";
  f.cc = 90;
  f.runs.push_back({1, "2026-11-30T13:00:00Z", "configs/softmax.yaml", "abc", "rev"});
  const std::map<std::string, long long> fast = {{"vec", 4}, {"block_threads", 256}, {"chunks", 4}};
  const std::map<std::string, long long> slow = {{"vec", 4}, {"block_threads", 1024}, {"chunks", 1}};
  f.trials.push_back(trial("f32", 4096, 4096, "block_row", slow, "softmax_f32_block_row_v4_b1024_c1", 50));
  f.trials.push_back(trial("f32", 4096, 4096, "block_row", fast, "softmax_f32_block_row_v4_b256_c4", 40));
  auto wrong = trial("f32", 4096, 4096, "block_row", {{"vec", 2}, {"block_threads", 512}, {"chunks", 4}},
                     "softmax_f32_block_row_v2_b512_c4", 10);
  wrong.status = "wrong_answer";  // never wins, however fast
  f.trials.push_back(wrong);
  for (const char* target : {"sm_80", "sm_90a", "sm_100a"}) {
    f.builds.push_back({"softmax_f32_block_row_v4_b1024_c1", target, "ok", "", 32, 0, 0, 0});
    // The winner does not fit sm_80 in this fixture: sm_80 must fall to the next legal choice.
    f.builds.push_back({"softmax_f32_block_row_v4_b256_c4", target,
                        std::string(target) == "sm_80" ? "over_limit" : "ok", "", 40, 0, 0, 0});
    f.builds.push_back({"softmax_f32_block_row_v2_b512_c4", target, "ok", "", 40, 0, 0, 0});
  }
  return f;
}

}  // namespace

TEST(emit, same_results_give_byte_identical_files) {
  const auto a = emit_softmax({h200_results()}, {"80", "90a", "100a"});
  const auto b = emit_softmax({h200_results()}, {"100a", "90a-real", "sm_80"});
  EXPECT_EQ(a.header, b.header);
  EXPECT_EQ(a.instantiation, b.instantiation);
}

TEST(emit, tuned_target_takes_the_fastest_verified_choice) {
  const auto out = emit_softmax({h200_results()}, {"90a"});
  EXPECT_NE(out.header.find("{90, \"NVIDIA H200\", dtype::f32, 4096, 4096"), std::string::npos) << out.header;
  EXPECT_NE(out.header.find("detail::entry_source::tuned, 40, \"softmax_f32_block_row_v4_b256_c4\""),
            std::string::npos)
      << out.header;
  EXPECT_EQ(out.header.find("softmax_f32_block_row_v2_b512_c4"), std::string::npos);
}

// A one-block-per-row winner ships as such: its table entry carries persistent 0 (dispatch plans
// the grid from that field) and the unit instantiates the `_p0` template.
TEST(emit, a_persistent_0_winner_keeps_its_grid_choice_in_the_table) {
  auto f = h200_results();
  auto p0 = trial("bf16", 8192, 8192, "block_row", {{"vec", 8}, {"block_threads", 256}, {"chunks", 4}, {"persistent", 0}},
                  "softmax_bf16_block_row_v8_b256_c4_p0", 68);
  f.trials.push_back(p0);
  f.builds.push_back({"softmax_bf16_block_row_v8_b256_c4_p0", "sm_90a", "ok", "", 40, 0, 0, 0});
  const auto out = emit_softmax({f}, {"90a"});
  EXPECT_NE(out.header.find("{kernels::softmax::family::block_row, dtype::bf16, 8, 0, 0, 256, 4, 0, 0, 0}"),
            std::string::npos)
      << out.header;
  EXPECT_NE(out.header.find("{kernels::softmax::family::block_row, dtype::f32, 4, 0, 0, 256, 4, 0, 1, 0}"),
            std::string::npos)
      << out.header;
  EXPECT_NE(out.instantiation.find("cuop::kernels::softmax::block_row<__nv_bfloat16, 8, 256, 4, 0>::run(a);"),
            std::string::npos)
      << out.instantiation;
}

// A winner that holds part of its row in shared memory ships with its smem_chunks (dispatch
// plans the dynamic shared memory from it) and instantiates the 6-argument template.
TEST(emit, a_shared_memory_winner_keeps_its_smem_chunks_in_the_table) {
  auto f = h200_results();
  f.trials.push_back(trial("f32", 1024, 65536, "block_row",
                           {{"vec", 4}, {"block_threads", 1024}, {"chunks", 6}, {"persistent", 0}, {"smem_chunks", 10}},
                           "softmax_f32_block_row_v4_b1024_c6_p0_s10", 137));
  f.builds.push_back({"softmax_f32_block_row_v4_b1024_c6_p0_s10", "sm_90a", "ok", "", 55, 0, 0, 0});
  const auto out = emit_softmax({f}, {"90a"});
  EXPECT_NE(out.header.find("{kernels::softmax::family::block_row, dtype::f32, 4, 0, 0, 1024, 6, 0, 0, 10}"),
            std::string::npos)
      << out.header;
  EXPECT_NE(out.instantiation.find("cuop::kernels::softmax::block_row<float, 4, 1024, 6, 0, 10>::run(a);"),
            std::string::npos)
      << out.instantiation;
}

TEST(emit, untimed_target_falls_back_to_the_nearest_legal_choice) {
  const auto out = emit_softmax({h200_results()}, {"80", "100a"});
  // sm_100a: the H200 winner is legal there.
  EXPECT_NE(out.header.find("{100, \"NVIDIA H200\", dtype::f32, 4096, 4096"), std::string::npos);
  EXPECT_NE(out.header.find("nearest_arch, 40, \"softmax_f32_block_row_v4_b256_c4\""), std::string::npos);
  // sm_80: the winner is over the limit there, so the next legal one is taken.
  EXPECT_NE(out.header.find("nearest_arch, 50, \"softmax_f32_block_row_v4_b1024_c1\""), std::string::npos)
      << out.header;
}

TEST(emit, no_results_gives_defaults_only) {
  const auto out = emit_softmax({}, {"90a"});
  EXPECT_EQ(out.header.find("entry_source::tuned"), std::string::npos);
  EXPECT_NE(out.header.find("entry_source::fallback"), std::string::npos);
  EXPECT_NE(out.instantiation.find("softmax_kernels[15]"), std::string::npos);  // 5 defaults x 3 dtypes
}

TEST(emit, instantiation_defines_each_kernel_once) {
  const auto out = emit_softmax({h200_results()}, {"80", "90a", "100a"});
  const std::string def = "void __launch_bounds__(256) softmax_f32_block_row_v4_b256_c4(";
  const auto first = out.instantiation.find(def);
  ASSERT_NE(first, std::string::npos) << out.instantiation;
  EXPECT_EQ(out.instantiation.find(def, first + 1), std::string::npos);
}

TEST(emit, unknown_target_is_an_error) {
  EXPECT_THROW(emit_softmax({}, {"sm_91"}), cuop::error);
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
