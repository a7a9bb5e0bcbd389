// Host-side description of the GEMM families: names, parameters, validity and launch planning of
// the mma family (the skinny family's validity and plan are delegated and tested with it).
#include <gtest/gtest.h>

#include <string>

#include "cuop/kernels/gemm/family.hpp"

namespace {

namespace kg = cuop::kernels::gemm;
using cuop::dtype;

kg::gemm_config mma_128() {
  kg::gemm_config c;
  c.fam = kg::family::mma;
  c.in = dtype::bf16;
  c.out = dtype::f32;
  c.b = kg::b_layout::col;
  c.block_m = 128;
  c.block_n = 128;
  c.block_k = 32;
  c.warp_m = 64;
  c.warp_n = 64;
  c.stages = 4;
  c.group_m = 8;
  c.split_k = 1;
  return c;
}

kg::gemm_config skinny_64() {
  kg::gemm_config c;
  c.fam = kg::family::skinny;
  c.in = dtype::bf16;
  c.out = dtype::f32;
  c.b = kg::b_layout::col;
  c.block_n = 64;
  c.threads = 256;
  c.m_tile = 8;
  c.k_chunk = 64;
  c.split_k = 4;
  return c;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(gemm_family, names_round_trip) {
  ASSERT_EQ(kg::all_families().size(), 3u);
  for (kg::family f : kg::all_families()) {
    kg::family g = kg::family::mma;
    ASSERT_TRUE(kg::parse_family(kg::name_of(f), g));
    EXPECT_EQ(g, f);
  }
  EXPECT_EQ(kg::name_of(kg::family::mma), "mma");
  EXPECT_EQ(kg::name_of(kg::family::skinny), "skinny");
  kg::family f;
  EXPECT_FALSE(kg::parse_family("wmma", f));
  kg::b_layout l = kg::b_layout::row;
  ASSERT_TRUE(kg::parse_b_layout("col", l));
  EXPECT_EQ(l, kg::b_layout::col);
  ASSERT_TRUE(kg::parse_b_layout("row", l));
  EXPECT_EQ(l, kg::b_layout::row);
  EXPECT_FALSE(kg::parse_b_layout("tn", l));
  EXPECT_EQ(kg::header_of(kg::family::mma), "cuop/kernels/gemm/mma.cuh");
  EXPECT_EQ(kg::header_of(kg::family::skinny), "cuop/kernels/gemm/skinny.cuh");
}

TEST(gemm_family, instance_and_template_names) {
  kg::gemm_config c = mma_128();
  EXPECT_EQ(kg::instance_name(c), "gemm_bf16_f32_col_mma_block128x128x32_warp64x64_stages4_groupm8_splitk1");
  EXPECT_EQ(kg::template_name(c),
            "cuop::kernels::gemm::mma<__nv_bfloat16, float, true, 128, 128, 32, 64, 64, 4, 8, 1>");
  c.in = dtype::f16;
  c.out = dtype::f16;
  c.b = kg::b_layout::row;
  c.split_k = 3;
  EXPECT_EQ(kg::instance_name(c), "gemm_f16_f16_row_mma_block128x128x32_warp64x64_stages4_groupm8_splitk3");
  EXPECT_EQ(kg::template_name(c), "cuop::kernels::gemm::mma<__half, __half, false, 128, 128, 32, 64, 64, 4, 8, 3>");

  const kg::gemm_config s = skinny_64();
  EXPECT_EQ(kg::instance_name(s), "gemm_bf16_f32_col_skinny_blockn64_threads256_mtile8_kchunk64_splitk4");
  EXPECT_EQ(kg::template_name(s), "cuop::kernels::gemm::skinny<__nv_bfloat16, float, true, 64, 256, 8, 64, 4>");
}

TEST(gemm_family, every_parameter_changes_the_name) {
  for (const kg::gemm_config& base : {mma_128(), skinny_64()}) {
    const std::string name = kg::instance_name(base);
    for (std::string_view p : kg::param_names(base.fam)) {
      kg::gemm_config c = base;
      ASSERT_TRUE(kg::set_param(c, p, kg::get_param(c, p) + 1)) << p;
      EXPECT_NE(kg::instance_name(c), name) << p;
      EXPECT_NE(kg::template_name(c), kg::template_name(base)) << p;
    }
  }
}

TEST(gemm_family, params_round_trip) {
  EXPECT_EQ(kg::param_names(kg::family::mma),
            (std::vector<std::string_view>{"block_m", "block_n", "block_k", "warp_m", "warp_n", "stages", "group_m",
                                           "split_k"}));
  EXPECT_EQ(kg::param_names(kg::family::skinny),
            (std::vector<std::string_view>{"block_n", "threads", "m_tile", "k_chunk", "split_k"}));
  kg::gemm_config c;
  c.fam = kg::family::mma;
  long long v = 16;
  for (std::string_view p : kg::param_names(c.fam)) {
    ASSERT_TRUE(kg::set_param(c, p, v)) << p;
    EXPECT_EQ(kg::get_param(c, p), v) << p;
    v += 16;
  }
  EXPECT_EQ(c.block_m, 16);
  EXPECT_EQ(c.split_k, 128);
  c.fam = kg::family::skinny;
  for (std::string_view p : kg::param_names(c.fam)) {
    ASSERT_TRUE(kg::set_param(c, p, 7)) << p;
    EXPECT_EQ(kg::get_param(c, p), 7) << p;
  }
  EXPECT_EQ(c.threads, 7);
  EXPECT_EQ(c.m_tile, 7);

  // Parameters of the other family, unknown names and values outside [0, INT_MAX] are refused.
  EXPECT_FALSE(kg::set_param(c, "warp_m", 64));
  EXPECT_EQ(kg::get_param(c, "warp_m"), -1);
  c.fam = kg::family::mma;
  EXPECT_FALSE(kg::set_param(c, "threads", 256));
  EXPECT_FALSE(kg::set_param(c, "tile_kk", 1));
  EXPECT_EQ(kg::get_param(c, "tile_kk"), -1);
  EXPECT_FALSE(kg::set_param(c, "block_m", -1));
  EXPECT_FALSE(kg::set_param(c, "block_m", 1LL << 31));
}

TEST(gemm_family, threads_per_block) {
  kg::gemm_config c = mma_128();
  EXPECT_EQ(kg::threads_per_block(c), 128);
  c.block_n = 256;
  EXPECT_EQ(kg::threads_per_block(c), 256);
  c.warp_m = 32;
  c.warp_n = 32;
  EXPECT_EQ(kg::threads_per_block(c), 1024);
  EXPECT_EQ(kg::threads_per_block(skinny_64()), 256);
}

TEST(gemm_family, mma_check_config) {
  EXPECT_EQ(kg::check_config(mma_128()), "");
  const auto why = [](auto change) {
    kg::gemm_config c = mma_128();
    change(c);
    return kg::check_config(c);
  };
  EXPECT_TRUE(contains(why([](auto& c) { c.block_m = 96; }), "block_m 96 is not a multiple of warp_m 64"));
  EXPECT_TRUE(contains(why([](auto& c) { c.block_n = 32; }), "block_n 32 is not a multiple of warp_n 64"));
  EXPECT_TRUE(contains(why([](auto& c) { c.warp_m = 24; }), "warp_m 24"));
  EXPECT_TRUE(contains(why([](auto& c) { c.warp_n = 8; }), "warp_n 8"));
  EXPECT_TRUE(contains(why([](auto& c) { c.warp_n = 0; }), "warp_n 0"));
  EXPECT_TRUE(contains(why([](auto& c) {
                         c.warp_m = 16;
                         c.warp_n = 16;
                       }),
                       "block of 2048 threads > 1024"));
  EXPECT_TRUE(contains(why([](auto& c) { c.block_k = 48; }), "block_k 48 is not 16, 32 or 64"));
  EXPECT_TRUE(contains(why([](auto& c) { c.block_k = 128; }), "block_k 128"));
  EXPECT_TRUE(contains(why([](auto& c) { c.stages = 1; }), "stages 1"));
  EXPECT_TRUE(contains(why([](auto& c) { c.group_m = 0; }), "group_m 0"));
  EXPECT_TRUE(contains(why([](auto& c) { c.split_k = 0; }), "split_k 0"));
  EXPECT_TRUE(contains(why([](auto& c) { c.in = dtype::f32; }), "input dtype f32"));
  EXPECT_TRUE(contains(why([](auto& c) { c.out = dtype::f16; }), "output dtype f16"));
  // 4 * (256 + 256) * 64 * 2 = 262144 bytes > 227 KiB; 3 stages (196608) fit.
  EXPECT_TRUE(contains(why([](auto& c) {
                         c.block_m = 256;
                         c.block_n = 256;
                         c.block_k = 64;
                       }),
                       "shared memory of 262144 bytes"));
  EXPECT_EQ(why([](auto& c) {
              c.block_m = 256;
              c.block_n = 256;
              c.block_k = 64;
              c.stages = 3;
            }),
            "");
  // Output of the input type, both B layouts, f16 inputs.
  EXPECT_EQ(why([](auto& c) {
              c.out = dtype::bf16;
              c.b = kg::b_layout::row;
            }),
            "");
  EXPECT_EQ(why([](auto& c) {
              c.in = dtype::f16;
              c.out = dtype::f16;
            }),
            "");
}

TEST(gemm_family, mma_plan_launch) {
  kg::device_limits dev;
  dev.sm_count = 132;
  dev.max_threads_per_block = 1024;
  dev.max_smem_per_block = 227 * 1024;
  kg::launch_plan p;
  kg::gemm_config c = mma_128();
  ASSERT_EQ(kg::plan_launch(c, 4096, 4096, 4096, dev, p), "");
  EXPECT_EQ(p.grid_x, 32u * 32u);
  EXPECT_EQ(p.grid_y, 1u);
  EXPECT_EQ(p.grid_z, 1u);
  EXPECT_EQ(p.block_x, 128u);
  EXPECT_EQ(p.smem_bytes, 4u * (128 + 128) * 32 * 2);  // 65536
  EXPECT_EQ(p.workspace_bytes, 0u);
  EXPECT_EQ(p.zeroed_bytes, 0u);

  // Edges round up; split-K: z = split_k and workspace = 64 KiB of counters + f32 partials, of
  // which the counters must read as zero (a graph's workspace clears them at every replay).
  c.split_k = 3;
  ASSERT_EQ(kg::plan_launch(c, 129, 7, 4097, dev, p), "");
  EXPECT_EQ(p.grid_x, 2u);
  EXPECT_EQ(p.grid_z, 3u);
  EXPECT_EQ(p.workspace_bytes, 65536u + 3u * 2 * 128 * 128 * 4);
  EXPECT_EQ(p.zeroed_bytes, 4u * 2);  // the counters of its 2 tiles

  // The tile arithmetic is 32-bit: extents near 2^31 are refused, the largest allowed planned.
  c.split_k = 1;
  EXPECT_EQ(kg::plan_launch(c, kg::max_mma_extent + 1, 8, 64, dev, p),
            "m, n or k > 2147418112 (the kernel's tile arithmetic is 32-bit)");
  EXPECT_TRUE(contains(kg::plan_launch(c, 8, 2147483647, 64, dev, p), "32-bit"));
  EXPECT_TRUE(contains(kg::plan_launch(c, 8, 8, 2147483640, dev, p), "32-bit"));
  EXPECT_EQ(kg::plan_launch(c, kg::max_mma_extent, 8, 64, dev, p), "");
  EXPECT_EQ(p.grid_x, static_cast<unsigned>((kg::max_mma_extent + 127LL) / 128));
  c.split_k = 3;

  // Too many tiles for the split-K counters.
  EXPECT_TRUE(contains(kg::plan_launch(c, 128 * 129, 128 * 128, 64, dev, p), "16384 split-K counters"));

  // Device limits.
  dev.max_smem_per_block = 48 * 1024;
  EXPECT_TRUE(contains(kg::plan_launch(c, 64, 64, 64, dev, p), "shared memory of 65536 bytes > device limit 49152"));
  dev.max_smem_per_block = 0;  // unknown: not checked
  EXPECT_EQ(kg::plan_launch(c, 64, 64, 64, dev, p), "");
  dev.max_threads_per_block = 64;
  EXPECT_TRUE(contains(kg::plan_launch(c, 64, 64, 64, dev, p), "block of 128 threads > device limit 64"));
  dev.max_threads_per_block = 1024;

  // Empty problems and malformed configurations are refused.
  EXPECT_TRUE(contains(kg::plan_launch(c, 0, 64, 64, dev, p), "m 0 < 1"));
  EXPECT_TRUE(contains(kg::plan_launch(c, 64, 0, 64, dev, p), "n 0 < 1"));
  EXPECT_TRUE(contains(kg::plan_launch(c, 64, 64, 0, dev, p), "k 0 < 1"));
  c.block_k = 48;
  EXPECT_TRUE(contains(kg::plan_launch(c, 64, 64, 64, dev, p), "block_k 48"));
}

// pack: 1 (mma only) is an optional parameter, named only when set; the plan puts the packed
// copies after the split-K regions (and always after the counters every configuration sharing
// the workspace relies on), 256-byte aligned, K (and row-major B's N) rounded up to 8.
TEST(gemm_family, mma_pack) {
  EXPECT_EQ(kg::optional_param_names(kg::family::mma), (std::vector<std::string_view>{"pack"}));
  EXPECT_TRUE(kg::optional_param_names(kg::family::skinny).empty());
  kg::gemm_config c = mma_128();
  const std::string plain = kg::instance_name(c);
  EXPECT_FALSE(contains(plain, "_pack"));
  ASSERT_TRUE(kg::set_param(c, "pack", 1));
  EXPECT_EQ(kg::get_param(c, "pack"), 1);
  EXPECT_EQ(kg::instance_name(c), plain + "_pack1");
  EXPECT_EQ(kg::template_name(c), kg::template_name(mma_128()));  // the same kernel
  kg::gemm_config s = skinny_64();
  EXPECT_FALSE(kg::set_param(s, "pack", 1));
  c.pack = 2;
  EXPECT_TRUE(contains(kg::check_config(c), "pack 2 is not 0 or 1"));
  c.pack = 1;

  kg::device_limits dev;
  dev.sm_count = 132;
  dev.max_smem_per_block = 227 * 1024;
  kg::launch_plan p;
  ASSERT_EQ(kg::plan_launch(c, 127, 1031, 4093, dev, p), "");
  EXPECT_TRUE(p.pack.on);
  EXPECT_TRUE(p.pack.b_col);
  EXPECT_EQ(p.pack.k, 4096);
  EXPECT_EQ(p.pack.ldb, 4096);
  EXPECT_EQ(p.pack.a_offset, 65536u);  // no split-K, yet never over the shared counters
  EXPECT_EQ(p.pack.b_offset, 65536u + (2u * 127 * 4096 + 255) / 256 * 256);
  EXPECT_EQ(p.workspace_bytes, p.pack.b_offset + 2u * 1031 * 4096);

  c.split_k = 3;
  c.b = kg::b_layout::row;
  ASSERT_EQ(kg::plan_launch(c, 129, 7, 4097, dev, p), "");
  const std::size_t split = 65536u + 3u * 2 * 128 * 128 * 4;
  EXPECT_FALSE(p.pack.b_col);
  EXPECT_EQ(p.pack.k, 4104);
  EXPECT_EQ(p.pack.ldb, 8);  // n = 7 rounded up
  EXPECT_EQ(p.pack.a_offset, (split + 255) / 256 * 256);
  EXPECT_EQ(p.pack.a_offset % 256, 0u);
  EXPECT_EQ(p.pack.b_offset, (p.pack.a_offset + 2u * 129 * 4104 + 255) / 256 * 256);
  EXPECT_EQ(p.workspace_bytes, p.pack.b_offset + 2u * 4104 * 8);  // k rows of B padded to 4104

  // The regions alone (the cuBLASLt path packs after its own workspace).
  kg::pack_plan pp;
  EXPECT_EQ(kg::plan_pack(true, 127, 1031, 4093, 100, pp),
            256u + (2u * 127 * 4096 + 255) / 256 * 256 + 2u * 1031 * 4096);
  EXPECT_EQ(pp.a_offset, 256u);
  EXPECT_EQ(pp.k, 4096);

  // N padded too (cuBLASLt's pack: 2 where N is odd): B gains zero rows.
  EXPECT_EQ(kg::plan_pack(true, 127, 1031, 4093, 0, pp, true), (2u * 127 * 4096 + 255) / 256 * 256 + 2u * 1032 * 4096);
  EXPECT_EQ(pp.n, 1032);
  EXPECT_EQ(pp.b_rows, 1032);
  kg::plan_pack(false, 127, 1031, 4093, 0, pp, true);  // row-major B: its columns padded already
  EXPECT_EQ(pp.n, 1032);
  EXPECT_EQ(pp.b_rows, 4096);
  EXPECT_EQ(pp.ldb, 1032);

  // A staged output (cuBLASLt's pack: 2): rows of 16 bytes' multiples after what came before.
  kg::stage_plan sp;
  EXPECT_EQ(kg::plan_stage(127, 1031, 2, 100, sp), 256u + 2u * 127 * 1032);
  EXPECT_TRUE(sp.on);
  EXPECT_EQ(sp.ld, 1032);
  EXPECT_EQ(sp.offset, 256u);
  EXPECT_EQ(kg::plan_stage(3, 5, 4, 0, sp), 4u * 3 * 8);  // f32: 4 elements a 16-byte step
  EXPECT_EQ(sp.ld, 8);
  EXPECT_EQ(sp.offset, 0u);

  c.pack = 0;
  ASSERT_EQ(kg::plan_launch(c, 129, 7, 4097, dev, p), "");
  EXPECT_FALSE(p.pack.on);
  EXPECT_EQ(p.workspace_bytes, split);
}

TEST(gemm_family, flops_and_bytes) {
  EXPECT_DOUBLE_EQ(kg::gemm_flops(4096, 4096, 4096), 2.0 * 4096.0 * 4096.0 * 4096.0);
  EXPECT_DOUBLE_EQ(kg::gemm_flops(65536, 65536, 65536), 2.0 * 65536.0 * 65536.0 * 65536.0);
  EXPECT_DOUBLE_EQ(kg::gemm_bytes(dtype::bf16, dtype::f32, 2, 3, 5), 2.0 * (2 * 5 + 5 * 3) + 4.0 * 2 * 3);
  EXPECT_DOUBLE_EQ(kg::gemm_bytes(dtype::f16, dtype::f16, 1, 4096, 4096), 2.0 * (4096 + 4096.0 * 4096) + 2.0 * 4096);
}

}  // namespace
