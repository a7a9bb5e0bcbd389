// cuop-tune compare BASELINE CANDIDATE: per problem, the ratio of the winners' medians with a
// bootstrap 95% interval and a verdict; exit code 3 when anything is SLOWER (docs/cli.md).
#include <fmt/format.h>

#include <cstdio>

#include "tuner/cli/commands.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/files.hpp"
#include "tuner/gate/comparison.hpp"
#include "tuner/ops/registry.hpp"
#include "tuner/report/compare_report.hpp"

namespace cuop::cli {

namespace {

struct compare_cli {
  std::string baseline, candidate;
  std::string format = "table";
  std::string output;
  std::string op, gpu;
  gate::compare_options options;
  // Thresholds are given in percent on the command line, kept as fractions.
  double compute_pct = 2, memory_pct = 3, short_pct = 5;
};

int run_compare(compare_cli& o) {
  const auto format = report::parse_compare_format(o.format);
  o.options.limits.compute = o.compute_pct / 100;
  o.options.limits.memory = o.memory_pct / 100;
  o.options.limits.short_kernel = o.short_pct / 100;
  const gate::load_options load{o.op, o.gpu};
  const auto baseline = gate::load_result_set(o.baseline, load);
  const auto candidate = gate::load_result_set(o.candidate, load);
  const auto result = gate::compare(baseline, candidate, o.options);
  const auto text = report::render_comparison(result, format);
  if (o.output.empty()) {
    fmt::print("{}", text);
  } else {
    core::write_atomically(o.output, text);
    // The file has everything; the log still shows what a CI job decided and any warning.
    for (const auto& w : result.warnings) fmt::print(stderr, "cuop-tune: warning: {}\n", w);
    fmt::print("{} compared: {} SLOWER, {} FASTER, {} SAME, {} AMBIGUOUS; written to {}\n",
               result.rows.size(), result.count(measure::verdict::slower),
               result.count(measure::verdict::faster), result.count(measure::verdict::same),
               result.count(measure::verdict::ambiguous), o.output);
  }
  return result.regression() ? exit_code::regression : exit_code::ok;
}

}  // namespace

void add_compare(CLI::App& app, action& run) {
  auto* cmd = app.add_subcommand(
      "compare", "Compare two result sets (databases or results files); exit 3 if anything is SLOWER");
  auto o = std::make_shared<compare_cli>();
  auto& limits = o->options.limits;
  cmd->add_option("baseline", o->baseline, "Baseline: a database, a results file or a results folder")
      ->required()
      ->check(CLI::ExistingPath);
  cmd->add_option("candidate", o->candidate, "Candidate: a database, a results file or a results folder")
      ->required()
      ->check(CLI::ExistingPath);
  cmd->add_option("--format", o->format, "table (default), markdown, json or junit")
      ->check(CLI::IsMember({"table", "markdown", "json", "junit"}));
  cmd->add_option("--output", o->output, "Write the report to FILE instead of stdout");
  cmd->add_flag("--per-config", o->options.per_config,
                "Also compare each configuration verified on both sides");
  cmd->add_option("--op", o->op, "Only this operator")->check(CLI::IsMember(ops::op_names()));
  cmd->add_option("--gpu", o->gpu, "The GPU model to compare when a side holds several");
  cmd->add_option("--threshold-compute", o->compute_pct,
                  "Percent change that matters for compute-bound kernels (default 2)")
      ->check(CLI::Range(0.0, 100.0));
  cmd->add_option("--threshold-memory", o->memory_pct,
                  "Percent change that matters for memory-bound kernels (default 3)")
      ->check(CLI::Range(0.0, 100.0));
  cmd->add_option("--threshold-short", o->short_pct,
                  "Percent change that matters for short kernels (default 5)")
      ->check(CLI::Range(0.0, 100.0));
  cmd->add_option("--short-below-us", limits.short_below_us,
                  "A kernel is short when its baseline median is under this (default 20)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--floor-us", limits.floor_us,
                  "A difference of medians under this many microseconds never counts (default 1)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--resamples", o->options.bootstrap.resamples, "Bootstrap resamples (default 5000)")
      ->check(CLI::Range(100, 1000000));
  cmd->add_option("--seed", o->options.bootstrap.seed, "Bootstrap seed (default 1)");
  cmd->add_flag("--allow-different-env", o->options.allow_different_env,
                "Compare results from different GPU models or environments, with a warning");
  cmd->callback([&run, o] { run = [o] { return run_compare(*o); }; });
}

}  // namespace cuop::cli
