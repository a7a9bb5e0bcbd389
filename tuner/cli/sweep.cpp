// cuop-tune sweep FILE...: the main job (docs/cli.md).
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "tuner/cli/commands.hpp"
#include "tuner/cli/validators.hpp"
#include "tuner/compile/compile.hpp"
#include "tuner/core/text.hpp"
#include "tuner/ops/registry.hpp"
#include "tuner/results/results_file.hpp"
#include "tuner/runner/device_pool.hpp"
#include "tuner/runner/shard.hpp"
#include "tuner/runner/sweep.hpp"
#include "tuner/spec/spec.hpp"
#include "tuner/store/store.hpp"

namespace cuop::cli {

namespace {

// A check from a parser that throws: its message without the option's name, which CLI11 puts in
// front of every check's message.
template <class Parse>
CLI::Validator parsed_by(std::string_view option, Parse parse) {
  return CLI::Validator(
      [option = std::string(option), parse](std::string& text) -> std::string {
        try {
          parse(text);
          return {};
        } catch (const std::exception& e) {
          std::string message = e.what();
          if (message.starts_with(option + " ")) message.erase(0, option.size() + 1);
          return message;
        }
      },
      "");
}

// After a measuring sweep: the dispatch models emit would fit to this database now, with their
// leave-one-out validation (docs/dispatch.md), for each op swept and each GPU measured.
void print_model_validation(const runner::sweep_options& o) {
  std::set<std::string> swept;
  for (const auto& f : o.files) swept.insert(spec::load(f).op);
  auto db = store::database::open(o.db_path, store::open_mode::read_only);
  for (const ops::op* op : ops::all_ops()) {
    if (!swept.contains(op->name())) continue;
    const auto results = results::database_results(*db, op->name(), o.db_path);
    std::set<std::string> targets;
    for (const auto& f : results)
      if (const auto* t = compile::measuring_target(f.cc); t && !f.gpu.empty()) targets.insert(t->name);
    if (targets.empty()) continue;
    const auto out = op->emit(results, {targets.begin(), targets.end()});
    fmt::print("\ndispatch model for {} (cuop-tune emit would build it from this database):\n", op->name());
    for (const auto& line : out.report) fmt::print("  {}\n", line);
  }
}

}  // namespace

void add_sweep(CLI::App& app, action& run) {
  auto* cmd =
      app.add_subcommand("sweep", "Compile every candidate for every target, then verify and time them on the GPU");
  auto o = std::make_shared<runner::sweep_options>();
  o->db_path = default_db_path();
  o->cache_dir = default_cache_dir();
  cmd->add_option("files", o->files, "Sweep files")->required()->check(CLI::ExistingFile);
  cmd->add_option("--db", o->db_path, "SQLite database (default $CUOP_DB or ./cuop-tune.db)")->check(non_empty_path());
  cmd->add_option("--cache", o->cache_dir, "Cubin cache folder")->check(non_empty_path());
  auto* device =
      cmd->add_option("--device", o->device, "CUDA device index")->transform(whole_number(0, max_device_index));
  cmd->add_option("--devices", o->devices,
                  "all, or device indices (0,1,...): one worker per GPU, problems spread over them; "
                  "identical GPUs pool their results, other models are kept apart")
      ->excludes(device)
      ->check(parsed_by("--devices", [](const std::string& text) {
        if (text != "all") runner::parse_devices(text, 1 << 20);  // the form only: the count is known later
      }));
  cmd->add_option("-j,--jobs", o->jobs, "Compile threads (default: all cores)")->transform(whole_number(1, max_jobs));
  cmd->add_option("--only", o->only, "Only the problems whose key contains one of these comma-separated texts")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            if (text.find_first_not_of(',') != std::string::npos) return {};
            return "expected comma-separated texts to look for in problem keys, got " + core::quoted(text);
          },
          ""));
  cmd->add_option("--shard", o->shard,
                  "K/N: only shard K of N of the configurations (a cluster's array job; combine with merge)")
      ->check(parsed_by("--shard", [](const std::string& text) { runner::parse_shard(text); }));
  cmd->add_option("--batch-plan", o->batch_plan,
                  "JSON {problem: launches per sample}: time those problems in CUDA-graph batches of "
                  "that many launches (1: single launches) instead of letting the timer decide; the "
                  "gate passes one so a build is timed like its baseline")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--validate-only", o->validate_only,
                "Compile-validate for every target without measuring, even with a GPU");
  cmd->add_option("--validation-sample", o->validation_sample,
                  "N: a compile-validation run (no GPU, or --validate-only) validates at most N "
                  "configurations per family, spread over its names; 0 (the default): every one")
      ->transform(whole_number(0, max_validation_sample));
  cmd->callback([&run, o] {
    run = [o] {
      const int code = runner::run_sweep(*o);
      if (code == 0 && !o->validate_only) print_model_validation(*o);
      return code;
    };
  });
}

}  // namespace cuop::cli
