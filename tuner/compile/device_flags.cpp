// The device flags both compilers use: one file, read by CMake for nvcc and here for NVRTC.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tuner/compile/compile.hpp"
#include "tuner/core/error.hpp"

namespace cuop::compile {

namespace {

std::string trim(const std::string& s) {
  const auto begin = s.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return {};
  return s.substr(begin, s.find_last_not_of(" \t\r\n") - begin + 1);
}

std::vector<std::string> split_list(std::string_view list) {
  std::vector<std::string> out;
  while (!list.empty()) {
    const auto end = list.find(';');
    if (auto item = list.substr(0, end); !item.empty()) out.emplace_back(item);
    if (end == std::string_view::npos) break;
    list.remove_prefix(end + 1);
  }
  return out;
}

// The install prefix this executable runs from (<prefix>/bin/cuop-tune), when that prefix holds
// the kernel headers and the flags file (cmake --install of the tuner); empty otherwise, e.g. in
// the build tree, where the paths compiled in serve.
std::filesystem::path installed_prefix() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  auto prefix = exe.parent_path().parent_path();
  if (std::filesystem::is_regular_file(prefix / "share/cuop/device_flags.txt", ec) &&
      std::filesystem::is_directory(prefix / "include/cuop/kernels", ec))
    return prefix;
  return {};
}

}  // namespace

std::string device_flags_file() {
  if (const char* env = std::getenv("CUOP_DEVICE_FLAGS_FILE"); env != nullptr && *env != '\0') return env;
  if (const auto prefix = installed_prefix(); !prefix.empty()) return (prefix / "share/cuop/device_flags.txt").string();
#ifdef CUOP_DEVICE_FLAGS_FILE
  return CUOP_DEVICE_FLAGS_FILE;
#else
  return {};
#endif
}

std::vector<std::string> device_flags() {
  const std::string path = device_flags_file();
  if (path.empty()) throw error("device flags: no flags file (set CUOP_DEVICE_FLAGS_FILE)");
  std::ifstream in(path);
  if (!in) throw error(fmt::format("{}: cannot read the device flags file", path));
  std::vector<std::string> flags;
  for (std::string line; std::getline(in, line);) {
    line = trim(line);
    if (!line.empty() && line.front() != '#') flags.push_back(line);
  }
  return flags;
}

std::string kernels_include_dir() {
  if (const char* env = std::getenv("CUOP_KERNELS_INCLUDE_DIR"); env != nullptr && *env != '\0') return env;
  if (const auto prefix = installed_prefix(); !prefix.empty()) return (prefix / "include").string();
#ifdef CUOP_KERNELS_INCLUDE_DIR
  return CUOP_KERNELS_INCLUDE_DIR;
#else
  return {};
#endif
}

std::vector<std::string> default_include_dirs() {
  std::vector<std::string> dirs;
  if (auto dir = kernels_include_dir(); !dir.empty()) dirs.push_back(std::move(dir));
#ifdef CUOP_CUDA_INCLUDE_DIR
  std::vector<std::string> cuda = split_list(CUOP_CUDA_INCLUDE_DIR);
#else
  std::vector<std::string> cuda = {"/usr/local/cuda/include"};
#endif
  for (const auto& dir : cuda) {
    if (std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) dirs.push_back(dir);
    // CUDA 13 keeps CCCL (cuda/std, cub, thrust) in include/cccl, which nvcc adds by itself.
    const auto cccl = (std::filesystem::path(dir) / "cccl").string();
    if (std::filesystem::is_directory(cccl) && std::find(dirs.begin(), dirs.end(), cccl) == dirs.end())
      dirs.push_back(cccl);
  }
  return dirs;
}

}  // namespace cuop::compile
