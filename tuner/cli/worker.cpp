// cuop-tune worker --device N: internal; started by sweep, speaks JSON lines on stdin/stdout.
#include "tuner/runner/worker.hpp"
#include "tuner/cli/commands.hpp"
#include "tuner/cli/validators.hpp"

namespace cuop::cli {

void add_worker(CLI::App& app, action& run) {
  auto* cmd = app.add_subcommand("worker", "");  // empty description: hidden from --help
  auto device = std::make_shared<int>(0);
  cmd->add_option("--device", *device, "CUDA device index")->transform(whole_number(0, max_device_index));
  cmd->callback([&run, device] { run = [device] { return runner::run_worker(*device); }; });
}

}  // namespace cuop::cli
