// The committed, reviewable form of results (results/<op>/<gpu>.json): one line per trial and per
// build, sorted, numbers rounded, so a diff shows what changed. `emit` reads these files, so the
// library build needs no database.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/store/store.hpp"

namespace cuop::results {

struct result_trial {
  std::string problem, dtype, instance, family, status;
  std::map<std::string, long long> dims;
  std::map<std::string, long long> params;
  double median_us = 0, min_us = 0, q1_us = 0, q3_us = 0, ci_lo_us = 0, ci_hi_us = 0, gbps = 0;
  int samples = 0;
  int batch = 1;  // launches per sample (> 1: CUDA-graph batches); written only when > 1
  std::int64_t run = 0;
  std::vector<double> samples_us;  // raw samples, rounded to 0.01 us; empty when not exported
                                   // (or written before export kept them)
};

struct result_build {
  std::string instance, target, status, message;
  int registers = 0;
  long long smem = 0, spill_stores = 0, spill_loads = 0;
};

struct result_run {
  std::int64_t id = 0;
  std::string started_at, spec_file, env_key, git_rev;
  // Per kernel family of the op, the hash of the kernel sources the run measured
  // (ops/family_sources.hpp); empty in files written before runs recorded it.
  std::map<std::string, std::string> family_hashes;
};

// One file: the results of one op on one GPU model (gpu empty: compile validation only).
struct result_file {
  std::string path;
  std::string op;
  std::string gpu;
  int cc = 0;
  int sm_count = 0;
  std::string driver, cuda_runtime, source_hash;
  std::vector<result_run> runs;
  std::vector<result_trial> trials;  // measured trials (not constraint rejections)
  std::vector<result_build> builds;
};

// Which ok trials carry their raw samples ("samples_us") in an exported file: `compare` needs
// them for a bootstrap; the winners' are what a baseline is compared on by default, and all of
// them would double the size of a file with thousands of trials.
enum class export_samples { none, winners, all };

// How an export meets an existing file: replaced whole; `update`: it keeps the problems the
// database does not hold; `add`: it keeps every trial but those of a (problem, configuration) the
// database holds (results_update.hpp).
enum class export_merge { replace, update, add };

// Writes <dir>/<op>/<gpu-slug>.json ("validation.json" when no GPU) from the trials
// current_trials() selects (current_trials.hpp); returns the paths.
std::vector<std::string> export_results(store::database& db, const std::string& op, const std::string& dir,
                                        export_samples samples = export_samples::winners,
                                        export_merge merge = export_merge::replace);

// What export would write for `op` from `db`, in memory, each file checked by the schema as if
// read from disk (messages name `label`, the database); paths "<op>/<gpu slug>.json".
std::vector<result_file> database_results(store::database& db, const std::string& op, const std::string& label);

// Reads every results file under `dir` (sorted by path); throws cuop::error naming a bad file.
std::vector<result_file> read_results(const std::string& dir);

// Reads one results file; `path` stays as given. Throws cuop::error naming a bad file: every
// schema error (results_schema.hpp) one per line.
result_file read_results_file(const std::string& path);

// A folder of results files (read_results: each file's schema and place checked) or one results
// file (read_results_file: its schema), as the commands that take either read them.
std::vector<result_file> read_results_path(const std::string& path);

// Parses the text of a results file; `path` names it in messages and in the result.
result_file parse_results(const std::string& text, const std::string& path);

// The text export writes for `f`: the header fields, then one run, trial or build per line,
// numbers to 5 significant digits. A committed file equal to render_results of what it reads as
// is in the form export wrote (validate checks it).
std::string render_results(const result_file& f);

// "NVIDIA H200" -> "nvidia-h200"
std::string slug(const std::string& gpu_name);

// Writes `content` to `path` only when it differs (temp file + rename: an interrupted write
// leaves the old file intact). Returns true when the file changed.
bool write_if_changed(const std::string& path, const std::string& content);

// Throws cuop::error naming `path` when something other than a regular file (a folder) is there.
void require_writable_file(const std::string& path);

}  // namespace cuop::results
