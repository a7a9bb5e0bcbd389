// The rows of a query on a database, read-only, one "a|b|c" string per row: how the CLI tests look
// into what a command stored.
#pragma once

#include <sqlite3.h>

#include <string>
#include <vector>

namespace cuop::test {

inline std::vector<std::string> sqlite_rows(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(h);
    return {"(cannot open " + db + ")"};
  }
  sqlite3_stmt* s = nullptr;
  std::vector<std::string> out;
  if (sqlite3_prepare_v2(h, sql.c_str(), -1, &s, nullptr) != SQLITE_OK) {
    out.push_back("(bad query: " + std::string(sqlite3_errmsg(h)) + ")");
  } else {
    while (sqlite3_step(s) == SQLITE_ROW) {
      std::string row;
      for (int i = 0; i < sqlite3_column_count(s); ++i) {
        const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(s, i));
        row += (i ? "|" : "") + std::string(text ? text : "");
      }
      out.push_back(row);
    }
  }
  sqlite3_finalize(s);
  sqlite3_close(h);
  return out;
}

}  // namespace cuop::test
