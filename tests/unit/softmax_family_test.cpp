// Host-side description of the softmax families: names, parameters, checks and launch planning,
// for cluster_row and row_tile in particular (no GPU needed).
#include <gtest/gtest.h>

#include "cuop/kernels/softmax/family.hpp"
#include "cuop/kernels/softmax/split_workspace.hpp"

namespace {

namespace ks = cuop::kernels::softmax;
using cuop::dtype;

ks::softmax_config block_cfg(ks::family f, dtype t, int vec, int threads, int chunks) {
  ks::softmax_config c;
  c.fam = f;
  c.type = t;
  c.vec = vec;
  c.block_threads = threads;
  c.chunks = chunks;
  return c;
}

ks::softmax_config cluster_cfg(dtype t, int vec, int threads, int chunks, int cluster) {
  ks::softmax_config c = block_cfg(ks::family::cluster_row, t, vec, threads, chunks);
  c.cluster = cluster;
  return c;
}

ks::device_limits limits(int sm, int sm_count, long long resident_blocks) {
  ks::device_limits dev;
  dev.sm = sm;
  dev.sm_count = sm_count;
  dev.max_resident_blocks = resident_blocks;
  return dev;
}

TEST(softmax_family, cluster_row_names_and_parameters) {
  const auto c = cluster_cfg(dtype::f32, 4, 512, 8, 8);
  EXPECT_EQ(ks::instance_name(c), "softmax_f32_cluster_row_vec4_threads512_chunks8_cluster8");
  EXPECT_EQ(ks::template_name(c), "cuop::kernels::softmax::cluster_row<float, 4, 512, 8, 8>");
  EXPECT_EQ(ks::header_of(ks::family::cluster_row), "cuop/kernels/softmax/cluster_row.cuh");
  EXPECT_EQ(ks::param_names(ks::family::cluster_row),
            (std::vector<std::string_view>{"vec", "block_threads", "chunks", "cluster"}));
  ks::family f{};
  ASSERT_TRUE(ks::parse_family("cluster_row", f));
  EXPECT_EQ(f, ks::family::cluster_row);
  EXPECT_EQ(ks::cols_per_owner(c), 4 * 512 * 8);
  EXPECT_EQ(ks::threads_per_block(c), 512);

  ks::softmax_config p;
  p.fam = ks::family::cluster_row;
  EXPECT_TRUE(ks::set_param(p, "cluster", 16));
  EXPECT_EQ(ks::get_param(p, "cluster"), 16);
  p.fam = ks::family::split_row;  // the other families have no cluster parameter
  EXPECT_FALSE(ks::set_param(p, "cluster", 2));
  EXPECT_EQ(ks::get_param(p, "cluster"), -1);
}

TEST(softmax_family, min_sm) {
  EXPECT_EQ(ks::min_sm(ks::family::warp_row), 80);
  EXPECT_EQ(ks::min_sm(ks::family::block_row), 80);
  EXPECT_EQ(ks::min_sm(ks::family::split_row), 80);
  EXPECT_EQ(ks::min_sm(ks::family::cluster_row), 90);
}

TEST(softmax_family, cluster_row_checks_the_cluster_size) {
  for (int k : {2, 4, 8, 16}) EXPECT_EQ(ks::check_config(cluster_cfg(dtype::bf16, 8, 256, 8, k)), "");
  EXPECT_EQ(ks::check_config(cluster_cfg(dtype::bf16, 8, 256, 8, 3)), "cluster 3 is not 2, 4, 8 or 16");
  EXPECT_EQ(ks::check_config(cluster_cfg(dtype::bf16, 8, 256, 8, 0)), "cluster 0 is not 2, 4, 8 or 16");
  EXPECT_EQ(ks::check_config(cluster_cfg(dtype::bf16, 8, 256, 8, 32)), "cluster 32 is not 2, 4, 8 or 16");
}

TEST(softmax_family, cluster_row_plan_uses_the_resident_clusters) {
  const auto c = cluster_cfg(dtype::f32, 4, 512, 8, 4);  // 16384 columns per block, 65536 per row
  ks::device_limits dev;
  dev.sm_count = 132;
  dev.max_resident_blocks = 132;
  dev.max_active_clusters = 32;
  ks::launch_plan p;
  ASSERT_EQ(ks::plan_launch(c, 1024, 65536, dev, p), "");
  EXPECT_EQ(p.grid_x, 32u * 4u);
  EXPECT_EQ(p.cluster_x, 4u);
  EXPECT_EQ(p.block_x, 512u);
  EXPECT_FALSE(p.cooperative);
  EXPECT_EQ(p.workspace_bytes, 0u);

  ASSERT_EQ(ks::plan_launch(c, 5, 100, dev, p), "");  // fewer rows than clusters
  EXPECT_EQ(p.grid_x, 5u * 4u);

  // Unknown cluster count, even with the resident blocks known: one cluster per row, never a
  // persistent grid larger than what can be resident.
  dev.max_active_clusters = 0;
  ASSERT_EQ(ks::plan_launch(c, 1024, 65536, dev, p), "");
  EXPECT_EQ(p.grid_x, 1024u * 4u);
  ASSERT_EQ(ks::plan_launch(c, 1024, 65536, ks::device_limits{}, p), "");
  EXPECT_EQ(p.grid_x, 1024u * 4u);
}

TEST(softmax_family, cluster_row_plan_rejects) {
  const auto c = cluster_cfg(dtype::f32, 4, 512, 8, 4);
  ks::device_limits dev;
  dev.sm_count = 132;
  dev.max_active_clusters = 32;
  ks::launch_plan p;
  EXPECT_EQ(ks::plan_launch(c, 1024, 65537, dev, p), "cols 65537 > 65536 held by a cluster of 4 blocks of 16384");
  dev.max_active_clusters = -1;
  EXPECT_EQ(ks::plan_launch(c, 1024, 65536, dev, p),
            "a cluster of 4 blocks of 512 threads cannot be resident on this device");
  dev.max_active_clusters = 32;
  dev.sm = 86;
  EXPECT_EQ(ks::plan_launch(c, 1024, 65536, dev, p), "cluster_row needs sm_90 or newer (device sm_86)");
  dev.sm = 90;
  EXPECT_EQ(ks::plan_launch(c, 1024, 65536, dev, p), "");
  dev.sm = 100;
  EXPECT_EQ(ks::plan_launch(c, 1024, 65536, dev, p), "");
}

TEST(softmax_family, other_families_launch_without_clusters) {
  ks::softmax_config c = block_cfg(ks::family::split_row, dtype::f32, 4, 512, 8);
  const ks::device_limits dev = limits(80, 108, 108);
  ks::launch_plan p;
  ASSERT_EQ(ks::plan_launch(c, 1024, 65536, dev, p), "");
  EXPECT_EQ(p.cluster_x, 1u);
  EXPECT_TRUE(p.cooperative);
  c.fam = ks::family::block_row;
  ASSERT_EQ(ks::plan_launch(c, 1024, 16384, dev, p), "");
  EXPECT_EQ(p.cluster_x, 1u);
  EXPECT_EQ(ks::instance_name(c), "softmax_f32_block_row_vec4_threads512_chunks8");
}

// persistent = 0 launches one block per row group instead of capping the grid at the resident
// blocks, and is named (and instantiated) apart; the default keeps the names it always had.
TEST(softmax_family, persistent_0_is_one_block_per_row_group_and_named_apart) {
  ks::softmax_config c = block_cfg(ks::family::block_row, dtype::bf16, 8, 256, 4);
  const ks::device_limits dev = limits(90, 132, 528);
  ks::launch_plan p;
  ASSERT_EQ(ks::plan_launch(c, 8192, 8192, dev, p), "");
  EXPECT_EQ(p.grid_x, 528u);
  EXPECT_EQ(ks::instance_name(c), "softmax_bf16_block_row_vec8_threads256_chunks4");
  EXPECT_EQ(ks::template_name(c), "cuop::kernels::softmax::block_row<__nv_bfloat16, 8, 256, 4>");
  ASSERT_TRUE(ks::set_param(c, "persistent", 0));
  EXPECT_EQ(ks::check_config(c), "");
  ASSERT_EQ(ks::plan_launch(c, 8192, 8192, dev, p), "");
  EXPECT_EQ(p.grid_x, 8192u);
  EXPECT_EQ(ks::instance_name(c), "softmax_bf16_block_row_vec8_threads256_chunks4_persistent0");
  EXPECT_EQ(ks::template_name(c), "cuop::kernels::softmax::block_row<__nv_bfloat16, 8, 256, 4, 0>");

  c.fam = ks::family::warp_row;
  c.threads_per_row = 32;
  c.rows_per_block = 4;
  ASSERT_EQ(ks::plan_launch(c, 32769, 1024, dev, p), "");
  EXPECT_EQ(p.grid_x, 8193u);  // ceil(32769 / 4) groups
  EXPECT_EQ(ks::template_name(c), "cuop::kernels::softmax::warp_row<__nv_bfloat16, 8, 32, 4, 4, 0>");

  c.persistent = 2;
  EXPECT_EQ(ks::check_config(c), "persistent 2 is not 0 or 1");
  c.persistent = 0;
  c.fam = ks::family::cluster_row;
  c.cluster = 2;
  EXPECT_EQ(ks::check_config(c), "persistent applies to warp_row, block_row and split_row only");
  ks::softmax_config s;
  s.fam = ks::family::cluster_row;
  EXPECT_FALSE(ks::set_param(s, "persistent", 0));
  EXPECT_EQ(ks::optional_param_names(ks::family::block_row),
            (std::vector<std::string_view>{"persistent", "smem_chunks"}));
  EXPECT_EQ(ks::optional_param_names(ks::family::warp_row), std::vector<std::string_view>{"persistent"});
  EXPECT_TRUE(ks::optional_param_names(ks::family::cluster_row).empty());
}

// smem_chunks: a block_row with persistent 0 holds that many more vectors per thread in dynamic
// shared memory; the plan carries the bytes, the device's limit rejects too many, and names and
// templates carry both optional parameters.
TEST(softmax_family, smem_chunks_extend_a_block_row_into_shared_memory) {
  ks::softmax_config c = block_cfg(ks::family::block_row, dtype::f32, 4, 1024, 6);
  ASSERT_TRUE(ks::set_param(c, "persistent", 0));
  ASSERT_TRUE(ks::set_param(c, "smem_chunks", 10));
  EXPECT_EQ(ks::check_config(c), "");
  EXPECT_EQ(ks::cols_per_owner(c), 65536);
  EXPECT_EQ(ks::dynamic_smem_bytes(c), 10 * 1024 * 16);
  EXPECT_EQ(ks::instance_name(c), "softmax_f32_block_row_vec4_threads1024_chunks6_persistent0_smemchunks10");
  EXPECT_EQ(ks::template_name(c), "cuop::kernels::softmax::block_row<float, 4, 1024, 6, 0, 10>");

  ks::device_limits dev = limits(90, 132, 132);
  dev.max_smem_per_block = 232448;  // sm_90 opt-in
  ks::launch_plan p;
  ASSERT_EQ(ks::plan_launch(c, 1024, 65536, dev, p), "");
  EXPECT_EQ(p.grid_x, 1024u);
  EXPECT_EQ(p.smem_bytes, 163840u);
  EXPECT_EQ(ks::plan_launch(c, 1024, 65537, dev, p), "cols 65537 > 65536 held per row");
  dev.max_smem_per_block = 101376;
  EXPECT_EQ(ks::plan_launch(c, 1024, 65536, dev, p), "shared memory 163840 + 0 static bytes > device limit 101376");

  c.persistent = 1;
  EXPECT_EQ(ks::check_config(c), "smem_chunks needs persistent 0 (one block per row or row segment)");
  c.persistent = 0;
  c.smem_chunks = 65;
  EXPECT_EQ(ks::check_config(c), "smem_chunks 65 outside 0..64");
  ks::softmax_config w;
  w.fam = ks::family::warp_row;
  EXPECT_FALSE(ks::set_param(w, "smem_chunks", 4));
}

// Static and dynamic shared memory share both the device's limit and the 48 KiB a kernel gets
// unasked: exactly 48 KiB of dynamic bytes beside a kernel's static scratch needs the opt-in (on
// the H200 these launches failed with cudaErrorInvalidValue before the static bytes counted).
TEST(softmax_family, static_shared_memory_counts_towards_the_opt_in_and_the_limit) {
  ks::softmax_config c = block_cfg(ks::family::split_row, dtype::f32, 4, 512, 4);
  ASSERT_TRUE(ks::set_param(c, "persistent", 0));
  ASSERT_TRUE(ks::set_param(c, "smem_chunks", 6));
  ASSERT_EQ(ks::dynamic_smem_bytes(c), 48 * 1024);
  ks::device_limits dev = limits(90, 132, 264);
  dev.max_smem_per_block = 232448;
  ks::launch_plan p;
  ASSERT_EQ(ks::plan_launch(c, 256, 262144, dev, p), "");
  EXPECT_FALSE(p.smem_opt_in);  // no static bytes: 48 KiB exactly is within the default
  dev.static_smem = 272;
  ASSERT_EQ(ks::plan_launch(c, 256, 262144, dev, p), "");
  EXPECT_TRUE(p.smem_opt_in);
  EXPECT_EQ(p.smem_bytes, 49152u);

  c.smem_chunks = 4;  // 32 KiB + 272 stays within the default
  ASSERT_EQ(ks::plan_launch(c, 256, 262144, dev, p), "");
  EXPECT_FALSE(p.smem_opt_in);
  c.smem_chunks = 0;  // no dynamic bytes: nothing to raise, whatever the static bytes
  dev.static_smem = 60 * 1024;
  ASSERT_EQ(ks::plan_launch(c, 256, 262144, dev, p), "");
  EXPECT_FALSE(p.smem_opt_in);

  c.smem_chunks = 6;
  dev.max_smem_per_block = 49152 + 271;  // one byte short of dynamic + static
  dev.static_smem = 272;
  EXPECT_EQ(ks::plan_launch(c, 256, 262144, dev, p), "shared memory 49152 + 272 static bytes > device limit 49423");
}

// split_row with persistent 0: one block per (row, segment), an ordinary launch with per-row
// slots in the workspace; with smem_chunks each block holds a longer segment.
TEST(softmax_family, split_row_persistent_0_is_one_block_per_row_segment) {
  ks::softmax_config c = block_cfg(ks::family::split_row, dtype::f32, 4, 512, 6);
  ASSERT_TRUE(ks::set_param(c, "persistent", 0));
  ASSERT_TRUE(ks::set_param(c, "smem_chunks", 10));
  EXPECT_EQ(ks::check_config(c), "");
  EXPECT_EQ(ks::cols_per_owner(c), 32768);
  EXPECT_EQ(ks::instance_name(c), "softmax_f32_split_row_vec4_threads512_chunks6_persistent0_smemchunks10");
  EXPECT_EQ(ks::template_name(c), "cuop::kernels::softmax::split_row<float, 4, 512, 6, 0, 10>");
  ks::device_limits dev = limits(90, 132, 264);
  dev.max_smem_per_block = 232448;
  ks::launch_plan p;
  ASSERT_EQ(ks::plan_launch(c, 256, 262144, dev, p), "");
  EXPECT_EQ(p.grid_x, 256u * 8u);
  EXPECT_FALSE(p.cooperative);
  EXPECT_EQ(p.smem_bytes, 10u * 512u * 16u);
  EXPECT_EQ(p.workspace_bytes,
            static_cast<std::size_t>(ks::split_row_header_bytes +
                                     256 * 8 * (ks::split_row_slot_bytes + ks::split_row_claim_bytes)));
  // Fewer than the 8 segments of a row: every row would meet only through the fallback's claims.
  dev.max_resident_blocks = 7;
  EXPECT_EQ(ks::plan_launch(c, 256, 262144, dev, p), "cols 262144 need 8 blocks of 32768 > 7 co-resident blocks");

  c.persistent = 1;  // the persistent grid keeps its cooperative launch and parity slots
  c.smem_chunks = 0;
  dev.max_resident_blocks = 264;
  ASSERT_EQ(ks::plan_launch(c, 256, 262144, dev, p), "");
  EXPECT_TRUE(p.cooperative);
  EXPECT_EQ(p.smem_bytes, 0u);
  EXPECT_EQ(ks::instance_name(c), "softmax_f32_split_row_vec4_threads512_chunks6");
}

}  // namespace

namespace {

ks::softmax_config tile_cfg(dtype t, int vec, int tpr, int rpb, int chunks) {
  ks::softmax_config c;
  c.fam = ks::family::row_tile;
  c.type = t;
  c.vec = vec;
  c.threads_per_row = tpr;
  c.rows_per_block = rpb;
  c.chunks = chunks;
  return c;
}

}  // namespace

TEST(softmax_family, row_tile_names_and_parameters) {
  const auto c = tile_cfg(dtype::bf16, 8, 8, 32, 16);
  EXPECT_EQ(ks::check_config(c), "");
  EXPECT_EQ(ks::instance_name(c), "softmax_bf16_row_tile_vec8_rowthreads8_blockrows32_chunks16");
  EXPECT_EQ(ks::template_name(c), "cuop::kernels::softmax::row_tile<__nv_bfloat16, 8, 8, 32, 16>");
  EXPECT_EQ(ks::header_of(ks::family::row_tile), "cuop/kernels/softmax/row_tile.cuh");
  EXPECT_EQ(ks::param_names(ks::family::row_tile),
            (std::vector<std::string_view>{"vec", "threads_per_row", "rows_per_block", "chunks"}));
  EXPECT_TRUE(ks::optional_param_names(ks::family::row_tile).empty());
  ks::family f{};
  ASSERT_TRUE(ks::parse_family("row_tile", f));
  EXPECT_EQ(f, ks::family::row_tile);
  EXPECT_EQ(ks::min_sm(ks::family::row_tile), 80);
  EXPECT_EQ(ks::cols_per_owner(c), 8 * 16);  // chunks count elements, not vectors
  EXPECT_EQ(ks::threads_per_block(c), 256);
  EXPECT_EQ(ks::dynamic_smem_bytes(c), 0);

  ks::softmax_config p;
  p.fam = ks::family::row_tile;
  EXPECT_TRUE(ks::set_param(p, "rows_per_block", 64));
  EXPECT_EQ(ks::get_param(p, "rows_per_block"), 64);
  EXPECT_FALSE(ks::set_param(p, "persistent", 0));
  EXPECT_FALSE(ks::set_param(p, "block_threads", 256));
}

TEST(softmax_family, row_tile_checks_its_vectors_and_tile) {
  EXPECT_EQ(ks::check_config(tile_cfg(dtype::f16, 1, 8, 32, 16)), "row_tile: vec 1 is narrower than 4 bytes");
  EXPECT_EQ(ks::check_config(tile_cfg(dtype::f32, 1, 8, 32, 16)), "");
  // The tile: rows x lanes x chunks elements and 2 vectors of slack; 8 x 32 x 47 + 8 floats fit.
  EXPECT_EQ(ks::check_config(tile_cfg(dtype::f32, 4, 32, 8, 47)), "");
  EXPECT_EQ(ks::check_config(tile_cfg(dtype::f32, 4, 32, 8, 48)),
            "row_tile: a tile of 49184 bytes > 49152 bytes of static shared memory");
  auto persistent0 = tile_cfg(dtype::f32, 4, 8, 32, 16);
  persistent0.persistent = 0;
  EXPECT_EQ(ks::check_config(persistent0), "persistent applies to warp_row, block_row and split_row only");
  EXPECT_EQ(ks::check_config(tile_cfg(dtype::f32, 4, 3, 32, 16)), "threads_per_row 3 must be a power of two <= 32");
}

TEST(softmax_family, row_tile_plan_is_one_block_per_tile) {
  const auto c = tile_cfg(dtype::f16, 8, 8, 32, 16);
  ks::launch_plan p;
  ASSERT_EQ(ks::plan_launch(c, 100003, 77, limits(90, 132, 1056), p), "");
  EXPECT_EQ(p.grid_x, (100003u + 31) / 32);
  EXPECT_EQ(p.block_x, 256u);
  EXPECT_EQ(p.smem_bytes, 0u);
  EXPECT_FALSE(p.cooperative);
  EXPECT_EQ(p.cluster_x, 1u);
  EXPECT_EQ(ks::plan_launch(c, 10, 129, limits(90, 132, 1056), p), "cols 129 > 128 held per row");
  EXPECT_EQ(ks::plan_launch(c, 10, 128, limits(90, 132, 1056), p), "");
  EXPECT_EQ(p.grid_x, 1u);
}
