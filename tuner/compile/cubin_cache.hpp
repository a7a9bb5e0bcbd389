// The on-disk cubin cache: <dir>/<target>/<key>.cubin with <key>.log beside it (the ptxas report,
// so resource usage is known on a hit). Files are written to a temporary name and renamed, so
// concurrent sweeps sharing a cache never read half a file.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace cuop::compile::detail {

struct cache_entry {
  std::vector<char> cubin;
  std::string log;
};

// Empty when the entry is absent or incomplete.
std::optional<cache_entry> cache_load(const std::string& dir, const std::string& target, const std::string& key);

// Throws cuop::error naming the path when the cache cannot be written.
void cache_store(const std::string& dir, const std::string& target, const std::string& key, const cache_entry& entry);

}  // namespace cuop::compile::detail
