// Checks of numeric options (docs/cli.md, "Limits"): a value outside its range, NaN, an
// infinity, a negative or zero count, or text that is not a plain decimal number is a usage error
// (exit 2) naming the option and the value, before anything runs:
//   cuop-tune: error: --floor-us: expected a number greater than 0 and at most 1000000, got "nan"
// Each validator also rewrites the accepted text in the plain form CLI11 then converts ("010" is
// 10, not octal 8).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace cuop::cli {

// A finite decimal number in (lo, hi] (lo_inclusive false) or [lo, hi]. `noun` names it in the
// message ("a number", "a percentage").
CLI::Validator number_in(double lo, double hi, bool lo_inclusive = false, const std::string& noun = "a number");

// A whole decimal number from lo to hi.
CLI::Validator whole_number(long long lo, long long hi);

// A whole decimal number from 0 to 2^64 - 1 (--seed).
CLI::Validator unsigned_64();

// A path that is not empty: `--db ""` would open SQLite's temporary database, `--out ""` write
// into the current folder.
CLI::Validator non_empty_path();

// Limits shared by the commands' options.
inline constexpr long long max_jobs = 1024;                  // -j: compile threads
inline constexpr long long max_validation_sample = 1000000;  // sweep --validation-sample
inline constexpr long long max_device_index = 1023;          // --device
inline constexpr double max_microseconds = 1e6;              // --floor-us, --short-below-us: 1 s

}  // namespace cuop::cli
