// cuop-tune baselines: per problem of results files, the configuration the dispatch must beat (the
// op's baseline: a library's heuristic, the softmax default rule) and whether it was measured, as
// JSON. Reports and scripts outside the tuner (scripts/report.py) ask here rather than restate
// each op's rule.
#include <fmt/format.h>

#include <map>
#include <utility>

#include <nlohmann/json.hpp>

#include "tuner/catalog/catalog.hpp"
#include "tuner/cli/commands.hpp"
#include "tuner/results/results_file.hpp"

namespace cuop::cli {

namespace {

struct baselines_cli {
  std::vector<std::string> paths;
  std::string op;
};

// One entry per (file, problem): the baseline's instance and, where it was verified, its median.
nlohmann::json baselines_of(const results::result_file& f) {
  const catalog::op_desc* op = catalog::find_op(f.op);
  std::map<std::string, const results::result_trial*> first;                             // a trial of each problem
  std::map<std::pair<std::string, std::string>, const results::result_trial*> verified;  // by (problem, instance)
  for (const auto& t : f.trials) {
    first.emplace(t.problem, &t);
    if (t.status == "ok") verified[{t.problem, t.instance}] = &t;
  }
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [problem, t] : first) {
    const std::string baseline = op->baseline_of(t->dtype, catalog::dim_values(t->dims.begin(), t->dims.end()), f.cc);
    const auto it = verified.find({problem, baseline});
    const results::result_trial* b = it == verified.end() ? nullptr : it->second;
    nlohmann::json e = {{"file", f.path},          {"op", f.op},        {"gpu", f.gpu},
                        {"problem", problem},      {"dtype", t->dtype}, {"baseline", baseline},
                        {"measured", b != nullptr}};
    if (b) e["median_us"] = b->median_us;
    out.push_back(std::move(e));
  }
  return out;
}

int run_baselines(const baselines_cli& o) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& path : o.paths)
    for (const auto& f : results::read_results_path(path)) {
      if (!o.op.empty() && f.op != o.op) continue;
      for (auto& e : baselines_of(f)) out.push_back(std::move(e));
    }
  fmt::print("{}\n", out.dump(1, ' ', false, nlohmann::json::error_handler_t::replace));
  return 0;
}

}  // namespace

void add_baselines(CLI::App& app, action& run) {
  auto* cmd = app.add_subcommand(
      "baselines", "Print each problem's baseline configuration in results files, and whether it was measured (JSON)");
  auto o = std::make_shared<baselines_cli>();
  cmd->add_option("paths", o->paths, "Results files or folders (as export writes them)")
      ->required()
      ->check(CLI::ExistingPath);
  cmd->add_option("--op", o->op, "Only this op")->check(CLI::IsMember(catalog::op_names()));
  cmd->callback([&run, o] { run = [o] { return run_baselines(*o); }; });
}

}  // namespace cuop::cli
