// Keys of the spelling before issue 38: every old instance name of our kernel families has the
// current name of the same configuration, library back ends keep theirs, an old key that names no
// configuration is refused with the reason; results files and baselines written before the rename
// (the committed ones included) load with the current keys.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>

#include "cuop/kernels/conv/family.hpp"
#include "cuop/kernels/gemm/family.hpp"
#include "cuop/kernels/softmax/family.hpp"
#include "test_support.hpp"
#include "tuner/gate/result_set.hpp"
#include "tuner/results/results_file.hpp"
#include "tuner/store/key_aliases.hpp"

namespace fs = std::filesystem;
using cuop::store::renamed_instance;
using cuop::store::renamed_param;

namespace {

// The old spelling of any of our families' keys.
const std::regex old_key(R"(.*(_stage\d+|_mma_m\d+_|_skinny_n\d+_|_(warp|block|split|cluster)_row_v\d+_).*)");

}  // namespace

TEST(key_aliases, old_instance_names_become_the_current_names_of_their_configurations) {
  namespace kc = cuop::kernels::conv;
  kc::depthwise_config dw;
  dw.t = cuop::dtype::f16;
  dw.lay = kc::layout::nchw;
  dw.r = dw.s = 7;
  dw.vec = 4, dw.cvecs = 1, dw.block_c = 32, dw.tile_h = dw.tile_w = 14, dw.ph = 2, dw.pw = 7;
  dw.algo = kc::depthwise_algo::smem_f32;
  EXPECT_EQ(renamed_instance("conv_depthwise_f16_nchw_r7x7_st1_v4_cv1_c32_t14x14_ph2_pw7_stage2"),
            kc::instance_name(dw));
  EXPECT_EQ(kc::instance_name(dw),
            "conv_depthwise_f16_nchw_smem_f32_filter7x7_stride1_vec4_cvecs1_blockc32_tile14x14_ph2_pw7");
  EXPECT_EQ(renamed_instance("conv_depthwise_bf16_nhwc_r7x7_st1_v8_cv4_c32_t28x32_ph7_pw1_stage5"),
            "conv_depthwise_bf16_nhwc_mma_seg_filter7x7_stride1_vec8_cvecs4_blockc32_tile28x32_ph7_pw1");

  namespace kg = cuop::kernels::gemm;
  kg::gemm_config mma;
  mma.in = mma.out = cuop::dtype::bf16;
  mma.fam = kg::family::mma;
  for (const auto& [name, v] : {std::pair{"block_m", 128},
                                {"block_n", 128},
                                {"block_k", 32},
                                {"warp_m", 64},
                                {"warp_n", 64},
                                {"stages", 3},
                                {"group_m", 8},
                                {"split_k", 1}})
    ASSERT_TRUE(kg::set_param(mma, name, v)) << name;
  EXPECT_EQ(renamed_instance("gemm_bf16_bf16_col_mma_m128_n128_k32_wm64_wn64_s3_g8_sk1"), kg::instance_name(mma));
  EXPECT_EQ(renamed_instance("gemm_f16_f32_row_mma_m64_n256_k64_wm32_wn64_s4_g1_sk2_pk1"),
            "gemm_f16_f32_row_mma_block64x256x64_warp32x64_stages4_groupm1_splitk2_pack1");
  EXPECT_EQ(renamed_instance("gemm_bf16_bf16_col_skinny_n16_t256_m1_kc16_sk4"),
            "gemm_bf16_bf16_col_skinny_blockn16_threads256_mtile1_kchunk16_splitk4");

  EXPECT_EQ(renamed_instance("softmax_bf16_warp_row_v8_t32_r16_c8"),
            "softmax_bf16_warp_row_vec8_rowthreads32_blockrows16_chunks8");
  EXPECT_EQ(renamed_instance("softmax_bf16_cluster_row_v8_b128_c16_k2"),
            "softmax_bf16_cluster_row_vec8_threads128_chunks16_cluster2");
  EXPECT_EQ(renamed_instance("softmax_f32_block_row_v4_b1024_c6_p0_s10"),
            "softmax_f32_block_row_vec4_threads1024_chunks6_persistent0_smemchunks10");
  namespace ks = cuop::kernels::softmax;
  ks::softmax_config sm;
  sm.type = cuop::dtype::f32;
  sm.fam = ks::family::split_row;
  for (const auto& [name, v] : {std::pair{"vec", 2}, {"block_threads", 1024}, {"chunks", 1}})
    ASSERT_TRUE(ks::set_param(sm, name, v)) << name;
  EXPECT_EQ(renamed_instance("softmax_f32_split_row_v2_b1024_c1"), ks::instance_name(sm));
}

TEST(key_aliases, current_library_and_custom_names_are_not_renamed) {
  for (const char* key : {"conv_depthwise_f16_nchw_smem_f32_filter7x7_stride1_vec4_cvecs1_blockc32_tile14x14_ph2_pw7",
                          "gemm_bf16_bf16_col_mma_block128x128x32_warp64x64_stages3_groupm8_splitk1",
                          "softmax_bf16_warp_row_vec8_rowthreads32_blockrows16_chunks8", "gemm_bf16_cublaslt_heuristic",
                          "conv2d_f16_cudnn_dnn_e1_k2v0_k3v0", "conv2d_f32_fft_t0_p0_kb2",
                          "softmax_f32_custom_my_kernel_0123abcd_block_threads256", "k_a",
                          "softmax_f32_block_row_v4_b1024_c6_p0_s10_more"})
    EXPECT_EQ(renamed_instance(key), std::nullopt) << key;
}

TEST(key_aliases, an_old_key_that_names_no_configuration_is_refused_with_the_reason) {
  EXPECT_EQ(
      cuop::test::error_of(
          [] { renamed_instance("conv_depthwise_f16_nhwc_r7x7_st1_v8_cv4_c32_t28x32_ph7_pw1_stage9"); }),
      "instance \"conv_depthwise_f16_nhwc_r7x7_st1_v8_cv4_c32_t28x32_ph7_pw1_stage9\": stage 9 of an old depthwise "
      "key is no algorithm (stages 0 to 5 are direct, smem, smem_f32, mma, mma_tma, mma_seg)");
}

TEST(key_aliases, old_conv_problem_keys_become_the_current_keys_of_their_shapes) {
  EXPECT_EQ(cuop::store::renamed_problem("conv2d_f16_nchw_32x28x28x512_k512_r7x7_s1_p3_d1_g512"),
            "conv2d_f16_nchw_32x28x28x512_k512_filter7x7_stride1_pad3_dil1_groups512");
  EXPECT_EQ(cuop::store::renamed_problem("conv2d_f32_nchw_8x128x128x64_k64_r7x7_s2_p3_d1_g1_tf32"),
            "conv2d_f32_nchw_8x128x128x64_k64_filter7x7_stride2_pad3_dil1_groups1_tf32");
  for (const char* key : {"conv2d_f16_nchw_32x28x28x512_k512_filter7x7_stride1_pad3_dil1_groups512",
                          "softmax_f32_8x1024", "gemm_bf16_512x4096x4096"})
    EXPECT_EQ(cuop::store::renamed_problem(key), std::nullopt) << key;
}

TEST(key_aliases, renamed_parameters) {
  EXPECT_EQ(renamed_param("conv2d", "depthwise", "stage"), "algo");
  EXPECT_EQ(renamed_param("conv2d", "depthwise", "algo"), std::nullopt);
  EXPECT_EQ(renamed_param("gemm", "mma", "stages"), std::nullopt);
  EXPECT_EQ(renamed_param("conv2d", "cudnn", "stage"), std::nullopt);
}

// Results files of the old spelling (the compare fixtures, written before the rename as the
// committed H200 files were) load, schema and instance checks included, every trial and build
// with its current key, nothing dropped.
TEST(key_aliases, old_results_files_load_with_the_current_keys) {
  for (const char* op : {"gemm", "softmax"}) {
    const std::string path = std::string(CUOP_TEST_DATA_DIR) + "/compare/baseline/" + op + "/nvidia-h200.json";
    std::ifstream in(path);
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    ASSERT_TRUE(
        std::regex_search(text, std::regex(R"("instance":"[a-z0-9_]*_(mma_m|(warp|block|split|cluster)_row_v)\d)")))
        << path << " is no longer in the old spelling";
    const auto f = cuop::results::parse_results(text, path);
    std::size_t listed = 0;
    for (auto at = text.find("{\"problem\":"); at != std::string::npos; at = text.find("{\"problem\":", at + 1))
      ++listed;
    EXPECT_EQ(f.trials.size(), listed) << op;
    ASSERT_FALSE(f.trials.empty()) << op;
    for (const auto& t : f.trials) EXPECT_FALSE(std::regex_match(t.instance, old_key)) << t.instance;
    for (const auto& b : f.builds) EXPECT_FALSE(std::regex_match(b.instance, old_key)) << b.instance;
  }
}

namespace {

// One old trial: a depthwise mma_seg configuration as the conv2d results file of 2026-12-04 holds it.
std::string old_results(const std::string& instance, const std::string& params) {
  return R"({"format": "cuop-tune results 1", "op": "conv2d", "gpu": "NVIDIA H200", "cc": 90, "sm_count": 132,
"driver": "13.0", "cuda_runtime": "13.0", "source_hash": "2970e4828b282930",
"runs": [{"id":3,"started_at":"2026-12-04T14:53:30Z","spec_file":"configs/conv.yaml","env_key":"52f65c1f40f55f49","git_rev":"f31fe39","family_hashes":{"depthwise":"df547ccfeadd172c"}}],
"trials": [
{"problem":"conv2d_f16_nhwc_16x64x64x384_k384_r7x7_s1_p3_d1_g384","dtype":"f16","dims":{"c":384,"dilation":1,"groups":384,"h":64,"k":384,"layout":0,"n":16,"pad":3,"r":7,"s":7,"stride":1,"tf32":0,"w":64},"instance":")" +
         instance + R"(","family":"depthwise","params":)" + params +
         R"(,"status":"ok","median_us":38.24,"min_us":36.352,"q1_us":37.688,"q3_us":38.92,"ci_us":[38.112,38.336],"samples":384,"gbps":2633.4,"run":3}
],
"builds": [{"instance":")" +
         instance + R"(","target":"sm_90a","status":"ok","registers":200,"smem":0,"spill_stores":0,"spill_loads":0}]}
)";
}

const std::string old_instance = "conv_depthwise_f16_nhwc_r7x7_st1_v8_cv4_c32_t16x32_ph4_pw1_stage5";
const std::string new_instance =
    "conv_depthwise_f16_nhwc_mma_seg_filter7x7_stride1_vec8_cvecs4_blockc32_tile16x32_ph4_pw1";
const std::string old_params = R"({"block_c":32,"cvecs":4,"ph":4,"pw":1,"stage":5,"tile_h":16,"tile_w":32,"vec":8})";

}  // namespace

TEST(key_aliases, an_old_results_file_loads_with_the_current_keys) {
  const auto f = cuop::results::parse_results(old_results(old_instance, old_params), "old.json");
  ASSERT_EQ(f.trials.size(), 1u);
  EXPECT_EQ(f.trials[0].problem, "conv2d_f16_nhwc_16x64x64x384_k384_filter7x7_stride1_pad3_dil1_groups384");
  EXPECT_EQ(f.trials[0].instance, new_instance);
  EXPECT_EQ(f.trials[0].params.at("algo"), 5);
  EXPECT_FALSE(f.trials[0].params.contains("stage"));
  ASSERT_EQ(f.builds.size(), 1u);
  EXPECT_EQ(f.builds[0].instance, new_instance);
}

TEST(key_aliases, an_old_baseline_compares_under_the_current_keys) {
  const fs::path dir = fs::temp_directory_path() / ("cuop-key-aliases-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "conv2d");
  std::ofstream(dir / "conv2d" / "nvidia-h200.json") << old_results(old_instance, old_params);
  const auto set = cuop::gate::load_result_set((dir / "conv2d" / "nvidia-h200.json").string(), {});
  fs::remove_all(dir);
  ASSERT_EQ(set.trials.size(), 1u);
  EXPECT_EQ(set.trials[0].instance, new_instance);
}

TEST(key_aliases, old_names_that_name_nothing_are_refused_with_the_reason) {
  // An old key with no algorithm behind its stage.
  auto bad = old_instance;
  bad.back() = '9';
  EXPECT_EQ(cuop::test::error_of([&] { cuop::results::parse_results(old_results(bad, old_params), "old.json"); }),
            "old.json: trials[0]: instance \"" + bad +
                "\": stage 9 of an old depthwise key is no algorithm (stages 0 to 5 are direct, smem, smem_f32, mma, "
                "mma_tma, mma_seg)");
  // A parameter under its old and its current name.
  const std::string both =
      R"({"algo":5,"block_c":32,"cvecs":4,"ph":4,"pw":1,"stage":5,"tile_h":16,"tile_w":32,"vec":8})";
  EXPECT_EQ(cuop::test::error_of([&] { cuop::results::parse_results(old_results(old_instance, both), "old.json"); }),
            "old.json: trials[0]: parameter \"algo\" is there under its old name \"stage\" too");
  // An old parameter name misspelt: not renamed, so the schema finds the family's parameter missing.
  const std::string typo = R"({"block_c":32,"cvecs":4,"ph":4,"pw":1,"stag":5,"tile_h":16,"tile_w":32,"vec":8})";
  const auto e =
      cuop::test::error_of([&] { cuop::results::parse_results(old_results(new_instance, typo), "old.json"); });
  EXPECT_NE(e.find("trials[0].params: missing parameter \"algo\" of family \"depthwise\""), std::string::npos) << e;
}
