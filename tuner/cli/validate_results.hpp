// `cuop-tune validate` on results: a results file, or a folder of them (results/), checked as
// emit and CI need them (docs/cli.md, "validate").
#pragma once

#include <string>

namespace cuop::cli {

// True when `path` is a results folder or a JSON file, which validate_results() checks, rather
// than a sweep file.
bool is_results_path(const std::string& path);

// Checks the results file or folder at `path`: every file's schema, its place (<op>/<gpu slug>.json),
// its canonical form (what export writes, byte for byte), and its freshness: trials of a kernel
// family whose sources changed since they were measured fail unless <folder>/stale.txt
// acknowledges that exact change, and an acknowledgement nothing needs fails too. Prints one line
// per file; returns 0, or throws cuop::error listing every problem.
int validate_results(const std::string& path);

}  // namespace cuop::cli
