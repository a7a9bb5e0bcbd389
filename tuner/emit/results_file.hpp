// The committed, reviewable form of results (results/<op>/<gpu>.json): one line per trial and per
// build, sorted, numbers rounded, so a diff shows what changed. `emit` reads these files, so the
// library build needs no database.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/store/store.hpp"

namespace cuop::emit {

struct result_trial {
  std::string problem, dtype, instance, family, status;
  std::map<std::string, long long> dims;
  std::map<std::string, long long> params;
  double median_us = 0, min_us = 0, q1_us = 0, q3_us = 0, ci_lo_us = 0, ci_hi_us = 0, gbps = 0;
  int samples = 0;
  std::int64_t run = 0;
};

struct result_build {
  std::string instance, target, status, message;
  int registers = 0;
  long long smem = 0, spill_stores = 0, spill_loads = 0;
};

struct result_run {
  std::int64_t id = 0;
  std::string started_at, spec_file, env_key, git_rev;
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

// Groups the database's runs of `op` by GPU model; keeps, per problem, the trials of the newest
// environment (store::environment::key) that measured it, and for each (problem, configuration)
// the newest. Writes <dir>/<op>/<gpu-slug>.json ("validation.json" when no GPU); returns paths.
std::vector<std::string> export_results(store::database& db, const std::string& op,
                                        const std::string& dir);

// Reads every results file under `dir` (sorted by path); throws cuop::error naming a bad file.
std::vector<result_file> read_results(const std::string& dir);

// "NVIDIA H200" -> "nvidia-h200"
std::string slug(const std::string& gpu_name);

// Writes `content` to `path` only when it differs (temp file + rename: an interrupted write
// leaves the old file intact). Returns true when the file changed.
bool write_if_changed(const std::string& path, const std::string& content);

}  // namespace cuop::emit
