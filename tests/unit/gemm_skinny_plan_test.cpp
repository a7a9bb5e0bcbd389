// Validity and launch planning of the skinny GEMM family: what check_skinny rejects and why, and
// the grid, block, shared memory and split-K workspace plan_skinny gives a problem.
#include <gtest/gtest.h>

#include <string>

#include "cuop/kernels/gemm/family.hpp"
#include "cuop/kernels/gemm/skinny_plan.hpp"

namespace {

namespace kg = cuop::kernels::gemm;
using cuop::dtype;
using kg::detail::check_skinny;
using kg::detail::plan_skinny;

kg::gemm_config cfg(kg::b_layout b, int block_n, int threads, int m_tile, int k_chunk, int split_k) {
  kg::gemm_config c;
  c.fam = kg::family::skinny;
  c.in = dtype::bf16;
  c.out = dtype::f32;
  c.b = b;
  c.block_n = block_n;
  c.threads = threads;
  c.m_tile = m_tile;
  c.k_chunk = k_chunk;
  c.split_k = split_k;
  return c;
}

constexpr kg::b_layout col = kg::b_layout::col;
constexpr kg::b_layout row = kg::b_layout::row;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

kg::device_limits h200() {
  kg::device_limits d;
  d.sm_count = 132;
  d.max_threads_per_block = 1024;
  d.max_smem_per_block = 227 * 1024;
  return d;
}

TEST(gemm_skinny_plan, well_formed_configurations) {
  // Column-major B: block_n a multiple of the warps (columns per warp) or a divisor (warps per column).
  EXPECT_EQ(check_skinny(cfg(col, 8, 256, 1, 32, 1)), "");
  EXPECT_EQ(check_skinny(cfg(col, 16, 128, 16, 16, 4)), "");
  EXPECT_EQ(check_skinny(cfg(col, 2, 256, 8, 8, 3)), "");
  EXPECT_EQ(check_skinny(cfg(col, 1, 1024, 64, 8, 1)), "");
  EXPECT_EQ(check_skinny(cfg(col, 3, 96, 7, 24, 2)), "");  // nothing needs powers of two
  // Row-major B: 8 columns per thread; block_n / 8 divides 32 or is a multiple of it.
  EXPECT_EQ(check_skinny(cfg(row, 64, 256, 4, 32, 1)), "");
  EXPECT_EQ(check_skinny(cfg(row, 512, 128, 3, 16, 4)), "");
  EXPECT_EQ(check_skinny(cfg(row, 8, 32, 16, 8, 1)), "");
  kg::gemm_config c = cfg(col, 8, 256, 4, 32, 1);
  for (dtype in : {dtype::f16, dtype::bf16})
    for (dtype out : {dtype::f32, in}) {
      c.in = in;
      c.out = out;
      EXPECT_EQ(check_skinny(c), "") << cuop::name_of(in) << " -> " << cuop::name_of(out);
    }
}

TEST(gemm_skinny_plan, rejections_say_why) {
  EXPECT_EQ(check_skinny(cfg(col, 8, 48, 1, 32, 1)), "threads 48 is not a positive multiple of 32");
  EXPECT_EQ(check_skinny(cfg(col, 8, 0, 1, 32, 1)), "threads 0 is not a positive multiple of 32");
  EXPECT_EQ(check_skinny(cfg(col, 8, 2048, 1, 32, 1)), "threads 2048 > 1024");
  EXPECT_EQ(check_skinny(cfg(col, 8, 256, 0, 32, 1)), "m_tile 0 outside 1..64");
  EXPECT_EQ(check_skinny(cfg(col, 8, 256, 65, 32, 1)), "m_tile 65 outside 1..64");
  EXPECT_EQ(check_skinny(cfg(col, 8, 256, 1, 12, 1)), "k_chunk 12 is not a positive multiple of 8 (one 16-byte load)");
  EXPECT_EQ(check_skinny(cfg(col, 8, 256, 1, 0, 1)), "k_chunk 0 is not a positive multiple of 8 (one 16-byte load)");
  EXPECT_EQ(check_skinny(cfg(col, 8, 256, 1, 264, 1)), "k_chunk 264 > 256");
  EXPECT_EQ(check_skinny(cfg(col, 8, 256, 1, 32, 0)), "split_k 0 < 1");
  EXPECT_EQ(check_skinny(cfg(col, 8, 256, 1, 32, 257)), "split_k 257 > 256");
  EXPECT_EQ(check_skinny(cfg(col, 0, 256, 1, 32, 1)), "block_n 0 < 1");
  EXPECT_TRUE(contains(check_skinny(cfg(col, 12, 256, 1, 32, 1)),
                       "block_n 12 is neither a multiple nor a divisor of the 8 warps"));
  EXPECT_TRUE(contains(check_skinny(cfg(row, 12, 256, 1, 32, 1)), "block_n 12 is not a multiple of 8"));
  EXPECT_EQ(check_skinny(cfg(row, 24, 96, 1, 32, 1)), "block_n / 8 = 3 neither divides 32 nor is a multiple of 32");
  EXPECT_EQ(check_skinny(cfg(row, 1024, 64, 1, 32, 1)), "block_n / 8 = 128 does not divide threads 64");
  // Registers: m_tile x columns per thread accumulators, and B loaded per step.
  EXPECT_EQ(check_skinny(cfg(col, 64, 128, 64, 8, 1)), "m_tile 64 x 16 columns per thread = 1024 accumulators > 256");
  EXPECT_EQ(check_skinny(cfg(row, 64, 256, 64, 8, 1)), "m_tile 64 x 8 columns per thread = 512 accumulators > 256");
  EXPECT_EQ(check_skinny(cfg(col, 64, 256, 8, 64, 1)),
            "k_chunk 64 x 8 columns per thread loads 256 registers of b per step > 128");
  // Shared memory: 32 warps share each of 16 x 64 outputs.
  EXPECT_EQ(check_skinny(cfg(row, 64, 1024, 16, 8, 1)),
            "shared memory 131076 bytes (32 warps x m_tile 16 x block_n 64 f32 partials) > 49152");

  kg::gemm_config c = cfg(col, 8, 256, 1, 32, 1);
  c.in = dtype::f32;
  EXPECT_EQ(check_skinny(c), "input dtype f32 is not f16 or bf16");
  c.in = dtype::bf16;
  c.out = dtype::f16;
  EXPECT_EQ(check_skinny(c), "output dtype f16 is neither f32 nor the input dtype bf16");
  c.out = dtype::f32;
  c.fam = kg::family::mma;
  EXPECT_EQ(check_skinny(c), "not a skinny configuration");
}

TEST(gemm_skinny_plan, family_delegates) {
  const kg::gemm_config c = cfg(col, 12, 256, 1, 32, 1);
  EXPECT_EQ(kg::check_config(c), check_skinny(c));
  kg::launch_plan a, b;
  const kg::gemm_config good = cfg(col, 8, 256, 4, 32, 2);
  EXPECT_EQ(kg::plan_launch(good, 5, 4096, 4096, h200(), a), "");
  EXPECT_EQ(plan_skinny(good, 5, 4096, 4096, h200(), b), "");
  EXPECT_EQ(a.grid_x, b.grid_x);
  EXPECT_EQ(a.workspace_bytes, b.workspace_bytes);
}

TEST(gemm_skinny_plan, grid_block_and_shared_memory) {
  kg::launch_plan p;
  ASSERT_EQ(plan_skinny(cfg(col, 8, 256, 1, 32, 1), 1, 4096, 4096, h200(), p), "");
  EXPECT_EQ(p.grid_x, 512u);
  EXPECT_EQ(p.grid_y, 1u);
  EXPECT_EQ(p.grid_z, 1u);
  EXPECT_EQ(p.block_x, 256u);
  EXPECT_EQ(p.smem_bytes, 0u);  // static shared memory only
  EXPECT_EQ(p.workspace_bytes, 0u);

  // Any shape: edges round up; m beyond 64 takes more row tiles (slow, never rejected).
  ASSERT_EQ(plan_skinny(cfg(col, 8, 256, 16, 32, 1), 1000, 4097, 1, h200(), p), "");
  EXPECT_EQ(p.grid_x, 513u);
  EXPECT_EQ(p.grid_y, 63u);
  ASSERT_EQ(plan_skinny(cfg(row, 512, 128, 3, 16, 1), 7, 1, 7, h200(), p), "");
  EXPECT_EQ(p.grid_x, 1u);
  EXPECT_EQ(p.grid_y, 3u);
  EXPECT_EQ(p.block_x, 128u);
}

TEST(gemm_skinny_plan, split_k_workspace) {
  kg::launch_plan p;
  // 64 KiB of counters (shared with the mma family's layout), then f32 partials
  // [tiles][split_k][m_tile * block_n].
  ASSERT_EQ(plan_skinny(cfg(col, 16, 128, 16, 16, 4), 64, 4097, 129, h200(), p), "");
  EXPECT_EQ(p.grid_x, 257u);
  EXPECT_EQ(p.grid_y, 4u);
  EXPECT_EQ(p.grid_z, 4u);
  EXPECT_EQ(p.workspace_bytes, 65536u + 4u * 257 * 4 * 4 * 16 * 16);
  EXPECT_EQ(p.zeroed_bytes, 4u * 257 * 4);  // its tiles' counters; partials are written before read
  ASSERT_EQ(plan_skinny(cfg(col, 2, 256, 8, 8, 3), 7, 7, 4097, h200(), p), "");
  EXPECT_EQ(p.workspace_bytes, 65536u + 4u * 4 * 1 * 3 * 8 * 2);
  // More output tiles than counters.
  EXPECT_EQ(plan_skinny(cfg(col, 1, 32, 1, 8, 2), 1, 16385, 64, h200(), p),
            "split_k 2 needs a counter per output tile: 16385 tiles of 1 x 1 > 16384");
  EXPECT_EQ(plan_skinny(cfg(col, 1, 32, 1, 8, 2), 1, 16384, 64, h200(), p), "");
  // Without split-K there is no such limit.
  EXPECT_EQ(plan_skinny(cfg(col, 1, 32, 1, 8, 1), 1, 1 << 20, 64, h200(), p), "");
  EXPECT_EQ(p.workspace_bytes, 0u);
  EXPECT_EQ(p.zeroed_bytes, 0u);
}

TEST(gemm_skinny_plan, problems_it_cannot_run) {
  kg::launch_plan p;
  const kg::gemm_config c = cfg(col, 8, 256, 1, 32, 1);
  EXPECT_EQ(plan_skinny(c, 0, 64, 64, h200(), p), "m 0 < 1");
  EXPECT_EQ(plan_skinny(c, 64, 0, 64, h200(), p), "n 0 < 1");
  EXPECT_EQ(plan_skinny(c, 64, 64, 0, h200(), p), "k 0 < 1");
  EXPECT_EQ(plan_skinny(c, 65536, 64, 64, h200(), p), "m 65536 needs 65536 row blocks of m_tile 1 > 65535");
  EXPECT_EQ(plan_skinny(cfg(col, 8, 256, 2, 32, 1), 65536, 64, 64, h200(), p), "");
  kg::device_limits small = h200();
  small.max_threads_per_block = 128;
  EXPECT_EQ(plan_skinny(c, 1, 64, 64, small, p), "block of 256 threads > device limit 128");
  small = h200();
  small.max_smem_per_block = 1024;
  EXPECT_EQ(plan_skinny(cfg(row, 64, 256, 4, 32, 1), 1, 64, 64, small, p),
            "shared memory 8196 bytes > device limit 1024");
  // A rejected configuration is rejected for every problem, with its own reason.
  EXPECT_EQ(plan_skinny(cfg(col, 8, 48, 1, 32, 1), 1, 64, 64, h200(), p),
            "threads 48 is not a positive multiple of 32");
}

}  // namespace
