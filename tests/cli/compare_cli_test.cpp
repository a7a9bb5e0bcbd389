// cuop-tune compare on the fixtures of tests/data/compare/ (generate.py says what each holds):
// exit codes, each output format, the environment check, databases and old results files.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include "../unit/xml_check.hpp"
#include "cli_support.hpp"
#include "results_database.hpp"

using cuop::test::read_file;
using cuop::test::run_cli;
using cuop::test::temp_dir;

namespace {

const std::string fixtures = std::string(CUOP_TEST_DATA_DIR) + "/compare";
const std::string baseline = fixtures + "/baseline";

// Standard output alone (run_cli merges stderr), for formats that must parse.
std::string stdout_of(const std::string& args) {
  std::string out;
  FILE* pipe = popen((std::string(CUOP_TUNE_BIN) + " " + args + " 2>/dev/null").c_str(), "r");
  if (!pipe) return out;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe)) out += buffer;
  pclose(pipe);
  return out;
}

}  // namespace

TEST(cli_compare, a_a_results_are_same_and_exit_0) {
  const auto r = run_cli("compare " + baseline + " " + fixtures + "/same");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("3 compared: 0 SLOWER, 0 FASTER, 3 SAME, 0 AMBIGUOUS"), std::string::npos) << r.out;
}

TEST(cli_compare, a_slowdown_exits_3_and_names_the_problem) {
  const auto r = run_cli("compare " + baseline + " " + fixtures + "/slower");
  EXPECT_EQ(r.code, 3) << r.out;
  const auto line = r.out.find("softmax_f32_4096x4096");
  ASSERT_NE(line, std::string::npos) << r.out;
  EXPECT_NE(r.out.substr(line, r.out.find('\n', line) - line).find("SLOWER"), std::string::npos) << r.out;
}

TEST(cli_compare, databases_compare_like_their_results_files) {
  temp_dir tmp;
  cuop::test::database_from_results(fixtures + "/slower", tmp / "slower.db");
  cuop::test::database_from_results(baseline, tmp / "baseline.db");
  EXPECT_EQ(run_cli("compare " + baseline + " " + (tmp / "slower.db")).code, 3);
  EXPECT_EQ(run_cli("compare " + (tmp / "baseline.db") + " " + (tmp / "slower.db")).code, 3);
  const auto same = run_cli("compare " + (tmp / "baseline.db") + " " + fixtures + "/same");
  EXPECT_EQ(same.code, 0) << same.out;
  EXPECT_EQ(same.out.find("approximate"), std::string::npos) << same.out;  // samples on both sides
  const auto one_op = run_cli("compare --op gemm " + (tmp / "baseline.db") + " " + fixtures + "/slower");
  EXPECT_EQ(one_op.code, 0) << one_op.out;
  EXPECT_NE(one_op.out.find("1 compared"), std::string::npos) << one_op.out;
}

TEST(cli_compare, export_keeps_the_winners_samples_and_compares_as_its_database) {
  temp_dir tmp;
  cuop::test::database_from_results(baseline, tmp / "baseline.db");
  for (const char* op : {"softmax", "gemm"})
    ASSERT_EQ(
        run_cli("export --op " + std::string(op) + " --db " + (tmp / "baseline.db") + " --out " + (tmp / "results"))
            .code,
        0);
  const auto softmax = read_file(tmp / "results/softmax/nvidia-h200.json");
  // Three trials, two winners: only the winners' lines carry samples by default.
  std::size_t with_samples = 0;
  for (std::size_t at = softmax.find("\"samples_us\""); at != std::string::npos;
       at = softmax.find("\"samples_us\"", at + 1))
    ++with_samples;
  EXPECT_EQ(with_samples, 2u) << softmax;
  const auto r = run_cli("compare " + (tmp / "baseline.db") + " " + (tmp / "results"));
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("3 SAME"), std::string::npos) << r.out;
  ASSERT_EQ(run_cli("export --samples none --db " + (tmp / "baseline.db") + " --out " + (tmp / "bare")).code, 0);
  EXPECT_EQ(read_file(tmp / "bare/softmax/nvidia-h200.json").find("samples_us"), std::string::npos);
  EXPECT_EQ(run_cli("export --samples some --db " + (tmp / "baseline.db")).code, 2);
}

TEST(cli_compare, json_output_parses) {
  const auto j = nlohmann::json::parse(stdout_of("compare --format json " + baseline + " " + fixtures + "/slower"));
  EXPECT_EQ(j["summary"]["slower"], 1);
  EXPECT_EQ(j["summary"]["compared"], 3);
  EXPECT_EQ(j["baseline"]["environments"][0]["gpu"], "NVIDIA H200");
}

TEST(cli_compare, junit_to_a_file_is_well_formed_and_counts_the_failure) {
  temp_dir tmp;
  const auto r =
      run_cli("compare --format junit --output " + (tmp / "report.xml") + " " + baseline + " " + fixtures + "/slower");
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.out.find("1 SLOWER"), std::string::npos) << r.out;  // the log still says
  const auto xml = read_file(tmp / "report.xml");
  const auto check = cuop::test::check_xml(xml);
  ASSERT_TRUE(check.ok) << check.problem << "\n" << xml;
  EXPECT_EQ(check.elements.at("testcase"), 3);
  EXPECT_EQ(check.elements.at("failure"), 1);
  EXPECT_NE(xml.find("failures=\"1\""), std::string::npos) << xml;
}

TEST(cli_compare, csv_has_a_header_and_a_row_per_problem) {
  const auto r = run_cli("compare --format csv " + baseline + " " + fixtures + "/slower");
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_EQ(r.out.rfind("problem,op,compared,baseline_instance,baseline_median_us,candidate_instance,"
                        "candidate_median_us,ratio,ci_lo,ci_hi,method,class,effective_threshold,verdict\r\n",
                        0),
            0u)
      << r.out;
  EXPECT_NE(r.out.find("softmax_f32_4096x4096,softmax,winner,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(",SLOWER\r\n"), std::string::npos) << r.out;
  std::size_t lines = 0;
  for (std::size_t at = r.out.find("\r\n"); at != std::string::npos; at = r.out.find("\r\n", at + 2)) ++lines;
  EXPECT_EQ(lines, 4u) << r.out;  // the header and the three compared problems
}

TEST(cli_compare, markdown_has_the_table) {
  const auto md = stdout_of("compare --format markdown " + baseline + " " + fixtures + "/slower");
  EXPECT_NE(md.find("| verdict | problem |"), std::string::npos) << md;
  EXPECT_NE(md.find("| **SLOWER** | softmax_f32_4096x4096 |"), std::string::npos) << md;
}

TEST(cli_compare, other_gpus_are_refused_unless_allowed_and_then_said_in_every_format) {
  const auto refused = run_cli("compare " + baseline + " " + fixtures + "/other-gpu");
  EXPECT_EQ(refused.code, 1);
  EXPECT_EQ(refused.out.rfind("cuop-tune: error: ", 0), 0u) << refused.out;
  EXPECT_NE(refused.out.find("NVIDIA H200"), std::string::npos) << refused.out;
  EXPECT_NE(refused.out.find("NVIDIA A100-SXM4-80GB"), std::string::npos) << refused.out;
  for (const char* format : {"table", "markdown", "json", "junit"}) {
    const auto out = stdout_of(std::string("compare --allow-different-env --format ") + format + " " + baseline + " " +
                               fixtures + "/other-gpu");
    EXPECT_NE(out.find("comparing different environments"), std::string::npos) << format << "\n" << out;
  }
}

TEST(cli_compare, old_results_files_without_samples_are_compared_approximately) {
  const auto r = run_cli("compare " + fixtures + "/no-samples " + fixtures + "/same");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("approximate interval (3 of 3 rows)"), std::string::npos) << r.out;
}

TEST(cli_compare, the_committed_results_compare_with_themselves_without_a_change) {
  const std::string results = std::string(CUOP_SOURCE_DIR) + "/results";
  // Some problems (the GEMM region grid) were measured on two GPU models: each compares alone,
  // and without --gpu the command says so.
  for (const std::string gpu : {"nvidia-h200", "nvidia-h100-80gb-hbm3"}) {
    const auto sides = " --gpu " + gpu + " " + results + " " + results;
    EXPECT_EQ(run_cli("compare" + sides).code, 0) << gpu;
    const auto j = nlohmann::json::parse(stdout_of("compare --format json" + sides));
    EXPECT_GT(j["summary"]["compared"].get<int>(), 0) << gpu;
    EXPECT_EQ(j["summary"]["slower"], 0) << gpu;
    EXPECT_EQ(j["summary"]["faster"], 0) << gpu;
  }
  const auto r = run_cli("compare " + results + " " + results);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("choose one with --gpu"), std::string::npos) << r.out;
}

TEST(cli_compare, usage_and_input_errors) {
  EXPECT_EQ(run_cli("compare " + baseline).code, 2);                         // one side
  EXPECT_EQ(run_cli("compare " + baseline + " /nonexistent/x.db").code, 2);  // missing file
  EXPECT_EQ(run_cli("compare --format yaml " + baseline + " " + baseline).code, 2);
  EXPECT_EQ(run_cli("compare --threshold-compute -1 " + baseline + " " + baseline).code, 2);
  const auto unrelated = run_cli("compare " + baseline + " " + std::string(CUOP_SOURCE_DIR) + "/README.md");
  EXPECT_EQ(unrelated.code, 1);
  EXPECT_NE(unrelated.out.find("README.md: not a results file"), std::string::npos) << unrelated.out;
  const auto disjoint =
      run_cli("compare --op softmax " + baseline + " " + fixtures + "/no-samples/gemm/nvidia-h200.json");
  EXPECT_EQ(disjoint.code, 1);
  EXPECT_NE(disjoint.out.find("no verified results of op \"softmax\""), std::string::npos) << disjoint.out;
}

TEST(cli_compare, thresholds_are_options) {
  // A 10% slowdown under a 15% memory-bound threshold is no regression.
  const auto r = run_cli("compare --threshold-memory 15 " + baseline + " " + fixtures + "/slower");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("memory 15%"), std::string::npos) << r.out;
}
