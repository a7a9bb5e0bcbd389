// compiler::build: NVRTC compile (or cache hit) -> ptxas resource usage -> target limits.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nvrtc.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "tuner/compile/compile.hpp"
#include "tuner/compile/cubin_cache.hpp"
#include "tuner/core/error.hpp"

namespace cuop::compile {

namespace fs = std::filesystem;

namespace {

const std::string& nvrtc_version() {
  static const std::string version = [] {
    int major = 0, minor = 0;
    nvrtcVersion(&major, &minor);
    return fmt::format("nvrtc {}.{}", major, minor);
  }();
  return version;
}

// CUDA's own headers are versioned by the NVRTC version already; hashing them would cost seconds.
bool is_toolkit_include(const fs::path& dir) {
  return fs::exists(dir / "cuda_runtime_api.h") || fs::exists(dir / "cuda" / "std");
}

// Digest of every file under the project's include folders, so editing a kernel header
// invalidates the cubins built from it (the source of a candidate only #includes it).
std::string headers_hash(const std::vector<std::string>& include_dirs) {
  std::string digest;
  for (const auto& dir : include_dirs) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec) || is_toolkit_include(dir)) continue;
    std::vector<fs::path> files;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it); it.increment(ec))
      if (it->is_regular_file(ec)) files.push_back(it->path());
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      std::ifstream in(file, std::ios::binary);
      const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
      digest += fmt::format("{} {}\n", fs::relative(file, dir).string(), hash_hex(text));
    }
  }
  return hash_hex(digest);
}

// Up to five lines that say "error", trimmed; else the first lines of the log.
std::string first_error_lines(const std::string& log) {
  std::vector<std::string> errors, any;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    const auto begin = line.find_first_not_of(" \t\r");
    if (begin == std::string::npos) continue;
    line = line.substr(begin, line.find_last_not_of(" \t\r") - begin + 1);
    if (line.find("error") != std::string::npos && errors.size() < 5) errors.push_back(line);
    if (any.size() < 5) any.push_back(line);
  }
  return fmt::format("{}", fmt::join(errors.empty() ? any : errors, "\n"));
}

struct program {
  nvrtcProgram handle = nullptr;
  ~program() {
    if (handle != nullptr) nvrtcDestroyProgram(&handle);
  }
};

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// One NVRTC compilation into `res` (log, cubin, or the failure). Returns false on failure, with
// status and message set.
bool run_nvrtc(const std::string& source, const std::string& entry, const std::vector<std::string>& options,
               const target& t, int block_threads, long long dynamic_smem, result& res) {
  program prog;
  const std::string name = entry + ".cu";
  if (nvrtcResult rc = nvrtcCreateProgram(&prog.handle, source.c_str(), name.c_str(), 0, nullptr, nullptr);
      rc != NVRTC_SUCCESS)
    throw error(fmt::format("nvrtc: cannot create program for \"{}\": {}", entry, nvrtcGetErrorString(rc)));
  std::vector<const char*> argv;
  for (const auto& o : options) argv.push_back(o.c_str());
  const nvrtcResult rc = nvrtcCompileProgram(prog.handle, static_cast<int>(argv.size()), argv.data());
  std::size_t size = 0;
  nvrtcGetProgramLogSize(prog.handle, &size);
  res.log.resize(size);
  if (size > 0) nvrtcGetProgramLog(prog.handle, res.log.data());
  while (!res.log.empty() && res.log.back() == '\0') res.log.pop_back();
  if (rc != NVRTC_SUCCESS) {
    // ptxas rejects some limits itself (static shared memory over 48 KB) and NVRTC's log then
    // holds only the usage: report the limit rather than a bare failure.
    try {
      res.usage = parse_ptxas_log(res.log, entry);
      res.message = check_limits(res.usage, t, block_threads, dynamic_smem);
    } catch (const error&) {
    }
    res.status = res.message.empty() ? build_status::compile_error : build_status::over_limit;
    if (res.message.empty()) res.message = first_error_lines(res.log);
    if (res.message.empty()) res.message = fmt::format("nvrtc: {}", nvrtcGetErrorString(rc));
    return false;
  }
  nvrtcGetCUBINSize(prog.handle, &size);
  res.cubin.resize(size);
  if (size > 0) nvrtcGetCUBIN(prog.handle, res.cubin.data());
  if (res.cubin.empty()) {
    res.status = build_status::compile_error;
    res.message = fmt::format("nvrtc: no cubin for {}", t.name);
    return false;
  }
  return true;
}

// Where a driver is installed, NVRTC serves repeated compilations from the driver's compute cache
// and then prints no ptxas report, so resource usage would be lost (seen on the H200 host;
// NVIDIA/cuda-python#1124). The driver reads the switch when it initializes, so it is set before
// main, ahead of any CUDA call. This compiler keeps its own cache, keyed on everything.
[[maybe_unused]] const bool driver_compute_cache_off = setenv("CUDA_CACHE_DISABLE", "1", 1) == 0;

}  // namespace

compiler::compiler(std::string cache_dir, std::vector<std::string> include_dirs)
    : m_cache_dir(std::move(cache_dir)),
      m_include_dirs(std::move(include_dirs)),
      m_headers_hash(headers_hash(m_include_dirs)) {}

result compiler::build(const request& r) const {
  const target* t = find_target(r.target);
  if (t == nullptr)
    throw error(fmt::format("unknown target \"{}\" (expected one of: {})", r.target, fmt::join(target_names(), ", ")));
  const auto start = std::chrono::steady_clock::now();

  std::vector<std::string> options = device_flags();
  options.push_back("-arch=" + t->name);
  options.push_back("-Xptxas=-v");
  for (const auto& dir : m_include_dirs) options.push_back("-I" + dir);

  result res;
  res.source_hash = hash_hex(
      fmt::format("{}\n{}\n{}\n{}\n{}", r.source, fmt::join(options, " "), t->name, nvrtc_version(), m_headers_hash));

  std::optional<detail::cache_entry> cached;
  if (!m_cache_dir.empty()) cached = detail::cache_load(m_cache_dir, t->name, res.source_hash);
  if (cached) {
    res.from_cache = true;
    res.log = std::move(cached->log);
    res.cubin = std::move(cached->cubin);
  } else {
    if (!run_nvrtc(r.source, r.entry, options, *t, r.block_threads, r.dynamic_smem, res)) {
      res.compile_ms = ms_since(start);
      return res;
    }
    if (!m_cache_dir.empty()) detail::cache_store(m_cache_dir, t->name, res.source_hash, {res.cubin, res.log});
  }
  res.cubin_hash = hash_hex(std::string_view(res.cubin.data(), res.cubin.size()));
  try {
    res.usage = parse_ptxas_log(res.log, r.entry);
    res.message = check_limits(res.usage, *t, r.block_threads, r.dynamic_smem);
    if (!res.message.empty()) res.status = build_status::over_limit;
  } catch (const error& e) {  // the source does not define the entry
    res.status = build_status::compile_error;
    res.message = e.what();
  }
  if (res.status != build_status::ok) res.cubin.clear();
  res.compile_ms = ms_since(start);
  return res;
}

}  // namespace cuop::compile
