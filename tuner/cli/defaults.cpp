#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "tuner/catalog/catalog.hpp"
#include "tuner/cli/commands.hpp"
#include "tuner/store/store.hpp"

namespace cuop::cli {

std::string default_db_path() {
  if (const char* p = std::getenv("CUOP_DB"); p && *p) return p;
  return "cuop-tune.db";
}

std::vector<std::string> ops_in_database(store::database& db) {
  std::set<std::string> held;
  for (const auto& c : db.configs()) held.insert(c.op);
  std::vector<std::string> out;
  for (const auto& op : catalog::op_names())
    if (held.count(op)) out.push_back(op);
  return out;
}

std::string default_cache_dir() {
  if (const char* p = std::getenv("CUOP_CACHE_DIR"); p && *p) return p;
  if (const char* p = std::getenv("XDG_CACHE_HOME"); p && *p) return std::string(p) + "/cuop-tune";
  if (const char* p = std::getenv("HOME"); p && *p) return std::string(p) + "/.cache/cuop-tune";
  return ".cuop-cache";
}

}  // namespace cuop::cli
