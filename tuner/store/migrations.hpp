// Schema migrations: an ordered list of steps, step i taking user_version i-1 to i. Adding schema
// version N means appending one entry (and bumping store::schema_version).
#pragma once

#include <span>

#include "tuner/store/sqlite_handle.hpp"

namespace cuop::store::detail {

extern const char schema_v1_sql[];
extern const char schema_v2_sql[];
extern const char schema_v3_sql[];
extern const char schema_v4_sql[];
extern const char schema_v5_sql[];
extern const char schema_v6_sql[];

// Version 6 rewrites values (keys of issue 38) in C++ after its SQL: schema_v6.cpp.
void rename_keys_v6(connection& c);

struct migration {
  int to_version;                          // user_version after this step
  const char* sql;                         // schema statements only, never values
  void (*rewrite)(connection&) = nullptr;  // then rows rewritten in C++, in the same transaction
};

std::span<const migration> migrations();

int read_user_version(connection& c);

// Applies every step above the file's user_version, each in its own BEGIN IMMEDIATE transaction
// (re-reading the version inside it, so two processes opening a new file race safely).
void migrate(connection& c);

}  // namespace cuop::store::detail
