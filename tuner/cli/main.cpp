// cuop-tune: exit codes 0 ok, 1 error, 2 usage, 3 regression found (docs/cli.md).
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "tuner/cli/commands.hpp"
#include "tuner/compile/compile.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/suggest.hpp"
#include "tuner/core/text.hpp"

namespace {

// Every usage error, CLI11's included, says what it is the way the others do, and shows the
// values it quotes escaped.
int usage(const std::string& message) {
  try {
    fmt::print(stderr, "cuop-tune: error: {}\nRun with --help for more information.\n", cuop::core::printable(message));
  } catch (const std::exception&) {  // stderr cannot be written: the exit code still says it
  }
  return cuop::exit_code::usage;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cuop-tune: auto-tuning and benchmarking of GPU operators", "cuop-tune"};
  // With where the kernel headers and device flags are read from: an installed tuner's own prefix.
  app.set_version_flag("--version", [] {
    return fmt::format("cuop-tune {}\nkernel headers: {}\ndevice flags: {}", CUOP_VERSION,
                       cuop::compile::kernels_include_dir(), cuop::compile::device_flags_file());
  });
  app.require_subcommand(1);
  cuop::cli::action run;
  cuop::cli::add_validate(app, run);
  cuop::cli::add_sweep(app, run);
  cuop::cli::add_best(app, run);
  cuop::cli::add_baselines(app, run);
  cuop::cli::add_export(app, run);
  cuop::cli::add_emit(app, run);
  cuop::cli::add_add_targets(app, run);
  cuop::cli::add_compare(app, run);
  cuop::cli::add_gate(app, run);
  cuop::cli::add_merge(app, run);
  cuop::cli::add_replay(app, run);
  cuop::cli::add_sources(app, run);
  cuop::cli::add_worker(app, run);
  // A mistyped command would otherwise be a stray argument ("A subcommand is required"): name it.
  if (argc > 1 && argv[1][0] != '-') {
    std::vector<std::string> names;
    for (const auto* sub : app.get_subcommands({})) names.push_back(sub->get_name());
    if (std::find(names.begin(), names.end(), argv[1]) == names.end())
      return usage(fmt::format("unknown command \"{}\"{}", argv[1], cuop::suggest_suffix(argv[1], names)));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return usage(e.what());
  }
  try {
    return run();
  } catch (const cuop::error& e) {
    return cuop::cli::report_error(e);
  } catch (const std::exception& e) {  // cuop::fatal and what escaped a library
    return cuop::cli::report_error(e);
  }
}
