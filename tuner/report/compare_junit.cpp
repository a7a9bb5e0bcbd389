// compare's JUnit XML, for CI systems' test reports: one testcase per compared row (classname
// the op, name the problem, plus the configuration for --per-config rows). SLOWER is a
// <failure>; AMBIGUOUS is <skipped> (not decided: neither a pass nor a regression, and CI
// systems show it apart); a problem verified on one side only is <skipped> too. Warnings and
// the settings are suite <properties>.
#include <fmt/format.h>

#include "tuner/core/text.hpp"
#include "tuner/report/compare_phrases.hpp"
#include "tuner/report/compare_report.hpp"

namespace cuop::report {

namespace {

using measure::verdict;

// Text and attribute values. XML 1.0 allows no control characters but tab and newline, and the
// document must be UTF-8: a value (a path as given, a name from a results file) goes through
// core::printable first, which writes those and any invalid byte as visible escapes.
std::string xml(std::string_view s) {
  std::string out;
  for (char ch : core::printable(s)) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += ch;
    }
  }
  return out;
}

std::string property(std::string_view name, std::string_view value) {
  return fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", xml(name), xml(value));
}

std::string testcase(const gate::comparison_row& r, bool gate) {
  const auto name = r.winner ? r.problem : r.problem + " " + r.candidate.instance;
  const auto reason = detail::verdict_reason(r);
  std::string body;
  if (r.verdict == verdict::slower)
    body = fmt::format("      <failure type=\"SLOWER\" message=\"{}\"/>\n", xml("SLOWER: " + reason));
  else if (r.verdict == verdict::ambiguous)
    body = fmt::format("      <skipped message=\"{}\"/>\n", xml("AMBIGUOUS: " + reason));
  const auto config = r.winner && r.baseline.instance != r.candidate.instance
                          ? fmt::format("best: {} (was {})", r.candidate.instance, r.baseline.instance)
                          : r.candidate.instance;
  const auto retried = gate ? fmt::format("; measured again {} time{}", r.retries, r.retries == 1 ? "" : "s") : "";
  body += fmt::format("      <system-out>{}</system-out>\n",
                      xml(fmt::format("{}: {}; {}{}", measure::verdict_name(r.verdict), reason, config, retried)));
  return fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"0\">\n{}    </testcase>\n", xml(r.op),
                     xml(name), body);
}

std::string skipped_case(const std::string& problem, const std::string& why) {
  return fmt::format(
      "    <testcase classname=\"compare\" name=\"{}\" time=\"0\">\n"
      "      <skipped message=\"{}\"/>\n    </testcase>\n",
      xml(problem), xml(why));
}

std::string one_sided(const std::string& problem, const char* missing_from) {
  return skipped_case(problem, fmt::format("no verified result in the {}", missing_from));
}

}  // namespace

std::string render_junit(const gate::comparison& c) {
  const auto one_sided_count = c.only_in_baseline.size() + c.only_in_candidate.size() + c.measured_differently.size();
  const auto tests = c.rows.size() + one_sided_count;
  const auto failures = c.count(verdict::slower);
  const auto skipped = c.count(verdict::ambiguous) + one_sided_count;
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format(
      "<testsuites name=\"{3}\" tests=\"{0}\" failures=\"{1}\" errors=\"0\" "
      "skipped=\"{2}\">\n  <testsuite name=\"{3}\" tests=\"{0}\" failures=\"{1}\" "
      "errors=\"0\" skipped=\"{2}\">\n    <properties>\n",
      tests, failures, skipped, detail::title(c));
  out += property("baseline", c.baseline_source + ": " + detail::describe_envs(c.baseline_envs));
  out += property("candidate", c.candidate_source + ": " + detail::describe_envs(c.candidate_envs));
  out += property("settings", detail::settings_text(c));
  out += property("summary", detail::verdict_counts(c));
  if (const auto gate = detail::gate_text(c); !gate.empty()) out += property("gate", gate);
  for (const auto& w : c.warnings) out += property("warning", w);
  if (const auto note = detail::approximation_note(c); !note.empty()) out += property("approximation", note);
  out += "    </properties>\n";
  for (const auto& r : c.rows) out += testcase(r, c.gate.has_value());
  for (const auto& p : c.only_in_baseline) out += one_sided(p, "candidate");
  for (const auto& p : c.only_in_candidate) out += one_sided(p, "baseline");
  for (const auto& p : c.measured_differently)
    out += skipped_case(p, "timed in CUDA-graph batches on one side, single launches on the other");
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace cuop::report
