// cuop-tune merge --db TARGET SOURCE...: the databases of several shards or machines in one
// (docs/scale-out.md, docs/cli.md).
#include <fmt/format.h>

#include "tuner/cli/commands.hpp"
#include "tuner/cli/validators.hpp"
#include "tuner/store/merge.hpp"

namespace cuop::cli {

namespace {

struct merge_cli {
  std::string db;
  std::vector<std::string> sources;
};

int run_merge(const merge_cli& o) {
  const auto r = store::merge_databases(o.db, o.sources);
  fmt::print(
      "merged {} database{} into {}: runs {} added, {} already there; trials {} added, {} replaced by "
      "newer ones, {} kept (the target's were newer or valid), {} already there; {} configurations, "
      "{} builds\n",
      o.sources.size(), o.sources.size() == 1 ? "" : "s", o.db, r.runs_added, r.runs_already, r.trials_added,
      r.trials_replaced, r.trials_kept, r.trials_identical, r.configs, r.builds);
  return 0;
}

}  // namespace

void add_merge(CLI::App& app, action& run) {
  auto* cmd = app.add_subcommand("merge",
                                 "Combine databases (shards, machines) into one: no duplicates, "
                                 "newer trials of an environment win, provenance kept");
  auto o = std::make_shared<merge_cli>();
  o->db = default_db_path();
  cmd->add_option("sources", o->sources, "Databases to merge in")->required()->check(CLI::ExistingFile);
  cmd->add_option("--db", o->db, "The database merged into (created if missing; default $CUOP_DB or ./cuop-tune.db)")
      ->check(non_empty_path());
  cmd->callback([&run, o] { run = [o] { return run_merge(*o); }; });
}

}  // namespace cuop::cli
