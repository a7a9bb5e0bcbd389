// How `cuop-tune gate` measures a build: the gate suites run through that build's own `sweep`,
// a child process, so each build compiles its own kernel sources with its own NVRTC flags and
// times them in its own worker (docs/cli.md, gate).
#pragma once

#include <string>
#include <vector>

#include "tuner/gate/retry.hpp"
#include "tuner/trial/protocol.hpp"

namespace cuop::gate {

// The cuop-tune binary of a build, from the binary itself or its build folder
// (FOLDER/tuner/cuop-tune, then FOLDER/cuop-tune). Throws cuop::error naming `path`.
std::string resolve_cuop_tune(const std::string& path);

// The build's worker on `device` says what it sees and which protocol it speaks (its `hello`).
// Throws cuop::error when it does not answer like a cuop-tune worker within `timeout_s`.
trial::device_info ask_worker(const std::string& executable, int device, double timeout_s = 120);

// Throws cuop::error, naming both versions, unless `other` speaks this build's protocol.
void require_same_protocol(const trial::device_info& other, const std::string& other_path);

struct suite_run {
  std::vector<std::string> specs;  // sweep files
  std::vector<std::string> only;   // problem keys to run (`sweep --only`); empty: all
  int retry_pass = 0;              // > 0: a retry (the suite's own settings, `only` its problems)
  std::string scratch_dir;
  int device = 0;
  std::string cache_dir;   // "": the build's default
  int jobs = 0;            // compile threads; 0: the build's default
  std::string batch_plan;  // `sweep --batch-plan`: "" lets the timer decide
};

// The command line that runs `run` with `executable` into `db` (argv[0] is the executable).
std::vector<std::string> sweep_command(const std::string& executable, const std::string& db, const suite_run& run);

// Runs the sweep, its standard output
// sent to standard error so that the gate's own output is only its report. Throws cuop::error
// when it does not exit 0 (its own messages say why), or when it was interrupted.
void run_suite(const std::string& executable, const std::string& db, const suite_run& run, const std::string& label);

}  // namespace cuop::gate
