// GEMM family skinny_tc (decode GEMM on tensor cores): its names and parameters, what
// check_skinny_tc rejects and why, and the grid, shared memory and split-K workspace it plans
// (those of skinny_tc.cuh; the split-K layout is family skinny's).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cuop/kernels/gemm/family.hpp"
#include "cuop/kernels/gemm/skinny_plan.hpp"

namespace {

namespace kg = cuop::kernels::gemm;
using cuop::dtype;

kg::gemm_config tc(int block_n, int threads, int m_tile, int k_chunk, int split_k) {
  kg::gemm_config c;
  c.fam = kg::family::skinny_tc;
  c.in = dtype::bf16;
  c.out = dtype::bf16;
  c.b = kg::b_layout::col;
  c.block_n = block_n;
  c.threads = threads;
  c.m_tile = m_tile;
  c.k_chunk = k_chunk;
  c.split_k = split_k;
  return c;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

kg::device_limits h200() {
  kg::device_limits d;
  d.sm_count = 132;
  d.max_threads_per_block = 1024;
  d.max_smem_per_block = 227 * 1024;
  return d;
}

}  // namespace

TEST(gemm_skinny_tc_family, names_and_parameters) {
  kg::family f = kg::family::mma;
  ASSERT_TRUE(kg::parse_family("skinny_tc", f));
  EXPECT_EQ(f, kg::family::skinny_tc);
  EXPECT_EQ(kg::param_names(kg::family::skinny_tc), kg::param_names(kg::family::skinny));
  EXPECT_TRUE(kg::optional_param_names(kg::family::skinny_tc).empty());
  EXPECT_EQ(kg::header_of(kg::family::skinny_tc), "cuop/kernels/gemm/skinny_tc.cuh");
  const kg::gemm_config c = tc(32, 256, 16, 32, 1);
  EXPECT_EQ(kg::instance_name(c), "gemm_bf16_bf16_col_skinny_tc_blockn32_threads256_mtile16_kchunk32_splitk1");
  EXPECT_EQ(kg::template_name(c),
            "cuop::kernels::gemm::skinny_tc<__nv_bfloat16, __nv_bfloat16, true, 32, 256, 16, 32, 1>");
  EXPECT_EQ(kg::threads_per_block(c), 256);
  kg::gemm_config s = tc(0, 0, 0, 0, 1);
  for (const auto& [name, value] : std::vector<std::pair<std::string, int>>{
           {"block_n", 64}, {"threads", 128}, {"m_tile", 8}, {"k_chunk", 64}, {"split_k", 3}}) {
    ASSERT_TRUE(kg::set_param(s, name, value)) << name;
    EXPECT_EQ(kg::get_param(s, name), value) << name;
  }
  EXPECT_FALSE(kg::set_param(s, "block_m", 64));  // not a parameter of the family
}

TEST(gemm_skinny_tc_family, well_formed) {
  for (const kg::gemm_config& c : {tc(32, 256, 16, 32, 1), tc(32, 128, 64, 16, 1), tc(64, 128, 8, 64, 3),
                                   tc(128, 512, 32, 8, 4), tc(16, 32, 8, 8, 1), tc(256, 256, 8, 8, 1)})
    EXPECT_EQ(kg::check_config(c), "") << kg::instance_name(c);
}

TEST(gemm_skinny_tc_family, rejections_say_why) {
  kg::gemm_config row = tc(32, 256, 16, 32, 1);
  row.b = kg::b_layout::row;
  EXPECT_TRUE(contains(kg::check_config(row), "column-major B")) << kg::check_config(row);
  EXPECT_TRUE(contains(kg::check_config(tc(32, 256, 12, 32, 1)), "m_tile 12"));
  EXPECT_TRUE(contains(kg::check_config(tc(32, 256, 72, 32, 1)), "m_tile 72"));
  EXPECT_TRUE(contains(kg::check_config(tc(24, 256, 16, 32, 1)), "block_n 24"));
  // 3 column tiles over 8 warps: neither divides the other.
  EXPECT_TRUE(contains(kg::check_config(tc(48, 256, 16, 32, 1)), "block_n / 16 = 3"));
  EXPECT_TRUE(contains(kg::check_config(tc(32, 100, 16, 32, 1)), "threads 100"));
  EXPECT_TRUE(contains(kg::check_config(tc(32, 256, 16, 12, 1)), "k_chunk 12"));
  EXPECT_TRUE(contains(kg::check_config(tc(32, 256, 16, 32, 0)), "split_k 0"));
  // 8 column tiles on one warp with 64 rows: 256 accumulators a thread.
  EXPECT_TRUE(contains(kg::check_config(tc(128, 32, 64, 8, 1)), "accumulators"));
  // 4 column tiles a warp, 16 chunks a step: 256 registers of B.
  EXPECT_TRUE(contains(kg::check_config(tc(64, 32, 8, 128, 1)), "registers of b"));
  // 16 warps splitting K for 64 x 64 outputs: 256 KiB of partials.
  const std::string smem = kg::check_config(tc(64, 1024, 64, 8, 1));
  EXPECT_TRUE(contains(smem, "shared memory")) << smem;
}

TEST(gemm_skinny_tc_family, plan) {
  kg::launch_plan p;
  ASSERT_EQ(kg::plan_launch(tc(32, 256, 16, 32, 1), 20, 4097, 4096, h200(), p), "");
  EXPECT_EQ(p.grid_x, 129u);  // ceil(4097 / 32)
  EXPECT_EQ(p.grid_y, 2u);    // ceil(20 / 16)
  EXPECT_EQ(p.grid_z, 1u);
  EXPECT_EQ(p.block_x, 256u);
  EXPECT_EQ(p.smem_bytes, 0u);  // static shared memory only
  EXPECT_EQ(p.workspace_bytes, 0u);
  ASSERT_EQ(kg::plan_launch(tc(64, 128, 8, 64, 3), 1, 100, 1000, h200(), p), "");
  EXPECT_EQ(p.grid_x, 2u);
  EXPECT_EQ(p.grid_z, 3u);
  // skinny's layout: the counters, then f32 partials[tiles][split_k][m_tile * block_n].
  EXPECT_EQ(p.workspace_bytes, static_cast<std::size_t>(4 * 16384 + 4 * 2 * 3 * 8 * 64));
  EXPECT_EQ(p.zeroed_bytes, 8u);
  EXPECT_TRUE(contains(kg::plan_launch(tc(32, 256, 16, 32, 1), 0, 1, 1, h200(), p), "m 0"));
}
