// Errors in the tuner are exceptions carrying a ready-to-print message; `main` prints
// "cuop-tune: error: <message>" and maps them to exit codes (docs/cli.md).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

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

// Several errors found in one input, reported together like a compiler's (`validate` lists every
// error of a sweep file): one message whose lines are the errors (`messages`, the first few of
// them: a cap), then, when there are several, a count line "<source>: 13 errors" (with "(the
// first 20 shown)" when some were left out). A single error's message is that error alone.
class error_list : public error {
 public:
  error_list(std::vector<std::string> messages, std::size_t total, const std::string& source)
      : error(joined(messages, total, source)), m_messages(std::move(messages)), m_total(total) {}
  const std::vector<std::string>& messages() const { return m_messages; }
  std::size_t total() const { return m_total; }

 private:
  static std::string joined(const std::vector<std::string>& messages, std::size_t total, const std::string& source) {
    std::string out;
    for (const auto& m : messages) out += (out.empty() ? "" : "\n") + m;
    if (total > 1) {
      out += "\n" + source + ": " + std::to_string(total) + " errors";
      if (messages.size() < total) out += " (the first " + std::to_string(messages.size()) + " shown)";
    }
    return out;
  }

  std::vector<std::string> m_messages;
  std::size_t m_total;
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
