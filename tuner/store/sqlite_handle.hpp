// Thin RAII wrappers over the SQLite C API: a connection, a prepared statement and a write
// transaction. Every failure becomes a cuop::error that names the database file.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace cuop::store::detail {

class connection {
 public:
  // `flags` are sqlite3_open_v2 flags. Throws cuop::error naming `path` and SQLite's message.
  connection(std::string path, int flags);
  ~connection();
  connection(const connection&) = delete;
  connection& operator=(const connection&) = delete;

  sqlite3* get() const noexcept { return m_db; }
  const std::string& path() const noexcept { return m_path; }

  std::int64_t last_insert_rowid() const noexcept;
  int changes() const noexcept;  // rows changed by the last INSERT/UPDATE/DELETE

  // Runs SQL text that carries no values (schema, pragmas, BEGIN/COMMIT).
  void exec(std::string_view sql, std::string_view what);

  // Replaces the open file by a copy of it in memory (sqlite3_backup), which may then be written
  // (migrated) while the file is not touched. path() still names the file.
  void copy_into_memory(std::string_view what);

  // Throws for result code `rc`: "<path>: database is locked by another process" when busy,
  // else "<path>: <what>: <sqlite message>".
  [[noreturn]] void fail(int rc, std::string_view what) const;

 private:
  std::string m_path;
  sqlite3* m_db = nullptr;
};

class statement {
 public:
  statement(connection& c, std::string_view sql, std::string_view what);
  ~statement();
  statement(const statement&) = delete;
  statement& operator=(const statement&) = delete;

  // Parameters are 1-based, as in SQLite.
  statement& bind(int i, std::int64_t v);
  statement& bind(int i, int v) { return bind(i, static_cast<std::int64_t>(v)); }
  statement& bind(int i, long long v) { return bind(i, static_cast<std::int64_t>(v)); }
  statement& bind(int i, double v);
  statement& bind(int i, std::string_view v);
  statement& bind(int i, const std::string& v) { return bind(i, std::string_view(v)); }
  statement& bind(int i, const char* v) { return bind(i, std::string_view(v)); }
  statement& bind_null(int i);

  template <class... Args>
  statement& bind_all(const Args&... args) {
    int i = 0;
    (bind(++i, args), ...);
    return *this;
  }

  bool step();   // true: a row is ready; false: done
  void run();    // steps once and expects no row
  void reset();  // ready to bind and step again (bindings cleared)

  // Columns are 0-based, as in SQLite.
  bool is_null(int col) const;
  std::int64_t int64(int col) const;
  double real(int col) const;
  std::string text(int col) const;

 private:
  connection& m_conn;
  sqlite3_stmt* m_stmt = nullptr;
  std::string m_what;
};

// write: BEGIN IMMEDIATE takes the write lock up front, so a busy database fails here and not
// halfway. read: BEGIN (deferred), one consistent snapshot for several SELECTs.
// Rolls back on destruction unless committed.
class transaction {
 public:
  enum class kind { write, read };
  transaction(connection& c, std::string_view what, kind k = kind::write);
  ~transaction();
  transaction(const transaction&) = delete;
  transaction& operator=(const transaction&) = delete;
  void commit();

 private:
  connection& m_conn;
  std::string m_what;
  bool m_open = true;
};

}  // namespace cuop::store::detail
