#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_support.hpp"
#include "sqlite_rows.hpp"

using cuop::test::read_file;
using cuop::test::run_cli;
using cuop::test::temp_dir;

namespace {

const std::string data = CUOP_TEST_DATA_DIR;
const std::string smoke = std::string(CUOP_SOURCE_DIR) + "/configs/softmax-smoke.yaml";

}  // namespace

TEST(cli, help_lists_the_commands_and_exits_0) {
  const auto r = run_cli("--help");
  EXPECT_EQ(r.code, 0);
  for (const char* cmd : {"validate", "sweep", "best", "export", "emit"})
    EXPECT_NE(r.out.find(cmd), std::string::npos) << cmd;
}

TEST(cli, no_subcommand_is_a_usage_error) { EXPECT_EQ(run_cli("").code, 2); }

TEST(cli, unknown_subcommand_is_a_usage_error) {
  const auto r = run_cli("swep configs/softmax.yaml");
  EXPECT_EQ(r.code, 2);
}

TEST(cli, validate_accepts_the_shipped_configs) {
  const auto r = run_cli("validate " + std::string(CUOP_SOURCE_DIR) + "/configs/softmax.yaml " + smoke);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("softmax.yaml: ok"), std::string::npos) << r.out;
}

TEST(cli, validate_names_the_place_of_an_unknown_key) {
  const auto file = data + "/spec/bad_unknown_key.yaml";
  const auto r = run_cli("validate " + file);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out.rfind("cuop-tune: error: " + file + ":", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("did you mean"), std::string::npos) << r.out;
}

TEST(cli, validate_of_a_missing_file_is_a_usage_error) {
  EXPECT_EQ(run_cli("validate /nonexistent/sweep.yaml").code, 2);
}

TEST(cli, validation_sweep_export_emit_round_trip) {
  temp_dir tmp;
  const auto db = tmp / "t.db";
  const auto sweep = run_cli("sweep --validate-only --db " + db + " --cache " + (tmp / "cache") + " " + smoke);
  ASSERT_EQ(sweep.code, 0) << sweep.out;
  EXPECT_NE(sweep.out.find("compile-validation"), std::string::npos) << sweep.out;
  EXPECT_NE(sweep.out.find("sm_100a"), std::string::npos) << sweep.out;

  // Resuming: the second sweep finds the builds cached.
  const auto again = run_cli("sweep --validate-only --db " + db + " --cache " + (tmp / "cache") + " " + smoke);
  ASSERT_EQ(again.code, 0) << again.out;

  const auto exported = run_cli("export --db " + db + " --out " + (tmp / "results"));
  ASSERT_EQ(exported.code, 0) << exported.out;
  EXPECT_NE(exported.out.find("softmax/validation.json"), std::string::npos) << exported.out;

  const auto emit1 = run_cli("emit --results " + (tmp / "results") + " --out " + (tmp / "gen"));
  ASSERT_EQ(emit1.code, 0) << emit1.out;
  const auto header = read_file(tmp / "gen/cuop/generated/softmax_dispatch.hpp");
  EXPECT_NE(header.find("softmax_table"), std::string::npos);
  const auto emit2 = run_cli("emit --results " + (tmp / "results") + " --out " + (tmp / "gen"));
  ASSERT_EQ(emit2.code, 0);
  EXPECT_NE(emit2.out.find("unchanged"), std::string::npos) << emit2.out;
  EXPECT_EQ(read_file(tmp / "gen/cuop/generated/softmax_dispatch.hpp"), header);
}

TEST(cli, a_database_from_a_newer_schema_is_refused_and_left_intact) {
  temp_dir tmp;
  const auto db = tmp / "newer.db";
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(h, "CREATE TABLE x(y); PRAGMA user_version = 99;", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(h);
  const auto before = read_file(db);
  const auto r = run_cli("sweep --validate-only --db " + db + " " + smoke);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("newer than this cuop-tune"), std::string::npos) << r.out;
  EXPECT_EQ(read_file(db), before);
}

TEST(cli, emit_rejects_an_unknown_target) {
  temp_dir tmp;
  const auto r = run_cli("emit --results " + std::string(CUOP_SOURCE_DIR) + "/results --out " + (tmp / "gen") +
                         " --targets 80,91a");
  EXPECT_EQ(r.code, 2);  // a usage error (docs/cli.md)
  EXPECT_NE(r.out.find("cuop-tune: error: --targets: unknown target \"91a\""), std::string::npos) << r.out;
}

TEST(cli, best_on_a_missing_database_is_an_error_naming_it) {
  const auto r = run_cli("best --db /nonexistent/x.db");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("/nonexistent/x.db"), std::string::npos) << r.out;
}

TEST(cli, emit_does_not_depend_on_where_the_results_are) {
  temp_dir tmp;
  namespace fs = std::filesystem;
  const std::string committed = std::string(CUOP_SOURCE_DIR) + "/results";
  for (const char* copy : {"a", "b/deeper"}) {
    fs::create_directories(fs::path(tmp / copy) / "results");
    fs::copy(committed, fs::path(tmp / copy) / "results", fs::copy_options::recursive);
  }
  for (const char* copy : {"a", "b/deeper"}) {
    const auto r = run_cli("emit --results " + (tmp / copy) + "/results --out " + (tmp / copy) + "/gen");
    ASSERT_EQ(r.code, 0) << r.out;
  }
  const auto a = read_file(tmp / "a/gen/cuop/generated/softmax_dispatch.hpp");
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, read_file(tmp / "b/deeper/gen/cuop/generated/softmax_dispatch.hpp"));
  EXPECT_EQ(read_file(tmp / "a/gen/softmax_instances.cu"), read_file(tmp / "b/deeper/gen/softmax_instances.cu"));
}

// tests/data/store/h200-softmax.db: an earlier H200 softmax sweep (2026-11-30, schema 1, single
// launches), with raw samples and constraint rejections removed to keep it small. The sweep behind
// today's results/softmax is h200-softmax-results.db (ci/jobs/check-fresh.sh, item 3; 2026-12-01,
// constraint rejections removed, which the export does not carry).
const std::string h200_db = data + "/store/h200-softmax.db";
const std::string results_db = data + "/store/h200-softmax-results.db";

TEST(cli, best_reports_the_fastest_verified_configuration_per_gpu_and_problem) {
  const auto r = run_cli("best --db " + h200_db);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("NVIDIA H200"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("softmax_f32_4096x4096        softmax_f32_block_row_vec4_threads128_chunks8"), std::string::npos)
      << r.out;
  const auto md = run_cli("best --format markdown --db " + h200_db);
  EXPECT_NE(md.out.find("| softmax_f32_256x262144 | `softmax_f32_split_row_vec4_threads512_chunks10` |"),
            std::string::npos)
      << md.out;
  const auto js = run_cli("best --format json --db " + h200_db);
  EXPECT_NE(js.out.find("\"speedup_over_first\""), std::string::npos) << js.out;
}

TEST(cli, committed_results_are_fresh_exports_of_their_database) {
  temp_dir tmp;
  const auto r = run_cli("export --db " + results_db + " --out " + (tmp / "results"));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(read_file(tmp / "results/softmax/nvidia-h200.json"),
            read_file(std::string(CUOP_SOURCE_DIR) + "/results/softmax/nvidia-h200.json"));
}

TEST(cli, best_rejects_an_unknown_format) { EXPECT_EQ(run_cli("best --format yaml --db " + h200_db).code, 2); }

TEST(cli, a_terminated_sweep_marks_its_run_interrupted_and_keeps_what_it_stored) {
  temp_dir tmp;
  const auto db = tmp / "t.db";
  // The full sweep compiles ~1500 kernels: two seconds in, it is busy compiling.
  const std::string script = "sh -c '" + std::string(CUOP_TUNE_BIN) + " sweep --validate-only -j 1 --db " + db +
                             " --cache " + (tmp / "cache") + " " + CUOP_SOURCE_DIR +
                             "/configs/softmax.yaml & pid=$!; sleep 2; kill -TERM $pid; wait $pid; echo exit=$?'";
  FILE* pipe = popen((script + " 2>&1").c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buffer[4096];
  while (std::fgets(buffer, sizeof(buffer), pipe)) out += buffer;
  pclose(pipe);
  EXPECT_NE(out.find("interrupted; finished trials are stored"), std::string::npos) << out;
  EXPECT_NE(out.find("exit=1"), std::string::npos) << out;

  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(h, "SELECT state FROM runs", -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), "interrupted");
  sqlite3_finalize(st);
  ASSERT_EQ(sqlite3_prepare_v2(h, "PRAGMA integrity_check", -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), "ok");
  sqlite3_finalize(st);
  sqlite3_close(h);
}

TEST(cli, a_sweep_whose_constraints_leave_nothing_is_refused_before_any_database_exists) {
  temp_dir tmp;
  const auto db = tmp / "never.db";
  const auto r = run_cli("sweep --validate-only --db " + db + " " + data + "/spec/empty_space.yaml");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("no configuration satisfies the constraints for problem softmax_f32_8x100000"),
            std::string::npos)
      << r.out;
  EXPECT_FALSE(std::filesystem::exists(db));
}

TEST(cli, emit_names_a_corrupt_results_file_and_leaves_the_old_header) {
  temp_dir tmp;
  std::filesystem::create_directories(tmp / "results/softmax");
  const auto good = run_cli("emit --results " + (tmp / "results") + " --out " + (tmp / "gen"));
  ASSERT_EQ(good.code, 0) << good.out;
  const auto before = read_file(tmp / "gen/cuop/generated/softmax_dispatch.hpp");
  std::ofstream(tmp / "results/softmax/broken.json") << "{\"format\": \"cuop-tune results 1\", \"op\": ";
  const auto r = run_cli("emit --results " + (tmp / "results") + " --out " + (tmp / "gen"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("softmax/broken.json: not a results file"), std::string::npos) << r.out;
  EXPECT_EQ(read_file(tmp / "gen/cuop/generated/softmax_dispatch.hpp"), before);
}

TEST(cli, emit_without_a_results_folder_says_so) {
  temp_dir tmp;
  const auto r = run_cli("emit --results " + (tmp / "absent") + " --out " + (tmp / "gen"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("absent: results directory not found"), std::string::npos) << r.out;
}

TEST(cli, sweep_only_matching_nothing_is_an_error_and_creates_no_database) {
  temp_dir tmp;
  const auto r = run_cli("sweep " + std::string(CUOP_SOURCE_DIR) +
                         "/configs/gemm.yaml --validate-only --only no_such_problem --db " + (tmp / "x.db"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("no problem of any file matches --only \"no_such_problem\""), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(tmp / "x.db"));
}

TEST(cli, conv2d_compile_validation_sweep_records_every_target) {
  temp_dir tmp;
  std::ofstream(tmp / "conv.yaml")
      << "op: conv2d\ndtypes: [f16]\nproblems:\n"
         "  - {n: 2, h: 9, w: 9, c: 24, k: 24, r: 5, s: 5, pad: 2, groups: 24, layout: nchw}\n"
         "candidates:\n  - family: depthwise\n"
         "    params: {vec: [8], cvecs: [1], block_c: [8, 16], tile_h: [4], tile_w: [8], ph: [1], pw: [2], algo: "
         "[smem]}\n"
         "targets: [sm_80, sm_90a, sm_100a]\n";
  const auto r = run_cli("sweep " + (tmp / "conv.yaml") + " --validate-only --db " + (tmp / "x.db") + " --cache " +
                         (tmp / "cache"));
  EXPECT_EQ(r.code, 0) << r.out;
  // block_c 16: 2 x 4 x 4 = 32 threads, compiles for each target; block_c 8: 16 threads, which the
  // family refuses (the kernel's static_assert would): stored as rejected, never compiled.
  for (const char* target : {"sm_80", "sm_90a", "sm_100a"})
    EXPECT_NE(r.out.find(std::string("[conv2d] ") + target + ": 1 configurations compile and fit, 0 rejected"),
              std::string::npos)
        << r.out;
  EXPECT_EQ(cuop::test::sqlite_rows(tmp / "x.db", "SELECT count(DISTINCT target), count(*) FROM builds"),
            std::vector<std::string>{"3|3"});
  EXPECT_EQ(cuop::test::sqlite_rows(tmp / "x.db", "SELECT status, message FROM trials"),
            std::vector<std::string>{"rejected|the family refuses it: block of 16 threads ((block_c / (vec x cvecs)) "
                                     "x (tile_h / ph) x (tile_w / pw)) outside 32..1024"});
}

// Two candidate blocks reach the same instance: the first rejects it for this problem, the
// second accepts it. The accepted point must not be stored as rejected (a stored rejection is a
// finished trial, so the point would never be measured: the H200 sweep lost b1024 split_row
// configurations that way).
TEST(cli, an_instance_one_block_rejects_and_another_accepts_is_not_stored_as_rejected) {
  temp_dir tmp;
  std::ofstream(tmp / "twice.yaml") << "op: softmax\nproblems:\n  - {rows: 8, cols: 1024, dtype: f32}\n"
                                       "candidates:\n"
                                       "  - family: block_row\n"
                                       "    params: {vec: 4, block_threads: [128, 256], chunks: 2}\n"
                                       "    constraints: [\"block_threads < 256\"]\n"
                                       "  - family: block_row\n"
                                       "    params: {vec: 4, block_threads: 256, chunks: 2}\n"
                                       "targets: [sm_90a]\n";
  const auto db = tmp / "x.db";
  const auto r =
      run_cli("sweep " + (tmp / "twice.yaml") + " --validate-only --db " + db + " --cache " + (tmp / "cache"));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("[softmax] sm_90a: 2 configurations compile and fit, 0 rejected"), std::string::npos) << r.out;
  EXPECT_EQ(cuop::test::sqlite_rows(
                db,
                "SELECT count(*) FROM trials t JOIN configs c ON c.id = t.config_id "
                "WHERE c.instance = 'softmax_f32_block_row_vec4_threads256_chunks2' AND t.status = 'rejected'"),
            std::vector<std::string>{"0"});
}

// A validation sample compiles a few configurations per family (spread over its names), for
// every target; 0 compiles them all; a negative count is a usage error.
TEST(cli, a_validation_sample_compiles_a_few_configurations_per_family) {
  temp_dir tmp;
  const auto sweep = [&](const std::string& db, const std::string& sample) {
    return run_cli("sweep " + smoke + " --validate-only --validation-sample " + sample + " --db " + db + " --cache " +
                   (tmp / "cache"));
  };
  const auto one = sweep(tmp / "one.db", "1");
  ASSERT_EQ(one.code, 0) << one.out;
  EXPECT_NE(one.out.find("[softmax] validation sample: 3 of 10 configurations, at most 1 per family"),
            std::string::npos)
      << one.out;
  EXPECT_EQ(cuop::test::sqlite_rows(tmp / "one.db", "SELECT count(DISTINCT config_id), count(*) FROM builds"),
            std::vector<std::string>{"3|9"});
  const auto all = sweep(tmp / "all.db", "0");
  ASSERT_EQ(all.code, 0) << all.out;
  EXPECT_EQ(all.out.find("validation sample"), std::string::npos) << all.out;
  EXPECT_EQ(cuop::test::sqlite_rows(tmp / "all.db", "SELECT count(DISTINCT config_id) FROM builds"),
            std::vector<std::string>{"10"});
  EXPECT_EQ(sweep(tmp / "bad.db", "-1").code, 2);
}
