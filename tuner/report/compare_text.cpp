// compare's terminal table and markdown; the format switch.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "tuner/core/error.hpp"
#include "tuner/core/text.hpp"
#include "tuner/report/compare_phrases.hpp"
#include "tuner/report/compare_report.hpp"

namespace cuop::report {

using measure::verdict;

namespace {

std::string configuration(const gate::comparison_row& r, bool markdown) {
  const auto quote = [markdown](const std::string& s) { return markdown ? "`" + s + "`" : s; };
  if (!r.winner) return quote(r.candidate.instance);
  if (r.candidate.instance == r.baseline.instance) return "best: " + quote(r.candidate.instance);
  return fmt::format("best: {} (was {})", quote(r.candidate.instance), quote(r.baseline.instance));
}

std::string problems_line(const char* label, const std::vector<std::string>& problems) {
  if (problems.empty()) return "";
  return fmt::format("{} ({}): {}\n", label, problems.size(), fmt::join(problems, ", "));
}

// SLOWER first, then what needs a look, then the rest: a pull request's reader sees the news.
int severity(verdict v) {
  switch (v) {
    case verdict::slower: return 0;
    case verdict::ambiguous: return 1;
    case verdict::faster: return 2;
    case verdict::same: return 3;
  }
  return 3;
}

}  // namespace

compare_format parse_compare_format(std::string_view name) {
  if (name == "table") return compare_format::table;
  if (name == "markdown") return compare_format::markdown;
  if (name == "json") return compare_format::json;
  if (name == "junit") return compare_format::junit;
  if (name == "csv") return compare_format::csv;
  throw usage_error(fmt::format("unknown format \"{}\" (expected one of: table, markdown, json, junit, csv)", name));
}

std::string render_comparison(const gate::comparison& c, compare_format format) {
  switch (format) {
    case compare_format::table: return render_table(c);
    case compare_format::markdown: return render_markdown(c);
    case compare_format::json: return render_json(c);
    case compare_format::junit: return render_junit(c);
    case compare_format::csv: return render_csv(c);
  }
  return render_table(c);
}

std::string render_table(const gate::comparison& c) {
  std::string out;
  for (const auto& w : c.warnings) out += "warning: " + w + "\n";
  out += fmt::format("baseline:  {}  {}\ncandidate: {}  {}\n\n", core::printable(c.baseline_source),
                     detail::describe_envs(c.baseline_envs), core::printable(c.candidate_source),
                     detail::describe_envs(c.candidate_envs));
  std::size_t width = 7;
  for (const auto& r : c.rows) width = std::max(width, r.problem.size());
  // `gate` adds how many times each row was measured again.
  const auto retries = [&](const std::string& s) { return c.gate ? fmt::format("{:>7}  ", s) : ""; };
  out += fmt::format("{:<{}}  {:>11}  {:>12}  {:<24}  {:>8}  {:<9}  {}{}\n", "problem", width, "baseline us",
                     "candidate us", "ratio [95% CI]", "limit", "verdict", retries("retries"), "configuration");
  for (const auto& r : c.rows)
    out += fmt::format("{:<{}}  {:>11.2f}  {:>12.2f}  {:<24}  {:>8}  {:<9}  {}{}\n", r.problem, width,
                       r.baseline.median_us, r.candidate.median_us, detail::interval_text(r), detail::limit_text(r),
                       measure::verdict_name(r.verdict), retries(std::to_string(r.retries)), configuration(r, false));
  out += "\n" + problems_line("only in the baseline", c.only_in_baseline);
  out += problems_line("only in the candidate", c.only_in_candidate);
  out += problems_line("not compared (timed differently)", c.measured_differently);
  if (const auto note = detail::approximation_note(c); !note.empty()) out += note + "\n";
  out += detail::settings_text(c) + "\n";
  if (const auto gate = detail::gate_text(c); !gate.empty()) out += gate + "\n";
  out += fmt::format("{} compared: {}{}\n", c.rows.size(), detail::verdict_counts(c),
                     c.regression() ? " (regression: exit code 3)" : "");
  return out;
}

std::string render_markdown(const gate::comparison& c) {
  std::string out = fmt::format("### {}: {}\n\n", detail::title(c), detail::verdict_counts(c));
  for (const auto& w : c.warnings) out += "> **warning:** " + w + "\n\n";
  out += fmt::format("Baseline `{}`: {}. Candidate `{}`: {}.\n\n", core::printable(c.baseline_source),
                     detail::describe_envs(c.baseline_envs), core::printable(c.candidate_source),
                     detail::describe_envs(c.candidate_envs));
  out += c.gate
             ? "| verdict | problem | baseline us | candidate us | ratio [95% CI] | limit | retries | configuration |\n"
               "| --- | --- | ---: | ---: | --- | ---: | ---: | --- |\n"
             : "| verdict | problem | baseline us | candidate us | ratio [95% CI] | limit | configuration |\n"
               "| --- | --- | ---: | ---: | --- | ---: | --- |\n";
  std::vector<const gate::comparison_row*> rows;
  for (const auto& r : c.rows) rows.push_back(&r);
  std::ranges::stable_sort(rows, {}, [](const auto* r) { return severity(r->verdict); });
  for (const auto* r : rows) {
    const auto name = measure::verdict_name(r->verdict);
    auto interval = detail::interval_text(*r);
    if (interval.ends_with('~')) interval.insert(interval.size() - 1, "\\");  // not strikethrough
    out += fmt::format("| {} | {} | {:.2f} | {:.2f} | {} | {} | {}{} |\n",
                       r->verdict == verdict::same ? std::string(name) : fmt::format("**{}**", name), r->problem,
                       r->baseline.median_us, r->candidate.median_us, interval, detail::limit_text(*r),
                       c.gate ? fmt::format("{} | ", r->retries) : "", configuration(*r, true));
  }
  out += "\n";
  for (const auto& line : {problems_line("Only in the baseline", c.only_in_baseline),
                           problems_line("Only in the candidate", c.only_in_candidate),
                           problems_line("Not compared (timed differently)", c.measured_differently)})
    if (!line.empty()) out += line + "\n";
  if (const auto note = detail::approximation_note(c); !note.empty())
    out += "\\" + note + "\n\n";  // its leading "~" escaped
  out += "<sub>" + detail::settings_text(c) + "</sub>\n";
  if (const auto gate = detail::gate_text(c); !gate.empty()) out += "\n<sub>" + gate + "</sub>\n";
  return out;
}

}  // namespace cuop::report
