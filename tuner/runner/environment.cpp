#include "tuner/runner/environment.hpp"

#include <fmt/format.h>
#include <nvrtc.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "tuner/compile/compile.hpp"
#include "tuner/core/files.hpp"
#include "tuner/core/process.hpp"

namespace cuop::runner {

namespace fs = std::filesystem;

std::string kernel_source_hash() {
  std::vector<fs::path> files;
  const fs::path root = fs::path(compile::kernels_include_dir()) / "cuop" / "kernels";
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file()) files.push_back(it->path());
  std::sort(files.begin(), files.end());
  std::string all;
  for (const auto& f : files) all += fs::relative(f, root).string() + "\n" + core::read_file(f.string()).value_or("");
  for (const auto& flag : compile::device_flags()) all += flag + "\n";
  return compile::hash_hex(all);
}

store::environment describe_environment(const trial::device_info& device) {
  store::environment env;
  if (device.present) {
    env.gpu_name = device.name;
    env.gpu_uuid = device.uuid;
    env.sm_count = device.sm_count;
    env.l2_bytes = device.l2_bytes;
    env.cc = device.cc;
    env.driver = device.driver;
    env.cuda_runtime = device.runtime;
  }
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  env.libraries = fmt::format("nvrtc {}.{}", major, minor);
  env.git_rev = CUOP_GIT_REV;
  std::string flags;
  for (const auto& f : compile::device_flags()) flags += (flags.empty() ? "" : " ") + f;
  env.build_flags = fmt::format("{} [{}]", flags, CUOP_BUILD_TYPE);
  env.source_hash = kernel_source_hash();
  env.hostname = core::host_name();
  return env;
}

}  // namespace cuop::runner
