// Which trials of a database are "the results" of an op: the rule `export` writes files by and
// `compare` reads databases by, so a database and its export compare as the same results.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tuner/store/store.hpp"

namespace cuop::results {

struct gpu_results {
  std::vector<store::run_info> runs;        // every run of the op on this GPU model, by id
  std::vector<store::trial_record> trials;  // sorted by problem key, then instance
};

// Groups the runs of `op` by GPU model (key: slug of the GPU name, "validation" without a GPU).
// Per GPU model and problem, keeps only the trials of the newest environment
// (store::environment::key) that measured the problem, so a problem's timings are never mixed
// across environments while a sweep of some problems leaves the others' in place; within it the
// newest trial per (problem, instance). Constraint rejections are not results, and neither is
// anything of a run marked "invalid" (its environment failed the checks before or after it). Raw
// samples are read only when `with_samples`.
std::map<std::string, gpu_results> current_trials(store::database& db, const std::string& op, bool with_samples);

// The fastest "ok" trial per problem key (the first by instance on a tie), or none.
std::map<std::string, const store::trial_record*> winners(const std::vector<store::trial_record>& trials);

}  // namespace cuop::results
