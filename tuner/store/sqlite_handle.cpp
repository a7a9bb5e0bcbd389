#include "tuner/store/sqlite_handle.hpp"

#include <sqlite3.h>

#include <utility>

#include "tuner/core/error.hpp"

namespace cuop::store::detail {

connection::connection(std::string path, int flags) : m_path(std::move(path)) {
  const int rc = sqlite3_open_v2(m_path.c_str(), &m_db, flags, nullptr);
  if (rc != SQLITE_OK) {
    const std::string msg = m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
    sqlite3_close(m_db);  // a handle is returned even on failure
    m_db = nullptr;
    throw error(m_path + ": cannot open database: " + msg);
  }
  sqlite3_extended_result_codes(m_db, 1);
}

connection::~connection() { sqlite3_close_v2(m_db); }

std::int64_t connection::last_insert_rowid() const noexcept { return sqlite3_last_insert_rowid(m_db); }

int connection::changes() const noexcept { return sqlite3_changes(m_db); }

void connection::exec(std::string_view sql, std::string_view what) {
  const std::string text(sql);
  const int rc = sqlite3_exec(m_db, text.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) fail(rc, what);
}

void connection::copy_into_memory(std::string_view what) {
  sqlite3* memory = nullptr;
  if (const int rc = sqlite3_open_v2(":memory:", &memory, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
      rc != SQLITE_OK) {
    sqlite3_close(memory);
    fail(rc, what);
  }
  sqlite3_backup* backup = sqlite3_backup_init(memory, "main", m_db, "main");
  int rc = backup ? sqlite3_backup_step(backup, -1) : sqlite3_errcode(memory);
  if (backup) sqlite3_backup_finish(backup);
  if (rc != SQLITE_DONE) {
    const std::string msg = sqlite3_errmsg(memory);
    sqlite3_close(memory);
    throw error(m_path + ": " + std::string(what) + ": " + msg);
  }
  sqlite3_extended_result_codes(memory, 1);
  sqlite3_close_v2(m_db);
  m_db = memory;
}

void connection::fail(int rc, std::string_view what) const {
  const int primary = rc & 0xff;
  if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED)
    throw error(m_path + ": database is locked by another process");
  // sqlite3_errmsg describes the most recent failing call on this connection, which is ours.
  const char* msg = m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
  throw error(m_path + ": " + std::string(what) + ": " + msg);
}

statement::statement(connection& c, std::string_view sql, std::string_view what) : m_conn(c), m_what(what) {
  const int rc = sqlite3_prepare_v2(c.get(), sql.data(), static_cast<int>(sql.size()), &m_stmt, nullptr);
  if (rc != SQLITE_OK) m_conn.fail(rc, m_what);
}

statement::~statement() { sqlite3_finalize(m_stmt); }

statement& statement::bind(int i, std::int64_t v) {
  const int rc = sqlite3_bind_int64(m_stmt, i, v);
  if (rc != SQLITE_OK) m_conn.fail(rc, m_what);
  return *this;
}

statement& statement::bind(int i, double v) {
  const int rc = sqlite3_bind_double(m_stmt, i, v);
  if (rc != SQLITE_OK) m_conn.fail(rc, m_what);
  return *this;
}

statement& statement::bind(int i, std::string_view v) {
  const int rc = sqlite3_bind_text64(m_stmt, i, v.data(), v.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  if (rc != SQLITE_OK) m_conn.fail(rc, m_what);
  return *this;
}

statement& statement::bind_null(int i) {
  const int rc = sqlite3_bind_null(m_stmt, i);
  if (rc != SQLITE_OK) m_conn.fail(rc, m_what);
  return *this;
}

bool statement::step() {
  const int rc = sqlite3_step(m_stmt);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  m_conn.fail(rc, m_what);
}

void statement::run() {
  if (step()) throw error(m_conn.path() + ": " + m_what + ": statement returned a row");
}

void statement::reset() {
  sqlite3_reset(m_stmt);  // its return code repeats the last step's, already reported
  sqlite3_clear_bindings(m_stmt);
}

bool statement::is_null(int col) const { return sqlite3_column_type(m_stmt, col) == SQLITE_NULL; }

std::int64_t statement::int64(int col) const { return sqlite3_column_int64(m_stmt, col); }

double statement::real(int col) const { return sqlite3_column_double(m_stmt, col); }

std::string statement::text(int col) const {
  const auto* p = sqlite3_column_text(m_stmt, col);
  if (!p) return {};
  return std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, col)));
}

transaction::transaction(connection& c, std::string_view what, kind k) : m_conn(c), m_what(what) {
  m_conn.exec(k == kind::write ? "BEGIN IMMEDIATE" : "BEGIN", m_what);
}

transaction::~transaction() {
  if (m_open) sqlite3_exec(m_conn.get(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void transaction::commit() {
  m_conn.exec("COMMIT", m_what);
  m_open = false;
}

}  // namespace cuop::store::detail
