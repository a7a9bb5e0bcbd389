// One side of a comparison: the verified results of a SQLite database or of exported results
// files (results/<op>/<gpu>.json, or a folder of them), read the same way `export` selects them.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace cuop::gate {

// What a timing depends on besides the code measured. Kernel source and build-flag hashes are
// deliberately absent: they are what a comparison compares.
struct measured_env {
  std::string gpu;     // GPU model, "NVIDIA H200"
  int sm_count = 0;    // 0: unknown
  std::string driver;  // "" : unknown
  std::string cuda_runtime;
  std::string libraries;    // "" : unknown (results files do not record it)
  std::string env_key;      // store::environment::key(): the whole fingerprint, for the record
  std::string source_hash;  // for the record
  std::string git_rev;      // for the record

  // "NVIDIA H200 (132 SMs, driver 580.95, CUDA 13.0)"
  std::string describe() const;
};

// An unknown field ("") matches anything: results files keep fewer fields than databases.
bool same_measurement_env(const measured_env& a, const measured_env& b);

// One verified ("ok") trial.
struct measured_trial {
  std::string problem;  // "softmax_f32_4096x4096"
  std::string op, dtype, instance;
  std::map<std::string, long long> dims;
  double median_us = 0, ci_lo_us = 0, ci_hi_us = 0;
  int sample_count = 0;
  int batch = 1;                   // launches per sample: > 1, timed in CUDA-graph batches
  std::vector<double> samples_us;  // empty: the source kept no raw samples
  int env = 0;                     // index into result_set::envs
};

struct result_set {
  std::string source;  // the path as given
  std::string kind;    // "database" or "results file(s)"
  std::vector<measured_env> envs;
  std::vector<measured_trial> trials;  // sorted by problem, then instance; one per pair
};

struct load_options {
  std::string op;   // "": every op
  std::string gpu;  // "": the only GPU model present (several: an error asking for --gpu)
};

// Per problem, its fastest trial (by median).
std::map<std::string, const measured_trial*> fastest_per_problem(const result_set& set);

// Per problem, the launches per sample its fastest trial was timed with (1: single launches).
std::map<std::string, int> winner_launches(const result_set& set);

// Whether the file at `path` starts with SQLite's header (false when it cannot be read).
bool is_sqlite_file(const std::string& path);

// A SQLite database (recognised by its header), a results file, or a folder of results files.
// Throws cuop::error naming `path`: unreadable, not a database nor a results file, several GPU
// models without `gpu`, no verified result left.
result_set load_result_set(const std::string& path, const load_options& options);

}  // namespace cuop::gate
