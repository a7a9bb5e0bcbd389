#include "tuner/core/process.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

namespace cuop::core {

namespace {

struct stat_fields {
  bool read = false;
  char state = '?';        // field 3: R, S, D, Z (zombie: dead, not yet reaped), ...
  std::int64_t start = 0;  // field 22
};

// /proc/PID/stat. The second field (the command) is in parentheses and may hold spaces: fields
// are counted after its closing one.
stat_fields stat_of(std::int64_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  const std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return {};
  std::istringstream fields(stat.substr(close + 1));
  stat_fields out;
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i == 3) out.state = field.empty() ? '?' : field[0];
    if (i == 22) {
      std::from_chars(field.data(), field.data() + field.size(), out.start);
      out.read = true;
    }
  }
  return out;
}

}  // namespace

process_id this_process() {
  const std::int64_t pid = ::getpid();
  return {pid, stat_of(pid).start};
}

std::string host_name() {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  return host;
}

bool process_alive(const process_id& p) {
  if (p.pid <= 0) return false;
  if (::kill(static_cast<pid_t>(p.pid), 0) != 0 && errno != EPERM) return false;
  const auto now = stat_of(p.pid);
  if (!now.read) return true;  // no /proc: the pid exists, assume it is the same process
  if (now.state == 'Z' || now.state == 'X') return false;
  return p.start == 0 || now.start == p.start;
}

}  // namespace cuop::core
