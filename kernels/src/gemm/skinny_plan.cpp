// Validity and launch planning of the skinny GEMM family. The thread mapping, the shared memory and
// the split-K workspace computed here are those of kernels/include/cuop/kernels/gemm/skinny.cuh
// (its header comment and the static_asserts of skinny<>): change both together.
#include "cuop/kernels/gemm/skinny_plan.hpp"

#include <limits>

namespace cuop::kernels::gemm::detail {

namespace {

constexpr int max_k_chunk = 256;  // 32 unrolled 16-byte loads per column and step
constexpr int max_split_k = 256;
constexpr int max_accumulators = 256;  // f32 accumulators per thread (m_tile x its columns)
constexpr int max_b_registers = 128;   // registers of B one step loads per thread
constexpr long long static_smem_limit = 48 * 1024;
constexpr long long max_grid_x = std::numeric_limits<int>::max();
constexpr long long max_grid_yz = 65535;
// skinny.cuh: skinny_split_max_tiles / skinny_split_counter_bytes (the mma family's region too).
constexpr long long split_max_tiles = 16384;
constexpr long long split_counter_bytes = 4 * split_max_tiles;
// K offsets are 32-bit in the kernel; a step may run this far past K before it is cut.
constexpr long long k_headroom = 1ll << 20;

std::string str(long long v) { return std::to_string(v); }

bool divides(long long d, long long v) { return d > 0 && v % d == 0; }

// The mapping of skinny<> for a well-formed configuration.
struct mapping {
  int warps = 0;
  int cols = 0;          // accumulator columns per thread (column-major: npt; row-major: 8)
  int producers = 0;     // warps whose partials of one output are added in shared memory
  long long b_regs = 0;  // registers of B loaded per thread and step
};

mapping map_of(const gemm_config& c) {
  mapping m;
  m.warps = c.threads / 32;
  const int vecs = c.k_chunk / 8;
  if (c.b == b_layout::col) {
    const int groups = c.block_n < m.warps ? c.block_n : m.warps;
    m.cols = c.block_n / groups;
    m.producers = m.warps / groups;
    m.b_regs = 4ll * m.cols * vecs;
  } else {
    const int vn = c.block_n / 8;
    m.cols = 8;
    m.producers = vn <= 32 ? m.warps : c.threads / vn;
    m.b_regs = 4ll * vecs;
  }
  return m;
}

// Static shared memory of the block: the partials of warps sharing outputs, plus a flag.
long long smem_of(const gemm_config& c, const mapping& m) {
  const long long partials = m.producers > 1 ? 4ll * m.producers * c.m_tile * static_cast<long long>(c.block_n) : 4;
  return partials + 4;
}

}  // namespace

std::string check_skinny(const gemm_config& c) {
  if (c.fam != family::skinny) return "not a skinny configuration";
  if (std::string bad = check_dtypes(c); !bad.empty()) return bad;
  if (c.threads < 32 || c.threads % 32 != 0) return "threads " + str(c.threads) + " is not a positive multiple of 32";
  if (c.threads > 1024) return "threads " + str(c.threads) + " > 1024";
  if (c.m_tile < 1 || c.m_tile > 64) return "m_tile " + str(c.m_tile) + " outside 1..64";
  if (c.k_chunk < 8 || c.k_chunk % 8 != 0)
    return "k_chunk " + str(c.k_chunk) + " is not a positive multiple of 8 (one 16-byte load)";
  if (c.k_chunk > max_k_chunk) return "k_chunk " + str(c.k_chunk) + " > " + str(max_k_chunk);
  if (c.split_k < 1) return "split_k " + str(c.split_k) + " < 1";
  if (c.split_k > max_split_k) return "split_k " + str(c.split_k) + " > " + str(max_split_k);
  if (c.block_n < 1) return "block_n " + str(c.block_n) + " < 1";

  const int warps = c.threads / 32;
  if (c.b == b_layout::col) {
    if (!divides(warps, c.block_n) && !divides(c.block_n, warps))
      return "block_n " + str(c.block_n) + " is neither a multiple nor a divisor of the " + str(warps) + " warps of " +
             str(c.threads) +
             " threads (column-major b: a warp "
             "group per column set)";
  } else {
    if (c.block_n % 8 != 0)
      return "block_n " + str(c.block_n) +
             " is not a multiple of 8 (row-major b: 8 columns per "
             "16-byte load)";
    const int vn = c.block_n / 8;
    if (vn > c.threads || c.threads % vn != 0)
      return "block_n / 8 = " + str(vn) + " does not divide threads " + str(c.threads);
    if (32 % vn != 0 && vn % 32 != 0) return "block_n / 8 = " + str(vn) + " neither divides 32 nor is a multiple of 32";
  }

  const mapping m = map_of(c);
  const long long acc = static_cast<long long>(c.m_tile) * m.cols;
  if (acc > max_accumulators)
    return "m_tile " + str(c.m_tile) + " x " + str(m.cols) + " columns per thread = " + str(acc) + " accumulators > " +
           str(max_accumulators);
  if (m.b_regs > max_b_registers)
    return "k_chunk " + str(c.k_chunk) + " x " + str(c.b == b_layout::col ? m.cols : 1) + " columns per thread loads " +
           str(m.b_regs) + " registers of b per step > " + str(max_b_registers);
  const long long smem = smem_of(c, m);
  if (smem > static_smem_limit)
    return "shared memory " + str(smem) + " bytes (" + str(m.producers) + " warps x m_tile " + str(c.m_tile) +
           " x block_n " + str(c.block_n) + " f32 partials) > " + str(static_smem_limit);
  return {};
}

std::string plan_skinny(const gemm_config& c, int m, int n, int k, const device_limits& dev, launch_plan& out) {
  if (std::string bad = check_skinny(c); !bad.empty()) return bad;
  if (m < 1) return "m " + str(m) + " < 1";
  if (n < 1) return "n " + str(n) + " < 1";
  if (k < 1) return "k " + str(k) + " < 1";
  if (k > std::numeric_limits<int>::max() - k_headroom)
    return "k " + str(k) + " > " + str(std::numeric_limits<int>::max() - k_headroom) + " (32-bit offsets along k)";
  if (c.threads > dev.max_threads_per_block)
    return "block of " + str(c.threads) + " threads > device limit " + str(dev.max_threads_per_block);
  const mapping map = map_of(c);
  const long long smem = smem_of(c, map);
  if (dev.max_smem_per_block > 0 && smem > dev.max_smem_per_block)  // 0: not known (no device)
    return "shared memory " + str(smem) + " bytes > device limit " + str(dev.max_smem_per_block);

  const long long gx = (static_cast<long long>(n) + c.block_n - 1) / c.block_n;
  const long long gy = (static_cast<long long>(m) + c.m_tile - 1) / c.m_tile;
  if (gx > max_grid_x) return "n " + str(n) + " needs " + str(gx) + " column blocks > " + str(max_grid_x);
  if (gy > max_grid_yz)
    return "m " + str(m) + " needs " + str(gy) + " row blocks of m_tile " + str(c.m_tile) + " > " + str(max_grid_yz);

  launch_plan p;
  p.grid_x = static_cast<unsigned>(gx);
  p.grid_y = static_cast<unsigned>(gy);
  p.grid_z = static_cast<unsigned>(c.split_k);
  p.block_x = static_cast<unsigned>(c.threads);
  p.smem_bytes = 0;  // static shared memory only
  if (c.split_k > 1) {
    const long long tiles = gx * gy;
    if (tiles > split_max_tiles)
      return "split_k " + str(c.split_k) + " needs a counter per output tile: " + str(tiles) + " tiles of " +
             str(c.m_tile) + " x " + str(c.block_n) + " > " + str(split_max_tiles);
    p.workspace_bytes = static_cast<std::size_t>(split_counter_bytes + 4ll * tiles * c.split_k * c.m_tile *
                                                                           static_cast<long long>(c.block_n));
    p.zeroed_bytes = static_cast<std::size_t>(4 * tiles);  // the counters of this launch's tiles
  }
  out = p;
  return {};
}

}  // namespace cuop::kernels::gemm::detail
