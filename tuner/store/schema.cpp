// Schema version 1 of the store (PRAGMA user_version = 1). Version 2 adds columns
// (schema_v2.cpp): the warm-up, batch and clock source of trials, the SM clock of samples, the
// reason and environment checks of runs.
//
//   runs      one sweep (or validation) invocation and the environment it ran in.
//             started_at/finished_at are ISO 8601 UTC; finished_at is NULL while running or when
//             the process was killed. state: running | finished | interrupted | failed | invalid.
//             env_key = environment::key(): rows with the same key may be compared.
//   problems  one shape of one op and dtype; key ("softmax_f16_32768x1024") is unique.
//             dims_json holds the dimensions, bytes the traffic used for GB/s.
//   configs   one configuration; instance (the kernel's stable name) is unique. params_json holds
//             the parameters in the family's order. A row may first appear as a stub (empty op)
//             when a build is stored before the configuration itself; put_config/put_trial fill it.
//   builds    one compilation of a config for a target from a given source hash, with ptxas'
//             resource usage; unique on (config_id, target, source_hash), upserted.
//   trials    one measurement of a config on a problem in an environment; unique on
//             (env_key, problem_id, config_id): re-measuring replaces. run_id is NULL when the
//             trial was stored outside a run. Times are microseconds; ci_* is the 95% CI of the
//             median; status is "ok" or the failure ("wrong_answer", "crashed", ...).
//             AUTOINCREMENT: a replaced trial's id is never handed out again.
//   samples   raw per-sample times of a trial, deleted with it (ON DELETE CASCADE).
//
// Indexes serve: trials by run, by problem and by config (the filters of database::trials and the
// foreign keys' deletes), configs/problems by op, builds by config.
#include "tuner/store/migrations.hpp"

namespace cuop::store::detail {

const char schema_v1_sql[] = R"sql(
CREATE TABLE runs (
  id           INTEGER PRIMARY KEY,
  started_at   TEXT NOT NULL,
  finished_at  TEXT,
  spec_file    TEXT NOT NULL DEFAULT '',
  spec_hash    TEXT NOT NULL DEFAULT '',
  op           TEXT NOT NULL DEFAULT '',
  mode         TEXT NOT NULL DEFAULT '',
  state        TEXT NOT NULL,
  env_key      TEXT NOT NULL,
  gpu_name     TEXT NOT NULL DEFAULT '',
  gpu_uuid     TEXT NOT NULL DEFAULT '',
  sm_count     INTEGER NOT NULL DEFAULT 0,
  l2_bytes     INTEGER NOT NULL DEFAULT 0,
  cc           INTEGER NOT NULL DEFAULT 0,
  driver       TEXT NOT NULL DEFAULT '',
  cuda_runtime TEXT NOT NULL DEFAULT '',
  libraries    TEXT NOT NULL DEFAULT '',
  git_rev      TEXT NOT NULL DEFAULT '',
  build_flags  TEXT NOT NULL DEFAULT '',
  source_hash  TEXT NOT NULL DEFAULT '',
  hostname     TEXT NOT NULL DEFAULT ''
);

CREATE TABLE problems (
  id        INTEGER PRIMARY KEY,
  key       TEXT NOT NULL UNIQUE,
  op        TEXT NOT NULL,
  dtype     TEXT NOT NULL,
  dims_json TEXT NOT NULL,
  bytes     REAL NOT NULL DEFAULT 0
);
CREATE INDEX problems_op ON problems(op);

CREATE TABLE configs (
  id          INTEGER PRIMARY KEY,
  instance    TEXT NOT NULL UNIQUE,
  op          TEXT NOT NULL DEFAULT '',
  family      TEXT NOT NULL DEFAULT '',
  dtype       TEXT NOT NULL DEFAULT '',
  params_json TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX configs_op ON configs(op);

CREATE TABLE builds (
  id           INTEGER PRIMARY KEY,
  config_id    INTEGER NOT NULL REFERENCES configs(id),
  target       TEXT NOT NULL,
  source_hash  TEXT NOT NULL,
  status       TEXT NOT NULL,
  message      TEXT NOT NULL DEFAULT '',
  registers    INTEGER NOT NULL DEFAULT 0,
  smem_static  INTEGER NOT NULL DEFAULT 0,
  stack_bytes  INTEGER NOT NULL DEFAULT 0,
  spill_stores INTEGER NOT NULL DEFAULT 0,
  spill_loads  INTEGER NOT NULL DEFAULT 0,
  cubin_hash   TEXT NOT NULL DEFAULT '',
  compile_ms   REAL NOT NULL DEFAULT 0,
  UNIQUE (config_id, target, source_hash)
);

CREATE TABLE trials (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id      INTEGER REFERENCES runs(id),
  env_key     TEXT NOT NULL,
  problem_id  INTEGER NOT NULL REFERENCES problems(id),
  config_id   INTEGER NOT NULL REFERENCES configs(id),
  device      INTEGER NOT NULL DEFAULT 0,
  status      TEXT NOT NULL,
  message     TEXT NOT NULL DEFAULT '',
  min_us      REAL NOT NULL DEFAULT 0,
  median_us   REAL NOT NULL DEFAULT 0,
  q1_us       REAL NOT NULL DEFAULT 0,
  q3_us       REAL NOT NULL DEFAULT 0,
  mean_us     REAL NOT NULL DEFAULT 0,
  stdev_us    REAL NOT NULL DEFAULT 0,
  ci_lo_us    REAL NOT NULL DEFAULT 0,
  ci_hi_us    REAL NOT NULL DEFAULT 0,
  samples     INTEGER NOT NULL DEFAULT 0,
  gbps        REAL NOT NULL DEFAULT 0,
  max_error   REAL NOT NULL DEFAULT 0,
  stop_reason TEXT NOT NULL DEFAULT '',
  created_at  TEXT NOT NULL,
  UNIQUE (env_key, problem_id, config_id)
);
CREATE INDEX trials_run ON trials(run_id);
CREATE INDEX trials_problem ON trials(problem_id);
CREATE INDEX trials_config ON trials(config_id);

CREATE TABLE samples (
  trial_id INTEGER NOT NULL REFERENCES trials(id) ON DELETE CASCADE,
  idx      INTEGER NOT NULL,
  time_us  REAL NOT NULL,
  PRIMARY KEY (trial_id, idx)
) WITHOUT ROWID;
)sql";

}  // namespace cuop::store::detail
