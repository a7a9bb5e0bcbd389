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
// error of a sweep file): what() is the first one, so a caller that prints one message prints
// what it printed before there were several. `total` counts them all; `messages` holds the first
// few (a cap), each a whole message naming its place.
class error_list : public error {
 public:
  error_list(std::vector<std::string> messages, std::size_t total, std::string source)
      : error(messages.empty() ? source : messages.front()), m_messages(std::move(messages)),
        m_total(total), m_source(std::move(source)) {}
  const std::vector<std::string>& messages() const { return m_messages; }
  std::size_t total() const { return m_total; }
  const std::string& source() const { return m_source; }  // the input, for the summary line

 private:
  std::vector<std::string> m_messages;
  std::size_t m_total;
  std::string m_source;
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
