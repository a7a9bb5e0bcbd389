#include "tuner/store/migrations.hpp"

#include <array>
#include <string>

#include "tuner/core/error.hpp"
#include "tuner/store/store.hpp"

namespace cuop::store::detail {

std::span<const migration> migrations() {
  static constexpr std::array<migration, 6> steps{{
      {1, schema_v1_sql},
      {2, schema_v2_sql},
      {3, schema_v3_sql},
      {4, schema_v4_sql},
      {5, schema_v5_sql},
      {6, schema_v6_sql, rename_keys_v6},
  }};
  static_assert(steps.back().to_version == schema_version, "one migration step per version");
  return steps;
}

int read_user_version(connection& c) {
  statement s(c, "PRAGMA user_version", "reading the schema version");
  if (!s.step()) throw error(c.path() + ": reading the schema version: no result");
  return static_cast<int>(s.int64(0));
}

void migrate(connection& c) {
  const int current = read_user_version(c);
  for (const migration& m : migrations()) {
    if (m.to_version <= current) continue;  // no write lock taken when already up to date
    const std::string what = "migrating to schema " + std::to_string(m.to_version);
    transaction tx(c, what);
    if (read_user_version(c) >= m.to_version) continue;  // another process got here first
    c.exec(m.sql, what);
    if (m.rewrite) m.rewrite(c);
    // PRAGMA takes no bound parameters; the version is our own constant, not an input value.
    c.exec("PRAGMA user_version = " + std::to_string(m.to_version), what);
    tx.commit();
  }
}

}  // namespace cuop::store::detail
