// cuop-tune compare BASELINE CANDIDATE: per problem, the ratio of the winners' medians with a
// bootstrap 95% interval and a verdict; exit code 3 when anything is SLOWER (docs/cli.md).
#include "tuner/catalog/catalog.hpp"
#include "tuner/cli/commands.hpp"
#include "tuner/cli/report_options.hpp"
#include "tuner/gate/comparison.hpp"
#include "tuner/report/compare_report.hpp"

namespace cuop::cli {

namespace {

struct compare_cli {
  std::string baseline, candidate;
  std::string op, gpu;
  report_options report;
};

int run_compare(const compare_cli& o) {
  // The format is checked before anything is read.
  report::parse_compare_format(o.report.format);
  const gate::load_options load{o.op, o.gpu};
  const auto baseline = gate::load_result_set(o.baseline, load);
  const auto candidate = gate::load_result_set(o.candidate, load);
  return deliver_report(gate::compare(baseline, candidate, o.report.resolved()), o.report);
}

}  // namespace

void add_compare(CLI::App& app, action& run) {
  auto* cmd = app.add_subcommand("compare",
                                 "Compare two result sets (databases or results files); exit 3 if anything is SLOWER");
  auto o = std::make_shared<compare_cli>();
  cmd->add_option("baseline", o->baseline, "Baseline: a database, a results file or a results folder")
      ->required()
      ->check(CLI::ExistingPath);
  cmd->add_option("candidate", o->candidate, "Candidate: a database, a results file or a results folder")
      ->required()
      ->check(CLI::ExistingPath);
  add_report_options(*cmd, o->report);
  cmd->add_option("--op", o->op, "Only this operator")->check(CLI::IsMember(catalog::op_names()));
  cmd->add_option("--gpu", o->gpu, "The GPU model to compare when a side holds several");
  cmd->callback([&run, o] { run = [o] { return run_compare(*o); }; });
}

}  // namespace cuop::cli
