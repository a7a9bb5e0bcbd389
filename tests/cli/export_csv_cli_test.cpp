// `export --format csv`: the trials export selects, one row each, under <op>/<gpu>.csv; the JSON
// results are untouched and --update is refused (a CSV is written whole).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "cli_support.hpp"

using cuop::test::read_file;
using cuop::test::run_cli;
using cuop::test::temp_dir;

namespace {

const std::string h200_db = std::string(CUOP_SOURCE_DIR) + "/tests/data/store/h200-softmax.db";

}  // namespace

TEST(cli_export_csv, writes_the_exported_trials_as_rows) {
  temp_dir tmp;
  const auto json = run_cli("export --db " + h200_db + " --out " + (tmp / "json"));
  ASSERT_EQ(json.code, 0) << json.out;
  const auto csv = run_cli("export --db " + h200_db + " --out " + (tmp / "csv") + " --format csv");
  ASSERT_EQ(csv.code, 0) << csv.out;
  const auto path = tmp / "csv/softmax/nvidia-h200.csv";
  EXPECT_NE(csv.out.find(path), std::string::npos) << csv.out;
  EXPECT_FALSE(std::filesystem::exists(tmp / "csv/softmax/nvidia-h200.json"));
  const std::string text = read_file(path);
  const std::string header =
      "gpu,problem,dtype,rows,cols,family,instance,params,status,median_us,min_us,q1_us,q3_us,ci_lo_us,ci_hi_us,"
      "samples,batch,gbps,run\r\n";
  ASSERT_EQ(text.rfind(header, 0), 0u) << text.substr(0, 300);
  // One row per trial of the JSON export (its trial lines are the ones with a median).
  const std::string exported = read_file(tmp / "json/softmax/nvidia-h200.json");
  std::size_t trials = 0;
  for (auto at = exported.find("\"median_us\":"); at != std::string::npos; at = exported.find("\"median_us\":", at + 1))
    ++trials;
  const auto rows = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  ASSERT_GT(trials, 0u);
  EXPECT_EQ(rows, trials + 1);
  EXPECT_NE(text.find("\r\nNVIDIA H200,softmax_"), std::string::npos);
  EXPECT_NE(text.find(",ok,"), std::string::npos);
}

TEST(cli_export_csv, refuses_update) {
  temp_dir tmp;
  const auto r = run_cli("export --db " + h200_db + " --out " + (tmp / "csv") + " --format csv --update");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--update and --add apply to results files (--format json): a CSV export is written whole"),
            std::string::npos)
      << r.out;
  EXPECT_FALSE(std::filesystem::exists(tmp / "csv"));
  const auto add = run_cli("export --db " + h200_db + " --out " + (tmp / "csv") + " --format csv --add");
  EXPECT_EQ(add.code, 2) << add.out;
  EXPECT_FALSE(std::filesystem::exists(tmp / "csv"));
  // --add and --update exclude each other.
  const auto both = run_cli("export --db " + h200_db + " --out " + (tmp / "json") + " --update --add");
  EXPECT_EQ(both.code, 2) << both.out;
  EXPECT_FALSE(std::filesystem::exists(tmp / "json"));
}
