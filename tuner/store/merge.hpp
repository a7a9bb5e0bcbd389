// `cuop-tune merge` (docs/scale-out.md): the databases of several shards, machines or days in one.
// Runs are copied with their provenance ("<source> run <id>"); configurations, builds, trials and
// samples follow. Nothing is duplicated: a run already merged (same start, environment, sweep
// file, host, op, mode and shard) is reused, and a trial is one per (environment, problem,
// configuration), as in any database. Trials of different environments never conflict: both are
// kept. For the same environment the newer trial wins, except that a trial of an invalid run
// never replaces one of a valid run. Merging again changes nothing.
#pragma once

#include <string>
#include <vector>

#include "tuner/store/store.hpp"

namespace cuop::store {

struct merge_report {
  int runs_added = 0, runs_already = 0;
  int trials_added = 0;      // new (environment, problem, configuration)
  int trials_replaced = 0;   // a newer trial of the same environment took the place of the old
  int trials_kept = 0;       // the target's own trial was newer (or valid against invalid): kept
  int trials_identical = 0;  // the same trial, merged before
  int builds = 0, configs = 0;
};

// Opens every source read-only first (a newer schema, a corrupt file or a missing one is refused
// before anything is written), then copies them into `target` in order. Throws cuop::error; a
// source that is the target itself is refused. `target_path` names the target in messages.
merge_report merge_databases(database& target, const std::string& target_path, const std::vector<std::string>& sources);

// The same, opening (or creating) the target at `target_path` only once every source has opened:
// a refused source leaves the target as it was, not created nor migrated.
merge_report merge_databases(const std::string& target_path, const std::vector<std::string>& sources);

}  // namespace cuop::store
