// `cuop-tune sweep`: enumerate, compile for every target, then (with a GPU) verify and time every
// legal configuration in a worker process, committing each trial as it finishes.
#pragma once

#include <string>
#include <vector>

namespace cuop::runner {

struct sweep_options {
  std::vector<std::string> files;
  std::string db_path;
  std::string cache_dir;
  int device = 0;
  std::string devices;         // "all" or "0,1,...": one worker per GPU (device_pool.hpp); "": `device`
  bool validate_only = false;  // compile-validation only, even with a GPU present
  int jobs = 0;                // compile threads (0: all cores)
  std::string only;            // keep only problems whose key contains this (empty: all)
  std::string shard;           // "K/N": only the configurations of shard K of N (shard.hpp)
  std::string batch_plan;      // a JSON file: launches per sample per problem (batch_plan.hpp)
  // > 0: a compile-validation run (no GPU, or validate_only) validates at most this many
  // configurations of each family, spread over its names in order; 0: every one. A measuring run
  // ignores it (and says so).
  int validation_sample = 0;
};

// Returns the process exit code.
int run_sweep(const sweep_options& options);

}  // namespace cuop::runner
