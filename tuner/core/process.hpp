// Which process this is, in a form that outlives it: a run records its sweep's process so that
// the next sweep on the same host can tell a run whose process is gone (killed with SIGKILL, a
// crash) from one still measuring.
#pragma once

#include <cstdint>
#include <string>

namespace cuop::core {

struct process_id {
  std::int64_t pid = 0;
  std::int64_t start = 0;  // Linux: /proc/PID/stat field 22 (clock ticks after boot); 0 unknown
};

process_id this_process();

// This host's name (gethostname), as runs record it.
std::string host_name();

// Whether `p` is still running on this host: its pid exists and, when `start` is known, it is the
// same process (a pid handed to another process since does not count).
bool process_alive(const process_id& p);

}  // namespace cuop::core
