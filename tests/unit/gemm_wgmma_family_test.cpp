// Host-side description of GEMM family wgmma: its parameters and names, which configurations are
// well formed, and the persistent launch plan (one block an SM at most, no workspace).
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "cuop/kernels/gemm/family.hpp"
#include "cuop/kernels/gemm/wgmma_geometry.hpp"

namespace {

namespace kg = cuop::kernels::gemm;
using cuop::dtype;

kg::gemm_config wgmma_128x256() {
  kg::gemm_config c;
  c.fam = kg::family::wgmma;
  c.in = dtype::bf16;
  c.out = dtype::bf16;
  c.b = kg::b_layout::col;
  c.block_m = 128;
  c.block_n = 256;
  c.stages = 4;
  c.consumers = 2;
  c.group_m = 8;
  return c;
}

kg::device_limits h200() { return {132, 1024, 232448}; }

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(gemm_wgmma_family, names_and_parameters) {
  kg::family f = kg::family::mma;
  ASSERT_TRUE(kg::parse_family("wgmma", f));
  EXPECT_EQ(f, kg::family::wgmma);
  EXPECT_EQ(kg::param_names(kg::family::wgmma),
            (std::vector<std::string_view>{"block_m", "block_n", "stages", "consumers", "group_m"}));
  const kg::gemm_config c = wgmma_128x256();
  EXPECT_EQ(kg::instance_name(c), "gemm_bf16_bf16_col_wgmma_block128x256_stages4_consumers2_groupm8");
  EXPECT_EQ(kg::template_name(c), "cuop::kernels::gemm::wgmma<__nv_bfloat16, __nv_bfloat16, true, 128, 256, 4, 2, 8>");
  EXPECT_EQ(kg::header_of(kg::family::wgmma), "cuop/kernels/gemm/wgmma.cuh");
  EXPECT_EQ(kg::threads_per_block(c), 384);
  for (std::string_view p : kg::param_names(c.fam)) {
    kg::gemm_config d = c;
    ASSERT_TRUE(kg::set_param(d, p, kg::get_param(d, p) + 1)) << p;
    EXPECT_NE(kg::instance_name(d), kg::instance_name(c)) << p;
    EXPECT_NE(kg::template_name(d), kg::template_name(c)) << p;
  }
  kg::gemm_config d = c;
  EXPECT_FALSE(kg::set_param(d, "warp_m", 64));  // mma's, not wgmma's
}

TEST(gemm_wgmma_family, check_config) {
  EXPECT_EQ(kg::check_config(wgmma_128x256()), "");
  const auto why = [](auto edit) {
    kg::gemm_config c = wgmma_128x256();
    edit(c);
    return kg::check_config(c);
  };
  EXPECT_TRUE(contains(why([](kg::gemm_config& c) { c.b = kg::b_layout::row; }), "column-major B"));
  EXPECT_TRUE(contains(why([](kg::gemm_config& c) { c.consumers = 3; }), "consumers 3 is not 1 or 2"));
  EXPECT_TRUE(contains(why([](kg::gemm_config& c) { c.block_m = 96; }), "block_m 96 is not 64 or 128 rows"));
  EXPECT_TRUE(contains(why([](kg::gemm_config& c) { c.block_m = 512; }), "block_m 512"));
  EXPECT_TRUE(contains(why([](kg::gemm_config& c) { c.block_n = 192; }), "block_n 192 is not 64, 128 or 256"));
  // Two m64 atoms of 256 columns: 256 accumulators a thread.
  EXPECT_TRUE(contains(why([](kg::gemm_config& c) { c.block_m = 256; }), "256 accumulators a thread > 128"));
  EXPECT_TRUE(contains(why([](kg::gemm_config& c) { c.stages = 1; }), "stages 1 outside 2..16"));
  EXPECT_TRUE(contains(why([](kg::gemm_config& c) { c.group_m = 0; }), "group_m 0 outside"));
  EXPECT_TRUE(contains(why([](kg::gemm_config& c) { c.split_k = 2; }), "does not split K"));
  EXPECT_TRUE(contains(why([](kg::gemm_config& c) { c.pack = 1; }), "does not pack"));
  // 5 stages of (128 + 256) x 64 x 2 bytes = 245760 > 227 KiB.
  EXPECT_TRUE(contains(why([](kg::gemm_config& c) { c.stages = 5; }), "shared memory of 247808 bytes"));
  EXPECT_TRUE(contains(why([](kg::gemm_config& c) { c.out = dtype::f16; }), "neither f32 nor the input dtype"));
}

TEST(gemm_wgmma_family, plan_is_persistent) {
  const kg::gemm_config c = wgmma_128x256();
  kg::launch_plan p;
  // 32 x 16 = 512 tiles: one block per SM.
  ASSERT_EQ(kg::plan_launch(c, 4096, 4096, 4096, h200(), p), "");
  EXPECT_EQ(p.grid_x, 132u);
  EXPECT_EQ(p.grid_y * p.grid_z, 1u);
  EXPECT_EQ(p.block_x, 384u);
  EXPECT_EQ(p.smem_bytes, static_cast<std::size_t>(kg::wgmma_geometry::smem_bytes(128, 256, 4)));
  EXPECT_EQ(p.smem_bytes, 4u * 49152u + 2048u);
  EXPECT_EQ(p.workspace_bytes, 0u);
  // Fewer tiles than SMs: one block a tile.
  ASSERT_EQ(kg::plan_launch(c, 129, 300, 64, h200(), p), "");
  EXPECT_EQ(p.grid_x, 4u);
  // No device known (validation: no SM count, no shared-memory limit): one block a tile.
  kg::device_limits unknown;
  unknown.max_smem_per_block = 0;
  ASSERT_EQ(kg::plan_launch(c, 4096, 4096, 4096, unknown, p), "");
  EXPECT_EQ(p.grid_x, 512u);
}

TEST(gemm_wgmma_family, clusters_share_b_along_m) {
  kg::gemm_config c = wgmma_128x256();
  EXPECT_EQ(kg::optional_param_names(kg::family::wgmma), (std::vector<std::string_view>{"cluster"}));
  ASSERT_TRUE(kg::set_param(c, "cluster", 2));
  EXPECT_EQ(kg::check_config(c), "");
  EXPECT_EQ(kg::instance_name(c), "gemm_bf16_bf16_col_wgmma_block128x256_stages4_consumers2_groupm8_cluster2");
  EXPECT_EQ(kg::template_name(c),
            "cuop::kernels::gemm::wgmma<__nv_bfloat16, __nv_bfloat16, true, 128, 256, 4, 2, 8, 2>");
  kg::launch_plan p;
  // 32 x 16 tiles, 16 x 16 units of two: 66 clusters of 2 on 132 SMs.
  ASSERT_EQ(kg::plan_launch(c, 4096, 4096, 4096, h200(), p), "");
  EXPECT_EQ(p.grid_x, 132u);
  EXPECT_EQ(p.cluster_x, 2u);
  // 3 tile rows: 2 units along M (the second with a block past M) x 2 along N, 4 clusters.
  ASSERT_EQ(kg::plan_launch(c, 300, 300, 64, h200(), p), "");
  EXPECT_EQ(p.grid_x, 8u);
  c.cluster = 3;
  EXPECT_TRUE(contains(kg::check_config(c), "cluster 3 is not 1 or 2"));
  c.cluster = 1;  // the same kernel as none
  EXPECT_EQ(kg::instance_name(c), kg::instance_name(wgmma_128x256()));
}

TEST(gemm_wgmma_family, plan_refuses) {
  const kg::gemm_config c = wgmma_128x256();
  kg::launch_plan p;
  EXPECT_TRUE(contains(kg::plan_launch(c, 64, 64, 4093, h200(), p), "k 4093 is not a multiple of 8"));
  EXPECT_TRUE(contains(kg::plan_launch(c, 64, 64, 0, h200(), p), "k 0 < 1"));
  kg::device_limits small = h200();
  small.max_smem_per_block = 101376;  // a 99 KB part
  EXPECT_TRUE(contains(kg::plan_launch(c, 64, 64, 64, small, p), "> device limit 101376"));
  EXPECT_TRUE(contains(kg::plan_launch(c, kg::max_mma_extent + 1, 64, 64, h200(), p), "32-bit"));
}

}  // namespace
