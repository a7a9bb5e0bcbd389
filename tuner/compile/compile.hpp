// NVRTC compilation of candidate kernels for a target architecture, with an on-disk cubin cache
// and the resource usage read from ptxas' report.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cuop::compile {

// A compilation target and its published per-block limits (CUDA programming guide, compute
// capabilities table).
struct target {
  std::string name;              // "sm_80", "sm_90a", "sm_100a"
  int cc = 0;                    // 80, 90, 100
  long long max_smem_per_block;  // opt-in dynamic + static, bytes
  bool arch_specific = false;    // sm_90a, sm_100a: its code runs on its own compute capability only
  int max_threads_per_block = 1024;
  int max_regs_per_thread = 255;
  int max_regs_per_block = 65536;
  long long max_static_smem = 48 * 1024;  // statically declared __shared__, ptxas rejects more
};

const target* find_target(std::string_view name) noexcept;
std::vector<std::string> target_names();  // known targets, for error messages
// A sweep file without `targets`: sm_80, sm_90a, sm_100a (the library's default tables).
std::vector<std::string> default_target_names();
// The target a GPU of compute capability `cc` is measured with: its arch-specific one where
// there is one (sm_90a on 9.0), else its own; null when none.
const target* measuring_target(int cc) noexcept;

struct resource_usage {
  int registers = 0;
  long long smem_static = 0;
  long long stack_bytes = 0;
  long long spill_stores = 0;
  long long spill_loads = 0;
};

// Parses ptxas -v output for `entry`; throws cuop::error if the entry is not in the log.
resource_usage parse_ptxas_log(const std::string& log, const std::string& entry);

// Empty when `usage` with `block_threads` threads and `dynamic_smem` bytes fits `t`, else a
// message naming the limit ("128 registers x 1024 threads = 131072 > 65536 registers per block").
std::string check_limits(const resource_usage& usage, const target& t, int block_threads, long long dynamic_smem);

// Flags used on both paths (NVRTC here, nvcc in CMake via the generated flags file) so what is
// tuned is what ships.
std::vector<std::string> device_flags();

// Where the tuner finds what it compiles with (docs/packaging.md, "The tuner"): the environment
// variable when set ($CUOP_DEVICE_FLAGS_FILE, $CUOP_KERNELS_INCLUDE_DIR), else the install prefix
// it runs from (<prefix>/bin/cuop-tune: <prefix>/share/cuop/device_flags.txt, <prefix>/include),
// else the source tree it was built from. The flags file; empty when none is known.
std::string device_flags_file();
// The kernel library's include folder (cuop/kernels/... lives under it).
std::string kernels_include_dir();

// The include folders candidates need: the kernels' include folder (kernels_include_dir) and
// CUDA's (with CCCL), from the build's CUOP_CUDA_INCLUDE_DIR (a ';' list).
std::vector<std::string> default_include_dirs();

struct request {
  std::string source;  // complete translation unit
  std::string entry;   // extern "C" kernel name (also the instance name)
  std::string target;  // target name
  int block_threads = 0;
  long long dynamic_smem = 0;
};

enum class build_status { ok, compile_error, over_limit };
std::string_view name_of(build_status s) noexcept;

struct result {
  build_status status = build_status::ok;
  std::string message;  // first error lines, or the limit violated
  std::string log;      // full NVRTC log
  resource_usage usage;
  std::vector<char> cubin;  // empty unless ok
  std::string source_hash;  // hex digest of source + flags + target (the cache key)
  std::string cubin_hash;
  double compile_ms = 0;
  bool from_cache = false;
};

class compiler {
 public:
  // include_dirs: the kernels' include folder and CUDA's (cuda_fp16.h, CCCL).
  compiler(std::string cache_dir, std::vector<std::string> include_dirs);
  result build(const request& r) const;
  // Builds in parallel over `jobs` threads (0: hardware concurrency); results in request order.
  std::vector<result> build_all(const std::vector<request>& rs, int jobs = 0) const;

 private:
  std::string m_cache_dir;  // empty: no cache
  std::vector<std::string> m_include_dirs;
  std::string m_headers_hash;  // project headers under m_include_dirs, part of the cache key
};

// Hex digest (FNV-1a 64 is enough for cache keys and change detection; not a security hash).
std::string hash_hex(std::string_view data);

}  // namespace cuop::compile
