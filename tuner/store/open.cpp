#include <sqlite3.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tuner/core/error.hpp"
#include "tuner/core/files.hpp"
#include "tuner/core/text.hpp"
#include "tuner/store/migrations.hpp"
#include "tuner/store/sqlite_database.hpp"

namespace cuop::store {
namespace detail {
namespace {

int open_flags(open_mode mode) {
  return (mode == open_mode::read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
         SQLITE_OPEN_NOMUTEX;
}

// Read-only must not create the file; SQLite's own message ("unable to open database file")
// would not say why. A database is a regular file: SQLite would "open" /dev/null (and lose every
// write) or a FIFO.
const std::string& existing(const std::string& path, open_mode mode) {
  std::error_code ec;
  if (mode == open_mode::read_only && !std::filesystem::exists(path, ec)) throw error(path + ": no such database file");
  if (const auto kind = core::non_regular_kind(path); !kind.empty())
    throw error(path + ": not a database file (" + kind + ")");
  return path;
}

// A file at user_version 0 is not one this program made (schema 1 sets the version in the
// transaction that creates the tables): an empty SQLite file, which a read-write open
// initialises (SQLite's convention: an empty file is an empty database), or someone else's
// database, which is never written to.
void require_ours(connection& c, const std::string& path, open_mode mode) {
  std::vector<std::string> tables;
  {
    statement s(c, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", "reading the schema");
    while (s.step()) tables.push_back(s.text(0));
  }
  if (!tables.empty()) {
    std::string names;
    for (std::size_t i = 0; i < tables.size() && i < 3; ++i) names += (i ? ", " : "") + core::printable(tables[i]);
    if (tables.size() > 3) names += ", ...";
    throw error(path + ": not a cuop-tune database (a SQLite database of something else, with tables " + names + ")");
  }
  if (mode == open_mode::read_only) {
    std::error_code ec;
    const bool empty_file = std::filesystem::file_size(path, ec) == 0 && !ec;
    throw error(path + ": not a cuop-tune database (" + (empty_file ? "an empty file" : "an empty SQLite database") +
                ")");
  }
}

std::string pragma_text(connection& c, const char* sql, std::string_view what) {
  statement s(c, sql, what);
  return s.step() ? s.text(0) : std::string();
}

}  // namespace

sqlite_database::sqlite_database(const std::string& path, open_mode mode, int busy_timeout_ms)
    : m_conn(existing(path, mode), open_flags(mode)), m_mode(mode) {
  sqlite3_busy_timeout(m_conn.get(), busy_timeout_ms);

  // The version check comes first and writes nothing, so a newer file is left untouched (even
  // switching to WAL would rewrite its header). Reading it also detects a non-database file.
  const int version = read_user_version(m_conn);
  if (version == 0) require_ours(m_conn, path, mode);
  if (version > schema_version)
    throw error(path + ": database schema " + std::to_string(version) + " is newer than this cuop-tune (" +
                std::to_string(schema_version) + "); use a newer cuop-tune or another --db");

  if (mode == open_mode::read_only) {
    // An older file is read through an upgraded copy in memory: the file is never written, and
    // readers see the current schema (rows from before a column existed read its default).
    if (version < schema_version) {
      m_conn.copy_into_memory("reading schema " + std::to_string(version) + " into memory");
      migrate(m_conn);
    }
    m_conn.exec("PRAGMA foreign_keys = ON", "setting up the connection");
    return;
  }

  // WAL: readers never block the writer and a killed writer loses only its open transaction.
  const std::string journal = pragma_text(m_conn, "PRAGMA journal_mode = WAL", "enabling WAL");
  if (journal != "wal") throw error(path + ": enabling WAL: journal mode is \"" + journal + "\" (expected \"wal\")");
  m_conn.exec("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON", "setting up the connection");
  migrate(m_conn);
}

int sqlite_database::user_version() { return read_user_version(m_conn); }

void sqlite_database::require_writable(std::string_view what) const {
  if (m_mode == open_mode::read_only)
    throw error(m_conn.path() + ": " + std::string(what) + ": database is open read-only");
}

}  // namespace detail

std::unique_ptr<database> database::open(const std::string& path, open_mode mode) {
  return open(path, mode, default_busy_timeout_ms);
}

std::unique_ptr<database> database::open(const std::string& path, open_mode mode, int busy_timeout_ms) {
  return std::make_unique<detail::sqlite_database>(path, mode, busy_timeout_ms);
}

}  // namespace cuop::store
