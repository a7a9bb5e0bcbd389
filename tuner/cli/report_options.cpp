#include "tuner/cli/report_options.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "tuner/cli/validators.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/files.hpp"
#include "tuner/core/text.hpp"
#include "tuner/report/compare_report.hpp"

namespace cuop::cli {

gate::compare_options report_options::resolved() const {
  auto c = compare;
  c.limits.compute = compute_pct / 100;
  c.limits.memory = memory_pct / 100;
  c.limits.short_kernel = short_pct / 100;
  return c;
}

void add_report_options(CLI::App& cmd, report_options& o) {
  auto& limits = o.compare.limits;
  cmd.add_option("--format", o.format, "table (default), markdown, json, junit or csv")
      ->check(CLI::IsMember({"table", "markdown", "json", "junit", "csv"}));
  cmd.add_option("--output", o.output, "Write the report to FILE instead of stdout")->check(non_empty_path());
  cmd.add_flag("--per-config", o.compare.per_config, "Also compare each configuration verified on both sides");
  cmd.add_option("--threshold-compute", o.compute_pct,
                 "Percent change that matters for compute-bound kernels (default 2)")
      ->transform(number_in(0, 100, false, "a percentage"));
  cmd.add_option("--threshold-memory", o.memory_pct, "Percent change that matters for memory-bound kernels (default 3)")
      ->transform(number_in(0, 100, false, "a percentage"));
  cmd.add_option("--threshold-short", o.short_pct, "Percent change that matters for short kernels (default 5)")
      ->transform(number_in(0, 100, false, "a percentage"));
  cmd.add_option("--short-below-us", limits.short_below_us,
                 "A kernel is short when its baseline median is under this (default 20)")
      ->transform(number_in(0, max_microseconds));
  cmd.add_option("--floor-us", limits.floor_us,
                 "A difference of medians under this many microseconds never counts (default 1)")
      ->transform(number_in(0, max_microseconds));
  cmd.add_option("--resamples", o.compare.bootstrap.resamples, "Bootstrap resamples (default 5000)")
      ->transform(whole_number(100, 1000000));
  cmd.add_option("--seed", o.compare.bootstrap.seed, "Bootstrap seed (default 1)")->transform(unsigned_64());
  cmd.add_flag("--allow-different-env", o.compare.allow_different_env,
               "Compare results from different GPU models or environments, with a warning");
}

int deliver_report(const gate::comparison& c, const report_options& o) {
  const auto format = report::parse_compare_format(o.format);
  auto text = report::render_comparison(c, format);
  // Names come from files anyone can write (results files, databases): the text formats show
  // them escaped; JSON and JUnit escape their own.
  if (o.format == "table" || o.format == "markdown") text = core::printable_lines(text);
  if (o.output.empty()) {
    fmt::print("{}", text);
    // CSV has no place for the warnings the other formats carry.
    if (format == report::compare_format::csv)
      for (const auto& w : c.warnings) fmt::print(stderr, "cuop-tune: warning: {}\n", core::printable(w));
  } else {
    core::write_atomically(o.output, text);
    // The file has everything; the log still shows what a CI job decided and any warning.
    for (const auto& w : c.warnings) fmt::print(stderr, "cuop-tune: warning: {}\n", core::printable(w));
    fmt::print("{} compared: {} SLOWER, {} FASTER, {} SAME, {} AMBIGUOUS; written to {}\n", c.rows.size(),
               c.count(measure::verdict::slower), c.count(measure::verdict::faster), c.count(measure::verdict::same),
               c.count(measure::verdict::ambiguous), core::printable(o.output));
  }
  return c.regression() ? exit_code::regression : exit_code::ok;
}

}  // namespace cuop::cli
