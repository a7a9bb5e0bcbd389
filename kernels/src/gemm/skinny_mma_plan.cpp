// Validity and launch planning of the skinny_mma GEMM family. The mapping, shared memory and
// split-K workspace computed here are those of kernels/include/cuop/kernels/gemm/skinny_mma.cuh
// (its header comment and the static_asserts of skinny_mma<>): change both together.
#include <limits>

#include "cuop/kernels/gemm/skinny_plan.hpp"

namespace cuop::kernels::gemm::detail {

namespace {

constexpr int max_k_chunk = 256;
constexpr int max_split_k = 256;
constexpr int max_accumulators = 128;  // f32 per lane: 16-column tiles x 8-row groups x 4
constexpr int max_b_registers = 64;    // registers of B one step loads per lane (twice in flight)
constexpr long long static_smem_limit = 48 * 1024;
constexpr long long max_grid_x = std::numeric_limits<int>::max();
constexpr long long max_grid_yz = 65535;
// skinny.cuh: skinny_split_max_tiles / skinny_split_counter_bytes, shared with skinny.
constexpr long long split_max_tiles = 16384;
constexpr long long split_counter_bytes = 4 * split_max_tiles;
constexpr long long k_headroom = 1ll << 20;  // 32-bit K offsets, a step past the end before the cut

std::string str(long long v) { return std::to_string(v); }

struct mapping {
  int warps = 0;
  int r_tiles = 0;      // 16-column tiles per warp
  int group_warps = 0;  // warps of a column group (they split K and add in shared memory)
};

mapping map_of(const gemm_config& c) {
  mapping m;
  m.warps = c.threads / 32;
  const int n_tiles = c.block_n / 16;
  const int groups = n_tiles < m.warps ? n_tiles : m.warps;
  m.r_tiles = n_tiles / groups;
  m.group_warps = m.warps / groups;
  return m;
}

long long smem_of(const gemm_config& c, const mapping& m) {
  const long long partials =
      m.group_warps > 1 ? 4ll * m.group_warps * c.m_tile * static_cast<long long>(c.block_n) : 4;
  return partials + 4;
}

}  // namespace

std::string check_skinny_mma(const gemm_config& c) {
  if (c.fam != family::skinny_mma) return "not a skinny_mma configuration";
  if (c.in != dtype::f16 && c.in != dtype::bf16)
    return "input dtype " + std::string(name_of(c.in)) + " is not f16 or bf16";
  if (c.out != dtype::f32 && c.out != c.in)
    return "output dtype " + std::string(name_of(c.out)) + " is neither f32 nor the input dtype " +
           std::string(name_of(c.in));
  if (c.b != b_layout::col)
    return "skinny_mma needs column-major b (weights stored n x k); row-major b is for skinny or mma";
  if (c.threads < 32 || c.threads % 32 != 0)
    return "threads " + str(c.threads) + " is not a positive multiple of 32";
  if (c.threads > 1024) return "threads " + str(c.threads) + " > 1024";
  if (c.m_tile < 8 || c.m_tile > 64 || c.m_tile % 8 != 0)
    return "m_tile " + str(c.m_tile) + " is not 8, 16, ..., 64 (8-row MMA groups)";
  if (c.k_chunk < 32 || c.k_chunk % 32 != 0)
    return "k_chunk " + str(c.k_chunk) + " is not a positive multiple of 32 (two m16n8k16 per chunk)";
  if (c.k_chunk > max_k_chunk) return "k_chunk " + str(c.k_chunk) + " > " + str(max_k_chunk);
  if (c.split_k < 1) return "split_k " + str(c.split_k) + " < 1";
  if (c.split_k > max_split_k) return "split_k " + str(c.split_k) + " > " + str(max_split_k);
  if (c.block_n < 16 || c.block_n % 16 != 0)
    return "block_n " + str(c.block_n) + " is not a positive multiple of 16 (16-column MMA tiles)";
  const int warps = c.threads / 32, n_tiles = c.block_n / 16;
  if (n_tiles % warps != 0 && warps % n_tiles != 0)
    return "block_n / 16 = " + str(n_tiles) + " is neither a multiple nor a divisor of the " +
           str(warps) + " warps of " + str(c.threads) + " threads";
  const mapping m = map_of(c);
  const long long acc = 4ll * m.r_tiles * (c.m_tile / 8);
  if (acc > max_accumulators)
    return "block_n " + str(c.block_n) + " over " + str(warps) + " warps x m_tile " + str(c.m_tile) +
           " = " + str(acc) + " accumulators per lane > " + str(max_accumulators);
  const long long b_regs = 8ll * m.r_tiles * (c.k_chunk / 32);
  if (b_regs > max_b_registers)
    return "k_chunk " + str(c.k_chunk) + " x " + str(m.r_tiles) + " 16-column tiles per warp loads " +
           str(b_regs) + " registers of b per step > " + str(max_b_registers);
  const long long smem = smem_of(c, m);
  if (smem > static_smem_limit)
    return "shared memory " + str(smem) + " bytes (" + str(m.group_warps) + " warps x m_tile " +
           str(c.m_tile) + " x block_n " + str(c.block_n) + " f32 partials) > " + str(static_smem_limit);
  return {};
}

std::string plan_skinny_mma(const gemm_config& c, int m, int n, int k, const device_limits& dev,
                            launch_plan& out) {
  if (std::string bad = check_skinny_mma(c); !bad.empty()) return bad;
  if (m < 1) return "m " + str(m) + " < 1";
  if (n < 1) return "n " + str(n) + " < 1";
  if (k < 1) return "k " + str(k) + " < 1";
  if (k > std::numeric_limits<int>::max() - k_headroom)
    return "k " + str(k) + " > " + str(std::numeric_limits<int>::max() - k_headroom) +
           " (32-bit offsets along k)";
  if (c.threads > dev.max_threads_per_block)
    return "block of " + str(c.threads) + " threads > device limit " + str(dev.max_threads_per_block);
  const long long smem = smem_of(c, map_of(c));
  if (dev.max_smem_per_block > 0 && smem > dev.max_smem_per_block)
    return "shared memory " + str(smem) + " bytes > device limit " + str(dev.max_smem_per_block);
  const long long gx = (static_cast<long long>(n) + c.block_n - 1) / c.block_n;
  const long long gy = (static_cast<long long>(m) + c.m_tile - 1) / c.m_tile;
  if (gx > max_grid_x) return "n " + str(n) + " needs " + str(gx) + " column blocks > " + str(max_grid_x);
  if (gy > max_grid_yz)
    return "m " + str(m) + " needs " + str(gy) + " row blocks of m_tile " + str(c.m_tile) + " > " +
           str(max_grid_yz);
  launch_plan p;
  p.grid_x = static_cast<unsigned>(gx);
  p.grid_y = static_cast<unsigned>(gy);
  p.grid_z = static_cast<unsigned>(c.split_k);
  p.block_x = static_cast<unsigned>(c.threads);
  if (c.split_k > 1) {
    const long long tiles = gx * gy;
    if (tiles > split_max_tiles)
      return "split_k " + str(c.split_k) + " needs a counter per output tile: " + str(tiles) +
             " tiles of " + str(c.m_tile) + " x " + str(c.block_n) + " > " + str(split_max_tiles);
    p.workspace_bytes = static_cast<std::size_t>(
        split_counter_bytes + 4ll * tiles * c.split_k * c.m_tile * static_cast<long long>(c.block_n));
  }
  out = p;
  return {};
}

}  // namespace cuop::kernels::gemm::detail
