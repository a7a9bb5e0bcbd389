// One file per subcommand; each registers its options and sets the action to run.
#pragma once

#include <CLI/CLI.hpp>

#include <exception>
#include <functional>
#include <string>
#include <vector>

namespace cuop::store {
class database;
}  // namespace cuop::store

namespace cuop::cli {

using action = std::function<int()>;

void add_validate(CLI::App& app, action& run);
void add_sweep(CLI::App& app, action& run);
void add_baselines(CLI::App& app, action& run);
void add_best(CLI::App& app, action& run);
void add_export(CLI::App& app, action& run);
void add_emit(CLI::App& app, action& run);
void add_compare(CLI::App& app, action& run);
void add_gate(CLI::App& app, action& run);
void add_merge(CLI::App& app, action& run);
void add_replay(CLI::App& app, action& run);
void add_worker(CLI::App& app, action& run);
void add_sources(CLI::App& app, action& run);
void add_add_targets(CLI::App& app, action& run);

// --db default: $CUOP_DB, else ./cuop-tune.db (git-ignored).
std::string default_db_path();
// The ops (registry order) that the database's configurations belong to: what `best` and
// `export` work on when no --op names one.
std::vector<std::string> ops_in_database(store::database& db);
// Cubin cache: $CUOP_CACHE_DIR, else $XDG_CACHE_HOME/cuop-tune, else ~/.cache/cuop-tune.
std::string default_cache_dir();

// Prints `e` to stderr as a top-level error, "cuop-tune: error: <message>", each line of the
// message escaped (core::printable); returns the exit code it stands for (2 for a usage_error,
// else 1).
int report_error(const std::exception& e);

}  // namespace cuop::cli
