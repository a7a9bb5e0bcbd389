// compare's output formats: the table, markdown for a pull request, JSON that parses, JUnit XML
// that is well-formed with one failure per SLOWER; warnings and approximations said in each.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tuner/core/error.hpp"
#include "tuner/gate/comparison.hpp"
#include "tuner/report/compare_report.hpp"
#include "xml_check.hpp"

namespace {

using namespace cuop;

std::vector<double> around(double us, double step) {
  std::vector<double> v;
  for (int i = -10; i <= 10; ++i) v.push_back(us + i * step);
  return v;
}

gate::measured_trial trial(const std::string& problem, const std::string& instance, double us, double step,
                           bool samples = true) {
  gate::measured_trial t;
  t.problem = problem;
  t.op = "softmax";
  t.instance = instance;
  t.median_us = us;
  t.ci_lo_us = us - 0.1;
  t.ci_hi_us = us + 0.1;
  t.sample_count = 21;
  if (samples) t.samples_us = around(us, step);
  return t;
}

gate::result_set set(const std::string& source, const std::string& gpu, std::vector<gate::measured_trial> trials) {
  gate::result_set s;
  s.source = source;
  s.envs.push_back({gpu, 132, "580.95", "13.0", "", "key", "hash", "rev"});
  s.trials = std::move(trials);
  return s;
}

// One of each verdict, a winner that changed, a problem on one side only, and a <&"> in a name
// to prove escaping.
gate::comparison mixed(bool other_gpu = false) {
  const auto base =
      set("base <&\"> .json", "NVIDIA H200",
          {trial("p_faster", "x", 100, 0.01), trial("p_noisy", "x", 100, 3), trial("p_same", "x", 100, 0.01),
           trial("p_slower", "x", 100, 0.01), trial("p_slower", "y", 105, 0.01), trial("p_gone", "x", 10, 0.01)});
  const auto cand =
      set("cand.db", other_gpu ? "NVIDIA A100-SXM4-80GB" : "NVIDIA H200",
          {trial("p_faster", "x", 80, 0.01), trial("p_noisy", "x", 103, 3), trial("p_same", "x", 100.2, 0.01, false),
           trial("p_slower", "x", 120, 0.01), trial("p_slower", "y", 110, 0.01)});
  gate::compare_options o;
  o.allow_different_env = other_gpu;
  return gate::compare(base, cand, o);
}

}  // namespace

TEST(compare_report, the_mixed_comparison_has_one_of_each_verdict) {
  const auto c = mixed();
  ASSERT_EQ(c.rows.size(), 4u);
  EXPECT_EQ(c.count(measure::verdict::faster), 1);
  EXPECT_EQ(c.count(measure::verdict::ambiguous), 1);
  EXPECT_EQ(c.count(measure::verdict::same), 1);
  EXPECT_EQ(c.count(measure::verdict::slower), 1);
  EXPECT_EQ(c.approximate_rows(), 1);
}

TEST(compare_report, table) {
  const auto out = report::render_table(mixed());
  EXPECT_NE(out.find("problem"), std::string::npos) << out;
  EXPECT_NE(out.find("p_slower"), std::string::npos) << out;
  EXPECT_NE(out.find("SLOWER"), std::string::npos) << out;
  EXPECT_NE(out.find("best: y (was x)"), std::string::npos) << out;
  EXPECT_NE(out.find("only in the baseline (1): p_gone"), std::string::npos) << out;
  EXPECT_NE(out.find("~ approximate interval (1 of 4 rows)"), std::string::npos) << out;
  EXPECT_NE(out.find("4 compared: 1 SLOWER, 1 FASTER, 1 SAME, 1 AMBIGUOUS (regression: exit code 3)"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("warning"), std::string::npos) << out;
}

TEST(compare_report, markdown_has_the_table_slowest_news_first) {
  const auto out = report::render_markdown(mixed());
  EXPECT_EQ(out.rfind("### cuop-tune compare: 1 SLOWER, 1 FASTER, 1 SAME, 1 AMBIGUOUS\n", 0), 0u) << out;
  const auto header = out.find(
      "| verdict | problem | baseline us | candidate us | ratio [95% CI] | limit | configuration |\n"
      "| --- | --- | ---: | ---: | --- | ---: | --- |\n");
  ASSERT_NE(header, std::string::npos) << out;
  const auto slower = out.find("| **SLOWER** | p_slower |"), ambiguous = out.find("| **AMBIGUOUS** | p_noisy |"),
             faster = out.find("| **FASTER** | p_faster |"), same = out.find("| SAME | p_same |");
  ASSERT_NE(same, std::string::npos) << out;
  EXPECT_LT(header, slower);
  EXPECT_LT(slower, ambiguous);
  EXPECT_LT(ambiguous, faster);
  EXPECT_LT(faster, same);
  EXPECT_NE(out.find("`y` (was `x`)"), std::string::npos) << out;
  EXPECT_NE(out.find("\\~"), std::string::npos) << out;  // the approximation mark, not strikethrough
}

TEST(compare_report, json_parses_and_carries_every_row) {
  const auto j = nlohmann::json::parse(report::render_json(mixed()));
  EXPECT_EQ(j["format"], "cuop-tune compare 1");
  EXPECT_EQ(j["summary"]["slower"], 1);
  EXPECT_EQ(j["summary"]["regression"], true);
  ASSERT_EQ(j["rows"].size(), 4u);
  const auto& slower = j["rows"][3];
  EXPECT_EQ(slower["problem"], "p_slower");
  EXPECT_EQ(slower["verdict"], "SLOWER");
  EXPECT_EQ(slower["candidate"]["instance"], "y");
  EXPECT_EQ(slower["baseline"]["instance"], "x");
  EXPECT_EQ(slower["method"], "bootstrap");
  EXPECT_LT(slower["ci"][0].get<double>(), slower["ratio"].get<double>());
  EXPECT_EQ(j["rows"][2]["method"], "normal_approximation");
  EXPECT_EQ(j["only_in_baseline"][0], "p_gone");
  EXPECT_EQ(j["settings"]["thresholds"]["compute"], 0.02);
  EXPECT_TRUE(j["warnings"].empty());
}

TEST(compare_report, junit_is_well_formed_with_a_failure_per_slower) {
  const auto xml = report::render_junit(mixed());
  const auto check = test::check_xml(xml);
  ASSERT_TRUE(check.ok) << check.problem << "\n" << xml;
  EXPECT_EQ(check.elements.at("testsuites"), 1);
  EXPECT_EQ(check.elements.at("testcase"), 5);  // 4 compared, 1 only in the baseline
  EXPECT_EQ(check.elements.at("failure"), 1);
  EXPECT_EQ(check.elements.at("skipped"), 2);  // the AMBIGUOUS one and the one-sided one
  EXPECT_NE(xml.find("tests=\"5\" failures=\"1\" errors=\"0\" skipped=\"2\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("base &lt;&amp;&quot;&gt; .json"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<failure type=\"SLOWER\" message=\"SLOWER: median 100.00 us -&gt; 110.00 us"), std::string::npos)
      << xml;
}

TEST(compare_report, a_warning_is_in_every_format) {
  const auto c = mixed(true);
  ASSERT_EQ(c.warnings.size(), 1u);
  const auto table = report::render_table(c);
  EXPECT_EQ(table.rfind("warning: comparing different environments", 0), 0u) << table;
  EXPECT_NE(report::render_markdown(c).find("> **warning:** comparing different environments"), std::string::npos);
  EXPECT_NE(
      nlohmann::json::parse(report::render_json(c))["warnings"][0].get<std::string>().find("NVIDIA A100-SXM4-80GB"),
      std::string::npos);
  const auto xml = report::render_junit(c);
  EXPECT_TRUE(test::check_xml(xml).ok);
  EXPECT_NE(xml.find("<property name=\"warning\" value=\"comparing different environments"), std::string::npos) << xml;
}

TEST(compare_report, formats_by_name) {
  EXPECT_EQ(report::parse_compare_format("junit"), report::compare_format::junit);
  EXPECT_THROW(report::parse_compare_format("yaml"), cuop::usage_error);
}
