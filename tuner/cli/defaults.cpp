#include <cstdlib>
#include <string>

#include "tuner/cli/commands.hpp"

namespace cuop::cli {

std::string default_db_path() {
  if (const char* p = std::getenv("CUOP_DB"); p && *p) return p;
  return "cuop-tune.db";
}

std::string default_cache_dir() {
  if (const char* p = std::getenv("CUOP_CACHE_DIR"); p && *p) return p;
  if (const char* p = std::getenv("XDG_CACHE_HOME"); p && *p) return std::string(p) + "/cuop-tune";
  if (const char* p = std::getenv("HOME"); p && *p) return std::string(p) + "/.cache/cuop-tune";
  return ".cuop-cache";
}

}  // namespace cuop::cli
