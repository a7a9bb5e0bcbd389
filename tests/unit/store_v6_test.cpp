// Schema 6 of the store: a version 5 database whose keys are in the spelling before issue 38
// migrates keeping every row and id, with its instance names and renamed parameters in their
// current spelling; read-only opens read it so through an upgraded copy and leave the file alone;
// an old key that names no configuration stops the migration with the reason, the file untouched.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include "test_support.hpp"
#include "tuner/store/migrations.hpp"
#include "tuner/store/store.hpp"

using namespace cuop::store;

namespace {

void exec(sqlite3* db, const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    const std::string msg = err ? err : "?";
    sqlite3_free(err);
    throw std::runtime_error(msg + " in: " + sql);
  }
}

// Every row of `sql`, columns joined by '|', rows by '\n'.
std::string rows(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) != SQLITE_OK) throw std::runtime_error(sql);
  std::string out;
  while (sqlite3_step(s) == SQLITE_ROW) {
    for (int i = 0; i < sqlite3_column_count(s); ++i) {
      const auto* t = sqlite3_column_text(s, i);
      out += (i ? "|" : "") + std::string(t ? reinterpret_cast<const char*>(t) : "NULL");
    }
    out += "\n";
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  return out;
}

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// A version 5 database as cuop-tune wrote it before issue 38: a conv2d problem key and one
// configuration of each of our families in the old spelling (depthwise with its "stage"), a library back end's and a custom
// kernel's, each with a build and a trial. `depthwise` is the depthwise instance.
void write_v5_fixture(const std::string& path, const std::string& depthwise) {
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  for (const char* sql : {detail::schema_v1_sql, detail::schema_v2_sql, detail::schema_v3_sql, detail::schema_v4_sql,
                          detail::schema_v5_sql})
    exec(db, sql);
  exec(db, R"sql(
PRAGMA user_version = 5;
INSERT INTO runs (id, started_at, state, env_key) VALUES (1, '2026-12-01T10:00:00Z', 'finished', 'envA');
INSERT INTO problems VALUES (1, 'conv2d_f16_nhwc_16x64x64x384_k384_r7x7_s1_p3_d1_g384', 'conv2d', 'f16', '{}', 0);
INSERT INTO problems VALUES (2, 'gemm_bf16_512x4096x4096', 'gemm', 'bf16', '{}', 0);
INSERT INTO problems VALUES (3, 'softmax_f32_8x1024', 'softmax', 'f32', '{}', 0);
INSERT INTO configs VALUES (1, ')sql" +
               depthwise + R"sql(', 'conv2d', 'depthwise', 'f16',
  '{"block_c":32,"cvecs":4,"ph":4,"pw":1,"stage":5,"tile_h":16,"tile_w":32,"vec":8}');
INSERT INTO configs VALUES (2, 'gemm_bf16_bf16_col_mma_m128_n128_k32_wm64_wn64_s3_g8_sk1', 'gemm', 'mma', 'bf16',
  '{"block_k":32,"block_m":128,"block_n":128,"group_m":8,"split_k":1,"stages":3,"warp_m":64,"warp_n":64}');
INSERT INTO configs VALUES (3, 'gemm_bf16_bf16_col_skinny_n16_t256_m1_kc16_sk4', 'gemm', 'skinny', 'bf16',
  '{"block_n":16,"k_chunk":16,"m_tile":1,"split_k":4,"threads":256}');
INSERT INTO configs VALUES (4, 'softmax_f32_block_row_v4_b1024_c6_p0_s10', 'softmax', 'block_row', 'f32',
  '{"block_threads":1024,"chunks":6,"persistent":0,"smem_chunks":10,"vec":4}');
INSERT INTO configs VALUES (5, 'gemm_bf16_cublaslt_heuristic', 'gemm', 'cublaslt', 'bf16', '{"rank":0,"workspace_mb":32}');
INSERT INTO configs VALUES (6, 'softmax_f32_custom_k_0123abcd_block_threads256', 'softmax', 'custom', 'f32',
  '{"block_threads":256}');
INSERT INTO builds (id, config_id, target, source_hash, status) VALUES (1, 1, 'sm_90a', 'h', 'ok'), (2, 2, 'sm_90a', 'h', 'ok');
INSERT INTO trials (id, run_id, env_key, problem_id, config_id, status, median_us, created_at) VALUES
  (1, 1, 'envA', 1, 1, 'ok', 38.24, '2026-12-01T10:01:00Z'), (2, 1, 'envA', 2, 2, 'ok', 12.5, '2026-12-01T10:02:00Z'),
  (3, 1, 'envA', 2, 3, 'ok', 14.0, '2026-12-01T10:03:00Z'), (4, 1, 'envA', 3, 4, 'ok', 3.0, '2026-12-01T10:04:00Z'),
  (5, 1, 'envA', 2, 5, 'ok', 11.0, '2026-12-01T10:05:00Z'), (6, 1, 'envA', 3, 6, 'ok', 4.0, '2026-12-01T10:06:00Z');
INSERT INTO samples (trial_id, idx, time_us) VALUES (1, 0, 38.0), (1, 1, 38.5), (4, 0, 3.0);
)sql");
  sqlite3_close(db);
}

const std::string old_depthwise = "conv_depthwise_f16_nhwc_r7x7_st1_v8_cv4_c32_t16x32_ph4_pw1_stage5";

const std::string migrated_configs =
    "1|conv_depthwise_f16_nhwc_mma_seg_filter7x7_stride1_vec8_cvecs4_blockc32_tile16x32_ph4_pw1|"
    "{\"algo\":5,\"block_c\":32,\"cvecs\":4,\"ph\":4,\"pw\":1,\"tile_h\":16,\"tile_w\":32,\"vec\":8}\n"
    "2|gemm_bf16_bf16_col_mma_block128x128x32_warp64x64_stages3_groupm8_splitk1|"
    "{\"block_k\":32,\"block_m\":128,\"block_n\":128,\"group_m\":8,\"split_k\":1,\"stages\":3,\"warp_m\":64,"
    "\"warp_n\":64}\n"
    "3|gemm_bf16_bf16_col_skinny_blockn16_threads256_mtile1_kchunk16_splitk4|"
    "{\"block_n\":16,\"k_chunk\":16,\"m_tile\":1,\"split_k\":4,\"threads\":256}\n"
    "4|softmax_f32_block_row_vec4_threads1024_chunks6_persistent0_smemchunks10|"
    "{\"block_threads\":1024,\"chunks\":6,\"persistent\":0,\"smem_chunks\":10,\"vec\":4}\n"
    "5|gemm_bf16_cublaslt_heuristic|{\"rank\":0,\"workspace_mb\":32}\n"
    "6|softmax_f32_custom_k_0123abcd_block_threads256|{\"block_threads\":256}\n";

// Everything but problems' keys and configs' instance and params, which the migration rewrites.
std::string kept(const std::string& path) {
  return rows(path, "SELECT id, op, family, dtype FROM configs ORDER BY id") +
         rows(path, "SELECT id, op, dtype, dims_json, bytes FROM problems ORDER BY id") +
         rows(path, "SELECT * FROM builds ORDER BY id") + rows(path, "SELECT * FROM trials ORDER BY id") +
         rows(path, "SELECT * FROM samples ORDER BY trial_id, idx");
}

class store_v6 : public ::testing::Test {
 protected:
  cuop::test::scratch m_dir{"cuop-store-v6"};
  std::string m_path = m_dir / "v5.db";
};

}  // namespace

TEST_F(store_v6, a_version_5_database_migrates_to_the_current_keys_keeping_every_row) {
  write_v5_fixture(m_path, old_depthwise);
  const std::string before = kept(m_path);
  { auto db = database::open(m_path, open_mode::read_write); }
  EXPECT_EQ(rows(m_path, "PRAGMA user_version"), std::to_string(schema_version) + "\n");
  EXPECT_EQ(rows(m_path, "SELECT id, instance, params_json FROM configs ORDER BY id"), migrated_configs);
  EXPECT_EQ(rows(m_path, "SELECT id, key FROM problems ORDER BY id"),
            "1|conv2d_f16_nhwc_16x64x64x384_k384_filter7x7_stride1_pad3_dil1_groups384\n"
            "2|gemm_bf16_512x4096x4096\n3|softmax_f32_8x1024\n");
  EXPECT_EQ(kept(m_path), before);
  EXPECT_EQ(rows(m_path, "PRAGMA foreign_key_check"), "");

  auto db = database::open(m_path, open_mode::read_only);
  EXPECT_TRUE(
      db->has_trial("envA", "conv2d_f16_nhwc_16x64x64x384_k384_filter7x7_stride1_pad3_dil1_groups384",
                    "conv_depthwise_f16_nhwc_mma_seg_filter7x7_stride1_vec8_cvecs4_blockc32_tile16x32_ph4_pw1"));
  EXPECT_EQ(db->trials({}).size(), 6u);
}

TEST_F(store_v6, read_only_reads_the_current_keys_without_writing_the_file) {
  write_v5_fixture(m_path, old_depthwise);
  const auto before = bytes_of(m_path);
  {
    auto db = database::open(m_path, open_mode::read_only);
    EXPECT_EQ(db->user_version(), schema_version);
    EXPECT_TRUE(db->has_trial("envA", "gemm_bf16_512x4096x4096",
                              "gemm_bf16_bf16_col_mma_block128x128x32_warp64x64_stages3_groupm8_splitk1"));
    EXPECT_FALSE(
        db->has_trial("envA", "gemm_bf16_512x4096x4096", "gemm_bf16_bf16_col_mma_m128_n128_k32_wm64_wn64_s3_g8_sk1"));
  }
  EXPECT_EQ(bytes_of(m_path), before);
}

TEST_F(store_v6, an_old_key_that_names_no_configuration_stops_the_migration_with_the_reason) {
  const std::string bad = "conv_depthwise_f16_nhwc_r7x7_st1_v8_cv4_c32_t16x32_ph4_pw1_stage7";
  write_v5_fixture(m_path, bad);
  const auto before = bytes_of(m_path);
  EXPECT_EQ(cuop::test::error_of([&] { database::open(m_path, open_mode::read_write); }),
            "instance \"" + bad +
                "\": stage 7 of an old depthwise key is no algorithm (stages 0 to 5 are direct, smem, smem_f32, mma, "
                "mma_tma, mma_seg)");
  EXPECT_EQ(rows(m_path, "PRAGMA user_version"), "5\n");
  EXPECT_EQ(rows(m_path, "SELECT instance FROM configs WHERE id = 1"), bad + "\n");
}
