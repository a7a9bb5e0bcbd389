#include "tuner/compile/cubin_cache.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "tuner/core/error.hpp"
#include "tuner/core/files.hpp"

namespace cuop::compile::detail {

namespace fs = std::filesystem;

std::optional<cache_entry> cache_load(const std::string& dir, const std::string& target, const std::string& key) {
  const fs::path base = fs::path(dir) / target / key;
  // The log is written first, so a present cubin means a complete entry.
  auto cubin = core::read_file(base.string() + ".cubin");
  if (!cubin || cubin->empty()) return std::nullopt;
  auto log = core::read_file(base.string() + ".log");
  if (!log) return std::nullopt;
  return cache_entry{std::vector<char>(cubin->begin(), cubin->end()), std::move(*log)};
}

void cache_store(const std::string& dir, const std::string& target, const std::string& key, const cache_entry& entry) {
  const fs::path folder = fs::path(dir) / target;
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) throw error(fmt::format("{}: cannot create the cubin cache folder", folder.string()));
  core::write_atomically((folder / (key + ".log")).string(), entry.log);
  core::write_atomically((folder / (key + ".cubin")).string(),
                         std::string_view(entry.cubin.data(), entry.cubin.size()));
}

}  // namespace cuop::compile::detail
