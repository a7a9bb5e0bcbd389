// `best` and `export` without --op: the op the database holds, or every one of them (export);
// `best` refuses to guess between several.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli_support.hpp"

using cuop::test::run_cli;
using cuop::test::temp_dir;

namespace {

const std::string smoke = std::string(CUOP_SOURCE_DIR) + "/configs/softmax-smoke.yaml";

// One skinny GEMM configuration for one problem: a second op in the database, cheap to compile.
std::string write_gemm_spec(const std::string& dir) {
  const std::string path = dir + "/gemm-one.yaml";
  std::ofstream(path) << "op: gemm\n"
                         "problems:\n"
                         "  - {m: 1, n: 4096, k: 4096, dtype: bf16}\n"
                         "candidates:\n"
                         "  - family: skinny\n"
                         "    params: {block_n: [8], threads: [256], m_tile: [1], k_chunk: [32], split_k: [1]}\n"
                         "targets: [sm_90a]\n";
  return path;
}

}  // namespace

TEST(cli_default_op, export_writes_every_op_and_best_asks_which) {
  temp_dir tmp;
  const auto db = tmp / "two.db";
  const auto cache = tmp / "cache";
  ASSERT_EQ(run_cli("sweep --validate-only --db " + db + " --cache " + cache + " " + smoke).code, 0);
  const auto only_softmax = run_cli("best --db " + db);
  EXPECT_EQ(only_softmax.code, 0) << only_softmax.out;  // one op: no need to name it

  const auto gemm =
      run_cli("sweep --validate-only --db " + db + " --cache " + cache + " " + write_gemm_spec(tmp.path.string()));
  ASSERT_EQ(gemm.code, 0) << gemm.out;
  const auto exported = run_cli("export --db " + db + " --out " + (tmp / "results"));
  ASSERT_EQ(exported.code, 0) << exported.out;
  EXPECT_TRUE(std::filesystem::exists(tmp / "results/softmax/validation.json")) << exported.out;
  EXPECT_TRUE(std::filesystem::exists(tmp / "results/gemm/validation.json")) << exported.out;

  const auto ambiguous = run_cli("best --db " + db);
  EXPECT_EQ(ambiguous.code, 2) << ambiguous.out;
  EXPECT_NE(ambiguous.out.find("several ops (softmax, gemm): name one with --op"), std::string::npos) << ambiguous.out;
  EXPECT_EQ(run_cli("best --db " + db + " --op gemm").code, 0);
}
