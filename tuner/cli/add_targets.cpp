// cuop-tune add-targets: compile every kernel configuration of results files for more targets and
// add the builds to the files, trials untouched. What emit needs to serve an architecture from
// measurements made on another: which configurations compile and fit there (docs/cli.md,
// add-targets; docs/packaging.md, "Architectures").
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "tuner/cli/commands.hpp"
#include "tuner/cli/validators.hpp"
#include "tuner/compile/compile.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/suggest.hpp"
#include "tuner/core/text.hpp"
#include "tuner/ops/registry.hpp"
#include "tuner/results/results_file.hpp"
#include "tuner/runner/progress.hpp"

namespace cuop::cli {

namespace {

struct add_targets_cli {
  std::vector<std::string> paths;
  std::vector<std::string> targets;
  std::string cache_dir;
  int jobs = 0;
};

// The file's kernel configurations (not a library's, not a sweep file's own source), each once,
// rebuilt from the first trial that names it (the reader has checked that each stored name is its
// configuration's).
std::vector<ops::kernel_candidate> kernels_of(const results::result_file& f) {
  const ops::op& op = ops::named(f.op);
  std::vector<ops::kernel_candidate> out;
  std::set<std::string> seen;
  for (const auto& t : f.trials) {
    const auto* family = op.desc().find_family(t.family);
    if (!family || family->kind != "kernel" || family->user_source || !seen.insert(t.instance).second) continue;
    const space::point point{t.family, {t.params.begin(), t.params.end()}, {}, {}};
    const spec::problem problem{t.dtype, {t.dims.begin(), t.dims.end()}, {}};
    out.push_back(op.kernel(point, problem));
  }
  return out;
}

results::result_build build_of(const std::string& instance, const std::string& target, const compile::result& r) {
  return {instance,
          target,
          std::string(compile::name_of(r.status)),
          r.message,
          r.usage.registers,
          r.usage.smem_static,
          r.usage.spill_stores,
          r.usage.spill_loads};
}

// Adds the builds `f` lacks for `targets`; returns how many.
std::size_t add_builds(results::result_file& f, const std::vector<std::string>& targets, const add_targets_cli& o) {
  std::set<std::pair<std::string, std::string>> have;
  for (const auto& b : f.builds) have.emplace(b.instance, b.target);
  std::vector<compile::request> requests;
  std::size_t elsewhere = 0;
  for (const auto& k : kernels_of(f))
    for (const auto& target : targets) {
      if (have.contains({k.instance, target})) continue;
      if (k.only_target.empty() || target == k.only_target) {
        requests.push_back({k.source, k.instance, target, k.block_threads, k.dynamic_smem});
        continue;
      }
      // Not compiled: rejected there, as the sweep rejects it (sweep_compile.cpp).
      compile::result r;
      r.status = compile::build_status::over_limit;
      r.message = "the family exists on " + k.only_target + " only";
      f.builds.push_back(build_of(k.instance, target, r));
      ++elsewhere;
    }
  const compile::compiler cc(o.cache_dir, compile::default_include_dirs());
  report::progress bar(fmt::format("[{}] compile", f.path), requests.size());
  const std::size_t slice = 64;
  for (std::size_t i = 0; i < requests.size(); i += slice) {
    const std::vector<compile::request> part(
        requests.begin() + static_cast<long>(i),
        requests.begin() + static_cast<long>(std::min(requests.size(), i + slice)));
    const auto built = cc.build_all(part, o.jobs);
    for (std::size_t j = 0; j < part.size(); ++j) f.builds.push_back(build_of(part[j].entry, part[j].target, built[j]));
    bar.advance(part.size());
  }
  bar.finish();
  std::sort(f.builds.begin(), f.builds.end(), [](const results::result_build& a, const results::result_build& b) {
    return std::tie(a.instance, a.target) < std::tie(b.instance, b.target);
  });
  return requests.size() + elsewhere;
}

int run_add_targets(const add_targets_cli& o) {
  for (const auto& t : o.targets)
    if (!compile::find_target(t))
      throw usage_error(
          fmt::format("--targets: unknown target {}{}", core::quoted(t), suggest_suffix(t, compile::target_names())));
  for (const auto& path : o.paths)
    for (auto f : results::read_results_path(path)) {
      // A folder's files carry their path within it.
      const auto file = std::filesystem::is_directory(path) ? (std::filesystem::path(path) / f.path).string() : path;
      const std::size_t added = add_builds(f, o.targets, o);
      std::map<std::string, std::pair<int, int>> counts;  // target: ok, other
      for (const auto& b : f.builds) (b.status == "ok" ? counts[b.target].first : counts[b.target].second)++;
      const bool written = results::write_if_changed(file, results::render_results(f));
      fmt::print("{}: {} builds added{}\n", file, added, written ? "" : " (unchanged)");
      for (const auto& t : o.targets) fmt::print("  {}: {} ok, {} not\n", t, counts[t].first, counts[t].second);
    }
  return 0;
}

}  // namespace

void add_add_targets(CLI::App& app, action& run) {
  auto* cmd = app.add_subcommand(
      "add-targets", "Compile the kernel configurations of results files for more targets and add their builds");
  auto o = std::make_shared<add_targets_cli>();
  o->cache_dir = default_cache_dir();
  cmd->add_option("paths", o->paths, "Results files or folders (as export writes them)")
      ->required()
      ->check(CLI::ExistingPath);
  cmd->add_option("--targets", o->targets, "Targets to compile for, e.g. sm_86,sm_120")->required()->delimiter(',');
  cmd->add_option("--cache", o->cache_dir, "Cubin cache folder")->check(non_empty_path());
  cmd->add_option("-j,--jobs", o->jobs, "Compile threads (default: all cores)")->transform(whole_number(1, max_jobs));
  cmd->callback([&run, o] { run = [o] { return run_add_targets(*o); }; });
}

}  // namespace cuop::cli
