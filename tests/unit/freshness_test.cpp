// Results tied to the code that produced them: family source hashes, stale trials, and the
// acknowledgements of results/stale.txt.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "test_support.hpp"
#include "tuner/catalog/catalog.hpp"
#include "tuner/ops/family_sources.hpp"
#include "tuner/results/freshness.hpp"

namespace {

using namespace cuop;
namespace fs = std::filesystem;

TEST(family_sources, comments_and_blank_space_are_not_code) {
  const std::string a = "// a header\n#include <x.h>\nint  f() {  /* why */ return 1; }\n\n\n";
  const std::string b = "#include <x.h>\nint f() { return 1; }  // other words\n";
  EXPECT_EQ(ops::normalized_source(a), ops::normalized_source(b));
  EXPECT_EQ(ops::normalized_source(a), "#include <x.h>\nint f() { return 1; }\n");
  // Code changes do; so do the contents of literals, where // and /* are not comments.
  EXPECT_NE(ops::normalized_source("int f() { return 2; }"), ops::normalized_source("int f() { return 1; }"));
  EXPECT_EQ(ops::normalized_source("const char* s = \"a // b /* c\";"), "const char* s = \"a // b /* c\";\n");
  // A directive still ends at its line, with a comment spanning lines in between.
  EXPECT_EQ(ops::normalized_source("#define A 1 /* x\ny */ int z;"), "#define A 1\nint z;\n");
}

TEST(family_sources, the_closure_follows_project_headers_only) {
  test::scratch dir("cuop-family-sources");
  fs::create_directories(fs::path(dir.path) / "cuop/k");
  std::ofstream(dir / "cuop/k/a.cuh") << "#include \"cuop/k/b.cuh\"\n#include <cuda_fp16.h>\n";
  std::ofstream(dir / "cuop/k/b.cuh") << "  #  include <cuop/k/c.cuh>\n#include \"cuop/k/a.cuh\"\n";
  std::ofstream(dir / "cuop/k/c.cuh") << "int c;\n";
  std::ofstream(dir / "cuop/k/unused.cuh") << "int u;\n";
  EXPECT_EQ(ops::header_closure({"cuop/k/a.cuh"}, dir.path.string()),
            (std::vector<std::string>{"cuop/k/a.cuh", "cuop/k/b.cuh", "cuop/k/c.cuh"}));
  EXPECT_NE(test::error_of([&] {
              ops::header_closure({"cuop/k/missing.cuh"}, dir.path.string());
            }).find("cannot read kernel header \"cuop/k/missing.cuh\""),
            std::string::npos);
}

TEST(family_sources, every_kernel_family_has_a_hash_and_library_back_ends_none) {
  const auto gemm = ops::family_source_hashes(*catalog::find_op("gemm"));
  EXPECT_EQ(gemm.size(), 3u);  // mma, skinny, wgmma; not cublaslt
  for (const auto& [family, hash] : gemm) EXPECT_EQ(hash.size(), 16u) << family;
  const auto softmax = ops::family_source_hashes(*catalog::find_op("softmax"));
  EXPECT_EQ(softmax.size(), 5u);  // not custom: a user's kernel is hashed into its instance name
  EXPECT_EQ(ops::family_source_hashes(*catalog::find_op("softmax")), softmax);  // deterministic
}

results::result_file two_runs() {
  results::result_file f;
  f.path = "softmax/nvidia-h200.json";
  f.op = "softmax";
  f.runs.push_back({1, "2026-12-01T00:00:00Z", "s.yaml", "", "a", {{"block_row", "1111111111111111"}}});
  f.runs.push_back({2, "2026-12-02T00:00:00Z", "s.yaml", "", "b", {}});  // recorded none
  for (const auto& [family, run] : {std::pair{"block_row", 1}, {"block_row", 1}, {"warp_row", 1}, {"block_row", 2}}) {
    results::result_trial t;
    t.family = family;
    t.run = run;
    f.trials.push_back(t);
  }
  return f;
}

TEST(freshness, trials_of_changed_families_are_stale_per_run) {
  const auto f = two_runs();
  // Today's block_row is what run 1 measured; warp_row's hash is not what run 1 recorded (none).
  const auto groups = results::stale_groups(f, {{"block_row", "1111111111111111"}, {"warp_row", "2222222222222222"}});
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].family, "warp_row");
  EXPECT_EQ(groups[0].run, 1);
  EXPECT_EQ(groups[0].measured, "");
  EXPECT_EQ(groups[1].family, "block_row");
  EXPECT_EQ(groups[1].run, 2);
  EXPECT_EQ(groups[1].trials, 1u);
  EXPECT_EQ(results::describe(f.path, groups[1]),
            "softmax/nvidia-h200.json: 1 trial of family \"block_row\" (run 2) was measured on kernel sources that "
            "were not recorded (now 1111111111111111)");
  // block_row changed: run 1's two trials are stale too.
  EXPECT_EQ(results::stale_groups(f, {{"block_row", "3333333333333333"}})[0].trials, 2u);
  // Families without sources of ours (library back ends) are never stale.
  EXPECT_TRUE(results::stale_groups(f, {}).empty());
}

TEST(freshness, acknowledgements_name_both_hashes_and_a_reason) {
  test::scratch dir("cuop-stale");
  std::ofstream(dir / "stale.txt")
      << "# comment\n\nsoftmax split_row 1111111111111111 2222222222222222 not measured again\n"
         "gemm mma - 3333333333333333 recorded none\n";
  const auto acks = results::read_acknowledgements(dir / "stale.txt");
  ASSERT_EQ(acks.size(), 2u);
  EXPECT_EQ(acks[0].reason, "not measured again");
  EXPECT_EQ(acks[0].line, 3);
  EXPECT_EQ(acks[1].measured, "");
  EXPECT_TRUE(results::read_acknowledgements(dir / "none.txt").empty());
  std::ofstream(dir / "bad.txt") << "softmax split_row 1111111111111111 2222222222222222\n";
  EXPECT_EQ(test::error_of([&] { results::read_acknowledgements(dir / "bad.txt"); }),
            dir / "bad.txt" + ":1: expected OP FAMILY MEASURED CURRENT REASON (a hash \"-\" when none was recorded)");
}

}  // namespace
