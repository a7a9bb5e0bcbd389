// cuop-tune sweep FILE...: the main job (docs/cli.md).
#include "tuner/cli/commands.hpp"
#include "tuner/runner/device_pool.hpp"
#include "tuner/runner/shard.hpp"
#include "tuner/runner/sweep.hpp"

namespace cuop::cli {

void add_sweep(CLI::App& app, action& run) {
  auto* cmd = app.add_subcommand(
      "sweep", "Compile every candidate for every target, then verify and time them on the GPU");
  auto o = std::make_shared<runner::sweep_options>();
  o->db_path = default_db_path();
  o->cache_dir = default_cache_dir();
  cmd->add_option("files", o->files, "Sweep files")->required()->check(CLI::ExistingFile);
  cmd->add_option("--db", o->db_path, "SQLite database (default $CUOP_DB or ./cuop-tune.db)");
  cmd->add_option("--cache", o->cache_dir, "Cubin cache folder");
  auto* device = cmd->add_option("--device", o->device, "CUDA device index")->check(CLI::NonNegativeNumber);
  cmd->add_option("--devices", o->devices,
                  "all, or device indices (0,1,...): one worker per GPU, problems spread over them; "
                  "identical GPUs pool their results, other models are kept apart")
      ->excludes(device)
      ->check([](const std::string& text) {
        if (text == "all") return std::string();
        try {
          runner::parse_devices(text, 1 << 20);  // the form only: the count is known later
          return std::string();
        } catch (const std::exception& e) {
          return std::string(e.what());
        }
      });
  cmd->add_option("-j,--jobs", o->jobs, "Compile threads (default: all cores)");
  cmd->add_option("--only", o->only,
                  "Only the problems whose key contains one of these comma-separated texts");
  cmd->add_option("--shard", o->shard,
                  "K/N: only shard K of N of the configurations (a cluster's array job; combine with merge)")
      ->check([](const std::string& text) {
        try {
          runner::parse_shard(text);
          return std::string();
        } catch (const std::exception& e) {
          return std::string(e.what());
        }
      });
  cmd->add_option("--batch-plan", o->batch_plan,
                  "JSON {problem: launches per sample}: time those problems in CUDA-graph batches of "
                  "that many launches (1: single launches) instead of letting the timer decide; the "
                  "gate passes one so a build is timed like its baseline")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--validate-only", o->validate_only,
                "Compile-validate for every target without measuring, even with a GPU");
  cmd->callback([&run, o] { run = [o] { return runner::run_sweep(*o); }; });
}

}  // namespace cuop::cli
