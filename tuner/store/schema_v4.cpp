// Schema version 4 of the store (PRAGMA user_version = 4): results tied to the code that produced
// them (docs/cli.md, "Freshness"). One column is added, with a default, so every row of an older
// database stays and reads as it did.
//
//   runs.family_hashes  {"<family>": "<hash>", ...}: per kernel family of the run's op, the hash
//                       of the kernel sources the run measured (tuner/ops/family_sources.hpp);
//                       '' for runs recorded before version 4
#include "tuner/store/migrations.hpp"

namespace cuop::store::detail {

const char schema_v4_sql[] = R"sql(
ALTER TABLE runs ADD COLUMN family_hashes TEXT NOT NULL DEFAULT '';
)sql";

}  // namespace cuop::store::detail
