// Errors in the tuner are exceptions carrying a ready-to-print message; `main` prints
// "cuop-tune: error: <message>" and maps them to exit codes (docs/cli.md).
#pragma once

#include <stdexcept>
#include <string>

namespace cuop {

// Recoverable: bad input, a failed trial, a missing file. Message style: lowercase, no trailing
// period, names the place first ("configs/x.yaml:12:5: unknown key \"tile_kk\" ...").
class error : public std::runtime_error {
 public:
  explicit error(const std::string& message) : std::runtime_error(message) {}
};

// Usage error (bad command line): exit code 2.
class usage_error : public error {
 public:
  using error::error;
};

// Unrecoverable: the store is corrupt, an invariant broke.
class fatal : public std::runtime_error {
 public:
  explicit fatal(const std::string& message) : std::runtime_error(message) {}
};

namespace exit_code {
inline constexpr int ok = 0;
inline constexpr int error = 1;
inline constexpr int usage = 2;
inline constexpr int regression = 3;
}  // namespace exit_code

}  // namespace cuop
