// `cuop-tune gate`: measures the gate suites with this build and compares them, with the compare
// engine, against a baseline (results or a database) or against another build measured on the
// same machine in A B B A rounds; AMBIGUOUS rows are measured again (docs/cli.md, gate).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "tuner/gate/comparison.hpp"
#include "tuner/gate/result_set.hpp"
#include "tuner/runner/batch_plan.hpp"

namespace cuop::gate {

struct gate_options {
  std::vector<std::string> specs;  // the gate suites (sweep files)
  std::string baseline;            // a results folder or file, or a database
  std::string against;             // or: another build's cuop-tune binary or build folder
  int cycles = 1;                  // --against: A B B A cycles
  int retries = 2;                 // retry passes for AMBIGUOUS rows
  std::string db;                  // this build's database; "": a temporary folder's
  bool keep_db = false;            // keep the temporary folder's databases
  int device = 0;
  std::string cache_dir;  // "": each build's default cubin cache
  int jobs = 0;           // compile threads of the sweeps; 0: all cores
  compare_options compare;
  std::string self;  // this build's cuop-tune; "": this process's executable
                     // (another one stands in for it in the CPU tests)
};

// Throws cuop::usage_error on contradictory options, cuop::error when there is no GPU, the other
// build speaks another protocol or sees another GPU, a sweep fails, or the comparison is refused
// (different environments without allow_different_env, nothing in common).
comparison run_gate(const gate_options& options);

// The message (and cuop::error) of a gate run without a usable GPU.
std::string no_gpu_message(const std::string& why);

// `baseline` for the gate on `gpu` (the GPU measured here): its results of that GPU model if it
// has any, else whatever single GPU model it holds (the comparison then refuses it, or warns with
// allow_different_env); only the problems in `problems`. Throws cuop::error when nothing is left.
result_set load_gate_baseline(const std::string& baseline, const std::string& gpu,
                              const std::set<std::string>& problems);

// The problems of `wanted` that `set` has no verified trial of, in `wanted`'s order.
std::vector<std::string> missing_problems(const result_set& set, const std::vector<std::string>& wanted);

// `set` with only the trials of `problems`.
result_set keep_problems(result_set set, const std::set<std::string>& problems);

// How another build is timed like `reference` (a sweep's --batch-plan): each configuration as
// `reference` timed it, any other configuration of a problem as its winner was.
runner::batch_plan_map timing_plan(const result_set& reference);

// The baseline reduced to the configurations `candidate` verified, timed the same way (CUDA-graph
// batches or single launches), so that each problem's winner is chosen among the same
// configurations on both sides: a gate suite lists a few of a full sweep's configurations, and
// the committed results' winner may not be among them. Each problem whose overall baseline
// winner is left out gets a warning naming it.
result_set among_candidate_configurations(result_set baseline, const result_set& candidate,
                                          std::vector<std::string>& warnings);

// The other way round: `candidate` reduced to the configurations left in `baseline` (after the
// function above), so that a configuration new in the suite, or one the baseline timed another
// way, cannot win on one side only. Each problem whose own winner is left out gets a warning.
result_set among_baseline_configurations(result_set candidate, const result_set& baseline,
                                         std::vector<std::string>& warnings);

}  // namespace cuop::gate
