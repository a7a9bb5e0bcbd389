// Whether a compiled kernel can be launched with the requested block on a target. ptxas does not
// know the block size or the dynamic shared memory, so these are checked here.
#include <fmt/format.h>

#include "tuner/compile/compile.hpp"

namespace cuop::compile {

namespace {

// Registers are allocated per warp in units of 256 (all targets here), so a partial warp or an
// odd register count costs more than registers x threads.
long long registers_allocated(int registers, int block_threads) {
  const long long warps = (block_threads + 31) / 32;
  const long long per_warp = (registers * 32LL + 255) / 256 * 256;
  return warps * per_warp;
}

}  // namespace

std::string check_limits(const resource_usage& usage, const target& t, int block_threads, long long dynamic_smem) {
  if (block_threads > t.max_threads_per_block)
    return fmt::format("block of {} threads > {} threads per block on {}", block_threads, t.max_threads_per_block,
                       t.name);
  if (usage.registers > t.max_regs_per_thread)
    return fmt::format("{} registers > {} registers per thread on {}", usage.registers, t.max_regs_per_thread, t.name);
  if (block_threads > 0) {
    const long long regs = registers_allocated(usage.registers, block_threads);
    if (regs > t.max_regs_per_block)
      return fmt::format("{} registers x {} threads = {} > {} registers per block on {}", usage.registers,
                         block_threads, regs, t.max_regs_per_block, t.name);
  }
  if (usage.smem_static > t.max_static_smem)
    return fmt::format("static shared memory {} bytes > {} bytes per block on {}", usage.smem_static, t.max_static_smem,
                       t.name);
  if (usage.smem_static + dynamic_smem > t.max_smem_per_block)
    return fmt::format("shared memory {} + {} bytes > {} bytes per block on {}", usage.smem_static, dynamic_smem,
                       t.max_smem_per_block, t.name);
  return {};
}

}  // namespace cuop::compile
