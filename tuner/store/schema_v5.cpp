// Schema version 5 of the store (PRAGMA user_version = 5): the process behind a run, so that a run
// whose sweep was killed (SIGKILL, a crash, a lost node) is not "running" forever. Only columns
// are added, each with a default, so every row of an older database stays and reads as it did
// (0: not recorded, such runs are left as they are).
//
//   runs.pid         the sweep's process id on runs.hostname
//   runs.pid_start   when that process started (Linux: /proc/PID/stat field 22, clock ticks
//                    after boot), so a pid the system gave to another process since is not
//                    taken for the sweep
#include "tuner/store/migrations.hpp"

namespace cuop::store::detail {

const char schema_v5_sql[] = R"sql(
ALTER TABLE runs ADD COLUMN pid INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN pid_start INTEGER NOT NULL DEFAULT 0;
)sql";

}  // namespace cuop::store::detail
