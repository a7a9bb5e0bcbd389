// cuop-tune validate FILE...: parse and check sweep files without compiling or running anything.
#include <fmt/format.h>

#include "tuner/cli/commands.hpp"
#include "tuner/cli/validate_results.hpp"
#include "tuner/space/space.hpp"
#include "tuner/spec/spec.hpp"

namespace cuop::cli {

void add_validate(CLI::App& app, action& run) {
  auto* cmd = app.add_subcommand("validate", "Check sweep files, or results files and folders, without running");
  auto files = std::make_shared<std::vector<std::string>>();
  cmd->add_option("files", *files, "Sweep files; results files (.json) or folders (results/)")
      ->required()
      ->check(CLI::ExistingPath);
  cmd->callback([&run, files] {
    run = [files] {
      for (const auto& f : *files) {
        if (is_results_path(f)) {
          validate_results(f);
          continue;
        }
        const auto s = spec::load(f);
        space::require_nonempty(s);  // as sweep refuses it
        std::size_t accepted = 0;
        for (const auto& p : s.problems)
          for (const auto& v : space::enumerate(s, p)) accepted += v.accepted ? 1 : 0;
        fmt::print("{}: ok ({} op, {} problems, {} candidates, {} points, {} trials after constraints)\n",
                   f, s.op, s.problems.size(), s.candidates.size(), space::space_size(s), accepted);
      }
      return 0;
    };
  });
}

}  // namespace cuop::cli
