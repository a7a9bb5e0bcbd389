// Schema version 3 of the store (PRAGMA user_version = 3): scale-out (docs/scale-out.md). Only
// columns are added, each with a default, so every row of an older database stays and reads as
// it did.
//
//   runs.shard        "K/N" when the run measured shard K of N (`sweep --shard`), else ''
//   runs.provenance   where a merged run came from: "<source database> run <id>" (`merge`),
//                     '' for a run measured into this database
#include "tuner/store/migrations.hpp"

namespace cuop::store::detail {

const char schema_v3_sql[] = R"sql(
ALTER TABLE runs ADD COLUMN shard TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN provenance TEXT NOT NULL DEFAULT '';
)sql";

}  // namespace cuop::store::detail
