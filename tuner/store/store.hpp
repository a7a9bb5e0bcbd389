// The SQLite store: every run, problem, configuration, build and trial. The sweep's parent process
// is the only writer; every finished trial is committed in its own transaction (WAL mode), so a
// killed sweep loses nothing finished and resumes where it stopped.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cuop::store {

inline constexpr int schema_version = 6;              // PRAGMA user_version; migrations in migrations.cpp
inline constexpr int default_busy_timeout_ms = 5000;  // wait this long for another writer

// Now, as ISO 8601 UTC: "2026-11-30T13:05:00Z".
std::string utc_now();

// Where and with what a run measured. `key()` identifies environments whose timings may be mixed.
struct environment {
  std::string gpu_name;  // empty when no GPU (validation-only run)
  std::string gpu_uuid;
  int sm_count = 0;
  long long l2_bytes = 0;
  int cc = 0;                // 90 for sm_90
  std::string driver;        // "580.159.04" or "" when unknown
  std::string cuda_runtime;  // "13.0"
  std::string libraries;     // "cublasLt 13.0.0; cudnn 9.14.0; cufft 12.0.0"
  std::string git_rev;
  std::string build_flags;
  std::string source_hash;  // hash of the kernel sources the candidates were built from
  std::string hostname;
  std::string key() const;  // hash of gpu_uuid, driver, cuda_runtime, build_flags, source_hash
};

struct run_info {
  std::int64_t id = 0;
  std::string started_at;   // ISO 8601 UTC
  std::string finished_at;  // empty while running or if killed
  std::string spec_file;
  std::string spec_hash;
  std::string op;
  std::string mode;   // "measure" or "validate"
  std::string state;  // "running", "finished", "interrupted", "failed", "invalid"
  environment env;
  std::string state_reason;  // why "invalid" (a bad environment before or after the run)
  std::string env_checks;    // {"before": {...}, "after": {...}}: the GPU's state (NVML), JSON
  std::string shard;         // "K/N": the run measured shard K of N (sweep --shard); "" all
  std::string provenance;    // merged from "<database> run <id>" (merge); "" measured here
  // {"<family>": "<hash>"}: the kernel sources of each family of the op the run measured
  // (ops/family_sources.hpp), JSON; "" for runs recorded before schema 4.
  std::string family_hashes;
  std::int64_t pid = 0;        // the sweep's process on env.hostname; 0 not recorded (before schema 5)
  std::int64_t pid_start = 0;  // when that process started (core::process_id); tells a reused pid apart
};

// One compilation of one configuration for one target.
struct build_record {
  std::string instance;  // instance name (configs.instance)
  std::string target;    // "sm_90a"
  std::string source_hash;
  std::string status;  // "ok", "compile_error", "over_limit"
  std::string message;
  int registers = 0;
  long long smem_static = 0;
  long long stack_bytes = 0;
  long long spill_stores = 0;
  long long spill_loads = 0;
  std::string cubin_hash;
  double compile_ms = 0;
};

struct config_record {
  std::string instance;  // stable key, UNIQUE
  std::string op;
  std::string family;
  std::string dtype;
  std::string params_json;  // {"vec":4,"chunks":2,...} in the family's parameter order
};

struct problem_record {
  std::string key;  // "softmax_f16_32768x1024", UNIQUE
  std::string op;
  std::string dtype;
  std::string dims_json;  // {"rows":32768,"cols":1024}
  double bytes = 0;       // bytes that must move (for GB/s)
};

// Trial statuses: "ok", "wrong_answer", "launch_error", "crashed", "timeout", "unsupported"
// (the configuration cannot run this shape), "rejected" (a constraint), "not_built",
// "dropped_race" (measured, and clearly slower than the best in a race: its samples are kept).
inline constexpr const char* final_statuses[] = {
    "ok", "wrong_answer", "launch_error", "crashed", "timeout", "unsupported", "rejected", "not_built", "dropped_race"};

struct trial_record {
  std::int64_t id = 0;
  std::int64_t run_id = 0;
  std::string env_key;
  problem_record problem;
  config_record config;
  int device = 0;
  std::string status;
  std::string message;
  double min_us = 0, median_us = 0, q1_us = 0, q3_us = 0, mean_us = 0, stdev_us = 0;
  double ci_lo_us = 0, ci_hi_us = 0;  // 95% CI of the median
  int samples = 0;
  double gbps = 0;
  double max_error = 0;     // verification: max abs error against the reference
  std::string stop_reason;  // "ci", "stable_noise", "max_samples", "max_time"; "race": pooled rounds
  std::string created_at;
  std::vector<double> sample_us;         // raw samples, stored in the samples table
  std::vector<double> sample_clock_mhz;  // the SM clock of each sample (0 unknown); may be empty
  double warmup_ms = 0;                  // warm-up before the samples
  int warmup_cap_ms = 0;                 // the cap it ran under (max of measure.warmup_cap_ms and warmup_ms)
  bool warmup_capped = false;            // the warm-up cap ended it before the clock settled
  int batch = 1;                         // launches per sample: > 1, a CUDA graph's time / batch
  std::string clock_source;              // "nvml", "globaltimer", "none"; "" before schema 2
};

struct trial_filter {
  std::string op;           // empty: any
  std::string env_key;      // empty: any
  std::int64_t run_id = 0;  // 0: any
  bool ok_only = false;
  bool with_samples = false;
};

enum class open_mode { read_write, read_only };

class database {
 public:
  // Opens (creating and migrating when read_write) the database at `path`. Throws cuop::error:
  // "<path>: database schema 7 is newer than this cuop-tune (1)", not a database, locked, ...
  // Read-only never creates or writes the file: a missing file is an error, and an older schema
  // is read through a copy in memory, upgraded there (the whole file is copied: fine for the
  // databases of a few sweeps, slow for gigabytes; open such a file read-write once).
  static std::unique_ptr<database> open(const std::string& path, open_mode mode);
  static std::unique_ptr<database> open(const std::string& path, open_mode mode, int busy_timeout_ms);
  virtual ~database() = default;

  virtual int user_version() = 0;

  virtual std::int64_t begin_run(const run_info& r) = 0;
  virtual void finish_run(std::int64_t run_id, const std::string& state) = 0;
  // Ends a run with a state and its reason ("invalid", "before the run: 2 other compute ...").
  virtual void finish_run(std::int64_t run_id, const std::string& state, const std::string& reason) = 0;
  // Marks a run that is still "running" as "interrupted" with `reason`, leaving finished_at empty
  // (when it stopped is not known): its sweep's process is gone. False when the run is no longer
  // running (it finished meanwhile).
  virtual bool abandon_run(std::int64_t run_id, const std::string& reason) = 0;
  // Stores the environment checks of a run (JSON text).
  virtual void set_env_checks(std::int64_t run_id, const std::string& checks_json) = 0;
  virtual std::vector<run_info> runs() = 0;
  // Inserts a run as it is, finished_at, state, reason, checks and provenance included (merge).
  virtual std::int64_t copy_run(const run_info& r) = 0;
  virtual std::optional<run_info> run(std::int64_t id) = 0;

  // Upserts a configuration by instance. put_trial does this itself; call it before put_build so
  // builds(op) finds the build (a build of an unknown instance creates a stub config, empty op).
  virtual void put_config(const config_record& c) = 0;
  virtual void put_build(const build_record& b) = 0;                    // upsert on (instance, target, source_hash)
  virtual std::vector<build_record> builds(const std::string& op) = 0;  // empty op: all
  virtual std::vector<config_record> configs() = 0;                     // every configuration, by instance

  // Inserts problem and config rows as needed, then the trial and its samples, in one committed
  // transaction. A trial for the same (env_key, problem, config) replaces the previous one.
  // Empty created_at: now. run_id 0: not part of a run. Returns the trial's id.
  virtual std::int64_t put_trial(const trial_record& t) = 0;
  // Resume: a trial with a final status (one of final_statuses) exists for this environment,
  // problem and configuration, and is not from a run marked "invalid".
  virtual bool has_trial(const std::string& env_key, const std::string& problem_key, const std::string& instance) = 0;
  // Ordered by problem key, then instance, then env_key.
  virtual std::vector<trial_record> trials(const trial_filter& f) = 0;
};

}  // namespace cuop::store
