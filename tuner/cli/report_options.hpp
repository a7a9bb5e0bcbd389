// The options `compare` and `gate` share: what counts as a change (thresholds, floor, bootstrap),
// which rows, and where the report goes in which format (docs/cli.md, compare).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "tuner/gate/comparison.hpp"

namespace cuop::cli {

struct report_options {
  std::string format = "table";
  std::string output;
  gate::compare_options compare;
  // Thresholds are given in percent on the command line, kept as fractions in `compare`.
  double compute_pct = 2, memory_pct = 3, short_pct = 5;

  // `compare` with the percentages as fractions.
  gate::compare_options resolved() const;
};

// --format, --output, --per-config, --threshold-*, --short-below-us, --floor-us, --resamples,
// --seed, --allow-different-env.
void add_report_options(CLI::App& cmd, report_options& o);

// Prints the report (or writes it to --output, printing a summary line and the warnings);
// returns exit_code::regression when a row is SLOWER, else exit_code::ok.
int deliver_report(const gate::comparison& c, const report_options& o);

}  // namespace cuop::cli
