// cuop-tune validate FILE...: parse and check sweep files without compiling or running anything,
// or results files and folders (validate_results.hpp). Every file is checked, and every error of a
// file reported (docs/cli.md, validate).
#include <fmt/format.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tuner/catalog/catalog.hpp"
#include "tuner/cli/commands.hpp"
#include "tuner/cli/validate_results.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/files.hpp"
#include "tuner/core/text.hpp"
#include "tuner/runner/sweep_plan.hpp"
#include "tuner/space/space.hpp"
#include "tuner/spec/spec.hpp"

namespace cuop::cli {

namespace {

// One line of `validate --problems`: a problem as JSON, its dimensions in the op's order (a
// named one by its name), so a script sees the problems of grids and samples without expanding
// them itself.
std::string problem_line(const spec::sweep& s, const spec::problem& p) {
  nlohmann::ordered_json line = {{"op", s.op}, {"key", p.key(s.op)}, {"dtype", p.dtype}};
  const catalog::op_desc* op = catalog::find_op(s.op);
  for (const auto& name : op->problem_dims) {
    const auto choices = op->dim(name).choices;
    const std::int64_t v = p.dims.at(name);
    if (choices.empty()) line[name] = v;
    else line[name] = choices.at(static_cast<std::size_t>(v));
  }
  line["at"] = p.where.str();
  return line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

void add_validate(CLI::App& app, action& run) {
  auto* cmd = app.add_subcommand("validate", "Check sweep files, or results files and folders, without running");
  auto files = std::make_shared<std::vector<std::string>>();
  auto list_problems = std::make_shared<bool>(false);
  cmd->add_flag("--problems", *list_problems,
                "For a good sweep file, print its problems (grids and samples expanded) as JSON lines instead of "
                "the ok line");
  cmd->add_option("files", *files, "Sweep files; results files (.json) or folders (results/)")
      ->required()
      ->check(CLI::ExistingPath);
  cmd->callback([&run, files, list_problems] {
    run = [files, list_problems] {
      int code = exit_code::ok;
      for (const auto& f : *files) {
        try {
          if (is_results_path(f)) {
            // A FIFO named x.json blocked the results reader, a huge file filled the memory.
            if (!std::filesystem::is_directory(f))
              core::require_regular_file(f, core::max_results_file_bytes, "results file");
            validate_results(f);
            continue;
          }
          const auto s = spec::load(f);
          // The path `sweep` takes before it stores anything (sweep_plan.hpp).
          const auto plan = runner::plan_sweep(s);
          if (*list_problems) {
            for (const auto& p : s.problems) fmt::print("{}\n", problem_line(s, p));
            continue;
          }
          fmt::print("{}: ok ({} op, {} problems, {} candidates, {} points, {} trials after constraints)\n",
                     core::printable(f), s.op, s.problems.size(), s.candidates.size(), space::space_size(s),
                     plan.accepted());
        } catch (const error& e) {
          code = report_error(e);  // and on with the next file, like a compiler
        }
      }
      return code;
    };
  });
}

}  // namespace cuop::cli
