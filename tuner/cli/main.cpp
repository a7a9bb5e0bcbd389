// cuop-tune: exit codes 0 ok, 1 error, 2 usage, 3 regression found (docs/cli.md).
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "tuner/cli/commands.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/suggest.hpp"

int main(int argc, char** argv) {
  CLI::App app{"cuop-tune: auto-tuning and benchmarking of GPU operators", "cuop-tune"};
  app.set_version_flag("--version", std::string("cuop-tune ") + CUOP_VERSION);
  app.require_subcommand(1);
  cuop::cli::action run;
  cuop::cli::add_validate(app, run);
  cuop::cli::add_sweep(app, run);
  cuop::cli::add_best(app, run);
  cuop::cli::add_export(app, run);
  cuop::cli::add_emit(app, run);
  cuop::cli::add_compare(app, run);
  cuop::cli::add_gate(app, run);
  cuop::cli::add_merge(app, run);
  cuop::cli::add_sources(app, run);
  cuop::cli::add_worker(app, run);
  // A mistyped command would otherwise be a stray argument ("A subcommand is required"): name it.
  if (argc > 1 && argv[1][0] != '-') {
    std::vector<std::string> names;
    for (const auto* sub : app.get_subcommands({})) names.push_back(sub->get_name());
    if (std::find(names.begin(), names.end(), argv[1]) == names.end()) {
      fmt::print(stderr, "cuop-tune: error: unknown command \"{}\"{}\nRun with --help for more information.\n", argv[1],
                 cuop::suggest_suffix(argv[1], names));
      return cuop::exit_code::usage;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return cuop::exit_code::usage;
  }
  try {
    return run();
  } catch (const cuop::usage_error& e) {
    fmt::print(stderr, "cuop-tune: error: {}\n", e.what());
    return cuop::exit_code::usage;
  } catch (const cuop::error& e) {
    fmt::print(stderr, "cuop-tune: error: {}\n", e.what());
    return cuop::exit_code::error;
  } catch (const cuop::fatal& e) {
    fmt::print(stderr, "cuop-tune: fatal: {}\n", e.what());
    return cuop::exit_code::error;
  } catch (const std::exception& e) {
    fmt::print(stderr, "cuop-tune: error: {}\n", e.what());
    return cuop::exit_code::error;
  }
}
