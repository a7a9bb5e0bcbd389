#include "tuner/compile/cubin_cache.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "tuner/core/error.hpp"

namespace cuop::compile::detail {

namespace fs = std::filesystem;

namespace {

std::optional<std::string> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Writes a unique temporary file next to `path`, then renames it over `path` (atomic on POSIX).
void write_atomically(const fs::path& path, std::string_view data) {
  static std::atomic<unsigned long long> counter{0};
  const fs::path tmp = path.string() + fmt::format(".tmp.{}.{}", ::getpid(), counter++);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    out.close();
    if (!out) {
      std::error_code ignored;
      fs::remove(tmp, ignored);
      throw error(fmt::format("{}: cannot write the cubin cache", tmp.string()));
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw error(fmt::format("{}: cannot write the cubin cache", path.string()));
  }
}

}  // namespace

std::optional<cache_entry> cache_load(const std::string& dir, const std::string& target,
                                      const std::string& key) {
  const fs::path base = fs::path(dir) / target / key;
  // The log is written first, so a present cubin means a complete entry.
  auto cubin = read_file(base.string() + ".cubin");
  if (!cubin || cubin->empty()) return std::nullopt;
  auto log = read_file(base.string() + ".log");
  if (!log) return std::nullopt;
  return cache_entry{std::vector<char>(cubin->begin(), cubin->end()), std::move(*log)};
}

void cache_store(const std::string& dir, const std::string& target, const std::string& key,
                 const cache_entry& entry) {
  const fs::path folder = fs::path(dir) / target;
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) throw error(fmt::format("{}: cannot create the cubin cache folder", folder.string()));
  write_atomically(folder / (key + ".log"), entry.log);
  write_atomically(folder / (key + ".cubin"),
                   std::string_view(entry.cubin.data(), entry.cubin.size()));
}

}  // namespace cuop::compile::detail
