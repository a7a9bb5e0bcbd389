// cuop-tune gate SPEC... --baseline PATH | --against OTHER: measures the gate suites with this
// build and compares them with a baseline or another build (A B B A rounds on this machine),
// measuring AMBIGUOUS rows again; exit code 3 when anything is SLOWER (docs/cli.md).
#include "tuner/cli/commands.hpp"
#include "tuner/cli/report_options.hpp"
#include "tuner/cli/validators.hpp"
#include "tuner/gate/gate_run.hpp"
#include "tuner/report/compare_report.hpp"

namespace cuop::cli {

namespace {

struct gate_cli {
  gate::gate_options gate;
  report_options report;
};

int run_gate(gate_cli& o) {
  report::parse_compare_format(o.report.format);  // before anything is measured
  o.gate.compare = o.report.resolved();
  return deliver_report(gate::run_gate(o.gate), o.report);
}

}  // namespace

void add_gate(CLI::App& app, action& run) {
  auto* cmd = app.add_subcommand("gate",
                                 "Measure the gate suites and compare them with a baseline or another build; exit 3 "
                                 "if anything is SLOWER");
  auto o = std::make_shared<gate_cli>();
  auto& g = o->gate;
  cmd->add_option("files", g.specs, "Gate suites (sweep files), normally configs/gate/*.yaml")
      ->required()
      ->check(CLI::ExistingFile);
  auto* baseline =
      cmd->add_option("--baseline", g.baseline, "Compare with these results: a results folder or file, or a database")
          ->check(CLI::ExistingPath);
  auto* against = cmd->add_option("--against", g.against,
                                  "Compare with another build, measured here in A B B A rounds: its "
                                  "cuop-tune binary or build folder")
                      ->check(CLI::ExistingPath);
  baseline->excludes(against);
  cmd->add_option("--cycles", g.cycles, "With --against: A B B A cycles (default 1)")
      ->transform(whole_number(1, 100))
      ->needs(against);
  cmd->add_option("--retries", g.retries, "Measure AMBIGUOUS rows again, with more samples, up to N times (default 2)")
      ->transform(whole_number(0, 10));
  cmd->add_option("--db", g.db,
                  "This build's database (default: a temporary one); kept, with the "
                  "gate's other databases beside it")
      ->check(non_empty_path());
  cmd->add_flag("--keep-db", g.keep_db, "Keep the temporary databases (their folder is printed)");
  cmd->add_option("--device", g.device, "CUDA device index")->transform(whole_number(0, max_device_index));
  cmd->add_option("--cache", g.cache_dir, "Cubin cache folder of the sweeps (default: each build's)")
      ->check(non_empty_path());
  cmd->add_option("-j,--jobs", g.jobs, "Compile threads of the sweeps (default: all cores)")
      ->transform(whole_number(1, max_jobs));
  add_report_options(*cmd, o->report);
  cmd->callback([&run, o] { run = [o] { return run_gate(*o); }; });
}

}  // namespace cuop::cli
