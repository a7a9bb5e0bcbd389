// The bad-input catalogue, more of each command as a hostile user tries it (issue 36, item 3):
// names from a database shown escaped in every report, outputs that are not regular files, a
// value too long to quote whole, an export that writes nothing.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include <string>

#include "bad_input_support.hpp"
#include "results_database.hpp"
#include "sqlite_rows.hpp"

namespace {

using namespace cuop::test::bad_input;

// A database of the compare fixtures whose GPU, instance and problem names hold a terminal escape
// (a database is anyone's file: `best` and `compare` read it as it is).
std::string database_with_escapes(const temp_dir& tmp) {
  const auto db = tmp / "escapes.db";
  cuop::test::database_from_results(compare_fixtures + "/baseline", db);
  exec_sql(db,
           "UPDATE runs SET gpu_name = gpu_name || char(27) || '[2J';"
           "UPDATE configs SET instance = instance || char(27) || ']0;title' || char(7);");
  return db;
}

TEST(bad_input_commands, best_shows_names_from_a_database_escaped) {
  temp_dir tmp;
  const auto db = database_with_escapes(tmp);
  for (const char* format : {"table", "markdown"}) {
    const auto r = run(std::string("best --op softmax --format ") + format + " --db " + db);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << format;
    EXPECT_EQ(r.out.find('\x07'), std::string::npos) << format;
    EXPECT_NE(r.out.find("NVIDIA H200\\x1b[2J"), std::string::npos) << format << r.out;
    EXPECT_NE(r.out.find("\\x1b]0;title\\x07"), std::string::npos) << format << r.out;
  }
  const auto json = run("best --op softmax --format json --db " + db);  // JSON escapes them itself
  ASSERT_EQ(json.code, 0) << json.err;
  EXPECT_EQ(json.out.find('\x1b'), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(json.out)[0]["gpu"], "NVIDIA H200\x1b[2J");
}

TEST(bad_input_commands, compare_shows_names_from_a_database_escaped) {
  temp_dir tmp;
  const auto db = database_with_escapes(tmp);
  for (const char* format : {"table", "markdown", "junit", "json"}) {
    const auto r = run(std::string("compare --format ") + format + " " + db + " " + db);
    EXPECT_EQ(r.code, 0) << format << r.err;
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << format;
    EXPECT_EQ(r.out.find('\x07'), std::string::npos) << format;
  }
}

// An output that is not a regular file is refused, not replaced: as root, compare --output
// /dev/full renamed its temporary file over the device and said "written to /dev/full". (A FIFO
// stands in for the device here.)
TEST(bad_input_commands, compare_output_that_is_not_a_regular_file) {
  temp_dir tmp;
  const auto fifo = tmp / "report.txt";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const auto sides = " " + compare_fixtures + "/baseline " + compare_fixtures + "/same";
  auto r = run("compare --output " + fifo + sides, "timeout 30 ");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "cuop-tune: error: " + fifo + ": cannot write (it is a FIFO, not a regular file)\n");
  struct stat st {};
  ASSERT_EQ(stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced";
  fs::create_directory(tmp / "folder");
  r = run("compare --output " + (tmp / "folder") + sides);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "cuop-tune: error: " + (tmp / "folder") + ": cannot write (it is a folder, not a regular file)\n");
}

// export of an op the database has no trial of wrote nothing and said nothing.
TEST(bad_input_commands, export_that_writes_nothing_says_so) {
  temp_dir tmp;
  const auto r = run("export --op gemm --db " + h200_db + " --out " + (tmp / "results"));
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "cuop-tune: " + h200_db + ": no trial of op \"gemm\" to export: nothing written\n");
  EXPECT_FALSE(fs::exists(tmp / "results"));
}

// A value of 100000 bytes is quoted in part, with its size: a 16 MiB key is not a 16 MiB message.
TEST(bad_input_commands, a_very_long_value_is_quoted_in_part) {
  expect_sweep_file_error("op: \"" + std::string(100000, 'a') + "\"\n",
                          "1:5: unknown op \"" + std::string(160, 'a') +
                              "...\" (100000 bytes) (expected one of: "
                              "softmax, gemm, conv2d, layernorm, rmsnorm, groupnorm)");
}

}  // namespace
