#include "tuner/ops/softmax/custom.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "cuop/kernels/softmax/launch.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/files.hpp"
#include "tuner/core/hash.hpp"
#include "tuner/core/text.hpp"

namespace cuop::ops {

namespace ks = kernels::softmax;

namespace {

std::string read_source(const std::string& path) {
  auto text = core::read_regular_file(path, core::max_sweep_file_bytes, "custom kernel source");
  if (text.empty()) throw error(fmt::format("custom kernel source {} is empty", core::quoted(path)));
  return text;
}

// The header's path inside the unit NVRTC compiles: in a comment and a #line string, where a
// newline, a quote or a backslash of a file name would end them. Escaped as a string literal's
// body; the comment gets the same text.
std::string path_literal(const std::string& path) {
  std::string out;
  for (const char ch : core::printable(path)) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out;
}

long long param_of(const space::point& p, const std::string& name, long long fallback) {
  for (const auto& [n, v] : p.params)
    if (n == name) return v;
  return fallback;
}

}  // namespace

kernel_candidate custom_softmax_candidate(const space::point& point, const std::string& dtype_name) {
  const auto type = parse_dtype(dtype_name);
  if (!type) throw error(fmt::format("unknown dtype \"{}\"", dtype_name));
  const long long threads = param_of(point, "block_threads", 0);
  if (threads <= 0) throw error("custom kernel without a positive block_threads parameter");
  const std::string text = read_source(point.source);

  // Every template argument and the header's contents are in the name, so it never names other code.
  std::string kernel_id = point.kernel;
  std::replace(kernel_id.begin(), kernel_id.end(), ':', '_');
  std::string instance =
      fmt::format("softmax_{}_custom_{}_{}", name_of(*type), kernel_id, fnv1a_hex(text).substr(0, 8));
  std::string args = std::string(device_type_of(*type));
  for (const auto& [name, value] : point.params) {
    instance += fmt::format("_{}{}", name, value);
    args += fmt::format(", {}", value);
  }

  // launch_bounds: 0 leaves __launch_bounds__ out (ptxas may then take more registers than the
  // block can have: the limit check rejects such a build before any launch).
  const long long bounds = param_of(point, "launch_bounds", threads);
  const std::string bounds_text = bounds > 0 ? fmt::format("__launch_bounds__({}) ", bounds) : std::string();

  kernel_candidate k;
  k.instance = instance;
  k.dtype_label = std::string(name_of(*type));
  k.block_threads = static_cast<int>(threads);
  k.dynamic_smem = param_of(point, "smem_bytes", 0);
  k.source = fmt::format(
      "#include <cuop/kernels/softmax/common.cuh>\n"
      "// \"{}\"\n"
      "#line 1 \"{}\"\n"
      "{}\n"
      "#line 1 \"{} (the entry cuop-tune generates)\"\n"
      "extern \"C\" __global__ void {}{}(cuop::kernels::softmax::softmax_args a) {{\n"
      "  {}<{}>::run(a);\n"
      "}}\n",
      path_literal(point.source), path_literal(point.source), text, instance, bounds_text, instance, point.kernel,
      args);
  return k;
}

std::string plan_custom_softmax(const nlohmann::json& config, const void* kernel, int device, long long rows,
                                ks::launch_plan& out, cudaError_t& error) {
  error = cudaSuccess;
  const auto& params = config.at("params");
  const long long threads = params.value("block_threads", 0LL);
  const long long smem = params.value("smem_bytes", 0LL);
  ks::device_limits dev;
  if ((error = ks::query_limits(device, kernel, static_cast<int>(std::max(1LL, threads)), dev)) != cudaSuccess)
    return "the occupancy query failed";
  if (threads <= 0 || threads > dev.max_threads_per_block)
    return fmt::format("block_threads {} outside 1..{} (the device's threads per block)", threads,
                       dev.max_threads_per_block);
  if (smem + dev.static_smem > dev.max_smem_per_block)
    return fmt::format("smem_bytes {} + {} static > {} (the device's shared memory per block, opt-in)", smem,
                       dev.static_smem, dev.max_smem_per_block);
  const bool opt_in = ks::needs_smem_opt_in(smem, dev.static_smem);
  if (opt_in && (error = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              static_cast<int>(smem))) != cudaSuccess)
    return "the dynamic shared memory attribute was refused";
  int per_sm = 0;  // with the launch's dynamic shared memory
  if ((error = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, static_cast<int>(threads),
                                                             static_cast<std::size_t>(smem))) != cudaSuccess)
    return "the occupancy query failed";
  const long long resident = static_cast<long long>(per_sm) * dev.sm_count;
  if (resident <= 0) return "no block of this kernel fits on an SM (registers or shared memory)";
  out = {};
  out.grid_x = static_cast<unsigned>(std::min(rows, resident));
  out.block_x = static_cast<unsigned>(threads);
  out.smem_bytes = static_cast<std::size_t>(smem);
  out.smem_opt_in = opt_in;
  return "";
}

}  // namespace cuop::ops
