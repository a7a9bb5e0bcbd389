// Schema version 2 of the store (PRAGMA user_version = 2): what the measurement engine records
// (docs/measurement.md). Only columns are added, each with a default, so every row of a version 1
// database stays and reads as it did.
//
//   runs.state_reason      why a run is "invalid" (its environment, checked before and after)
//   runs.env_checks        the checks themselves, JSON: {"before": {...}, "after": {...}}
//   trials.warmup_ms       warm-up before the samples (ms); 0 for version 1 rows
//   trials.warmup_cap_ms   the warm-up cap the trial ran under (ms); 0 for version 1 rows
//   trials.warmup_capped   1 when the warm-up cap ended it before the SM clock settled
//   trials.batch           launches per sample: 1 single launches; > 1 a CUDA graph's time / batch
//   trials.clock_source    where the per-sample SM clocks came from: nvml, globaltimer, none
//                          ('' for version 1 rows: not recorded)
//   samples.sm_clock_mhz   the SM clock of the sample (MHz), 0 when unknown
#include "tuner/store/migrations.hpp"

namespace cuop::store::detail {

const char schema_v2_sql[] = R"sql(
ALTER TABLE runs ADD COLUMN state_reason TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN env_checks TEXT NOT NULL DEFAULT '';
ALTER TABLE trials ADD COLUMN warmup_ms REAL NOT NULL DEFAULT 0;
ALTER TABLE trials ADD COLUMN warmup_cap_ms INTEGER NOT NULL DEFAULT 0;
ALTER TABLE trials ADD COLUMN warmup_capped INTEGER NOT NULL DEFAULT 0;
ALTER TABLE trials ADD COLUMN batch INTEGER NOT NULL DEFAULT 1;
ALTER TABLE trials ADD COLUMN clock_source TEXT NOT NULL DEFAULT '';
ALTER TABLE samples ADD COLUMN sm_clock_mhz REAL NOT NULL DEFAULT 0;
)sql";

}  // namespace cuop::store::detail
