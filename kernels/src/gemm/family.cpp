#include "cuop/kernels/gemm/family.hpp"

#include <limits>

#include "cuop/detail/named_fields.hpp"
#include "cuop/kernels/gemm/skinny_plan.hpp"
#include "cuop/kernels/gemm/wgmma_geometry.hpp"

namespace cuop::kernels::gemm {

namespace {

// Shared memory of one block on sm_80 (163 KiB opt-in) is less; 227 KiB is the most any target
// (sm_90, sm_100) offers, so larger configurations are malformed everywhere.
constexpr long long max_smem_any_target = 227 * 1024;
constexpr int max_stages = 16;
constexpr int max_group_m = 256;
constexpr int max_split_k = 64;  // the reduction is unrolled over SPLIT_K

// Split-K workspace of the mma family (kernels/include/cuop/kernels/gemm/mma.cuh,
// detail::mma_split_*): a fixed region of u32 counters, then f32 partials[split_k][tiles][bm * bn].
constexpr int mma_split_max_tiles = 16384;
constexpr long long mma_split_counter_bytes = 4ll * mma_split_max_tiles;

// Pointer to the config field a parameter name stands for in family f, or null.
int* field(gemm_config& c, std::string_view name) {
  if (name == "split_k") return &c.split_k;
  if (c.fam == family::mma) {
    if (name == "block_m") return &c.block_m;
    if (name == "block_n") return &c.block_n;
    if (name == "block_k") return &c.block_k;
    if (name == "warp_m") return &c.warp_m;
    if (name == "warp_n") return &c.warp_n;
    if (name == "stages") return &c.stages;
    if (name == "group_m") return &c.group_m;
    if (name == "pack") return &c.pack;
  } else if (c.fam == family::wgmma) {
    if (name == "block_m") return &c.block_m;
    if (name == "block_n") return &c.block_n;
    if (name == "stages") return &c.stages;
    if (name == "consumers") return &c.consumers;
    if (name == "cluster") return &c.cluster;
    if (name == "group_m") return &c.group_m;
  } else if (c.fam == family::skinny) {
    if (name == "block_n") return &c.block_n;
    if (name == "threads") return &c.threads;
    if (name == "m_tile") return &c.m_tile;
    if (name == "k_chunk") return &c.k_chunk;
  }
  return nullptr;
}

long long mma_smem_bytes(const gemm_config& c) {
  return static_cast<long long>(c.stages) * (static_cast<long long>(c.block_m) + c.block_n) * c.block_k * 2;
}

std::string check_mma(const gemm_config& c) {
  const auto s = [](long long v) { return std::to_string(v); };
  // ldmatrix.x4 loads 16 rows of A and two n8 tiles of B at a time.
  if (c.warp_m < 16 || c.warp_m % 16 != 0) return "warp_m " + s(c.warp_m) + " is not a positive multiple of 16";
  if (c.warp_n < 16 || c.warp_n % 16 != 0) return "warp_n " + s(c.warp_n) + " is not a positive multiple of 16";
  if (c.block_m < c.warp_m || c.block_m % c.warp_m != 0)
    return "block_m " + s(c.block_m) + " is not a multiple of warp_m " + s(c.warp_m);
  if (c.block_n < c.warp_n || c.block_n % c.warp_n != 0)
    return "block_n " + s(c.block_n) + " is not a multiple of warp_n " + s(c.warp_n);
  const long long threads = 32ll * (c.block_m / c.warp_m) * static_cast<long long>(c.block_n / c.warp_n);
  if (threads > 1024) return "block of " + s(threads) + " threads > 1024";
  if (c.block_k != 16 && c.block_k != 32 && c.block_k != 64) return "block_k " + s(c.block_k) + " is not 16, 32 or 64";
  if (c.stages < 2 || c.stages > max_stages) return "stages " + s(c.stages) + " outside 2.." + s(max_stages);
  if (c.group_m < 1 || c.group_m > max_group_m) return "group_m " + s(c.group_m) + " outside 1.." + s(max_group_m);
  if (c.split_k < 1 || c.split_k > max_split_k) return "split_k " + s(c.split_k) + " outside 1.." + s(max_split_k);
  if (c.pack != 0 && c.pack != 1) return "pack " + s(c.pack) + " is not 0 or 1";
  if (const long long smem = mma_smem_bytes(c); smem > max_smem_any_target)
    return "shared memory of " + s(smem) + " bytes (stages * (block_m + block_n) * block_k * 2) > " +
           s(max_smem_any_target) + " (227 KiB)";
  return {};
}

// The block fits the device (threads, shared memory) and its output tiles number an int; `tiles`
// is their count.
std::string check_block_and_tiles(const gemm_config& c, int m, int n, int threads, long long smem,
                                  const device_limits& dev, long long& tiles) {
  const auto s = [](long long v) { return std::to_string(v); };
  if (threads > dev.max_threads_per_block)
    return "block of " + s(threads) + " threads > device limit " + s(dev.max_threads_per_block);
  if (dev.max_smem_per_block > 0 && smem > dev.max_smem_per_block)
    return "shared memory of " + s(smem) + " bytes > device limit " + s(dev.max_smem_per_block);
  tiles = ((static_cast<long long>(m) + c.block_m - 1) / c.block_m) *
          ((static_cast<long long>(n) + c.block_n - 1) / c.block_n);
  if (tiles > std::numeric_limits<int>::max())
    return s(tiles) + " output tiles > " + s(std::numeric_limits<int>::max());
  return {};
}

std::string plan_mma(const gemm_config& c, int m, int n, int k, const device_limits& dev, launch_plan& out) {
  const auto s = [](long long v) { return std::to_string(v); };
  if (m > max_mma_extent || n > max_mma_extent || k > max_mma_extent)
    return "m, n or k > " + s(max_mma_extent) + " (the kernel's tile arithmetic is 32-bit)";
  const int threads = threads_per_block(c);
  const long long smem = mma_smem_bytes(c);
  long long tiles = 0;
  if (std::string bad = check_block_and_tiles(c, m, n, threads, smem, dev, tiles); !bad.empty()) return bad;
  launch_plan p;
  p.grid_x = static_cast<unsigned>(tiles);
  p.grid_z = static_cast<unsigned>(c.split_k);
  p.block_x = static_cast<unsigned>(threads);
  p.smem_bytes = static_cast<std::size_t>(smem);
  if (c.split_k > 1) {
    if (tiles > mma_split_max_tiles)
      return "split_k " + s(c.split_k) + " with " + s(tiles) + " output tiles > " + s(mma_split_max_tiles) +
             " split-K counters";
    p.workspace_bytes = static_cast<std::size_t>(mma_split_counter_bytes +
                                                 static_cast<long long>(c.split_k) * tiles * c.block_m * c.block_n * 4);
    p.zeroed_bytes = static_cast<std::size_t>(4 * tiles);  // the counters of this launch's tiles
  }
  if (c.pack == 1) {
    // Never over the split-K counters, even without split-K: a workspace is shared by every
    // configuration (tuner and dispatch alike), and the others need those counters at zero.
    const long long used = static_cast<long long>(p.workspace_bytes);
    if (k > std::numeric_limits<int>::max() - 7) return "k " + s(k) + " rounded up to 8 overflows int";
    p.workspace_bytes =
        plan_pack(c.b == b_layout::col, m, n, k,
                  static_cast<std::size_t>(used > mma_split_counter_bytes ? used : mma_split_counter_bytes), p.pack);
  }
  out = p;
  return {};
}

long long wgmma_smem_bytes(const gemm_config& c) { return wgmma_geometry::smem_bytes(c.block_m, c.block_n, c.stages); }

std::string check_wgmma(const gemm_config& c) {
  const auto s = [](long long v) { return std::to_string(v); };
  if (c.b != b_layout::col) return "wgmma reads column-major B (n x k) only";
  if (c.consumers != 1 && c.consumers != 2) return "consumers " + s(c.consumers) + " is not 1 or 2";
  // One or two m64 wgmma per consumer warpgroup and k16 step.
  if (c.block_m % c.consumers != 0 || (c.block_m / c.consumers != 64 && c.block_m / c.consumers != 128))
    return "block_m " + s(c.block_m) + " is not 64 or 128 rows per consumer (" + s(c.consumers) + ")";
  if (c.block_n != 64 && c.block_n != 128 && c.block_n != 256)
    return "block_n " + s(c.block_n) + " is not 64, 128 or 256";
  if (const int acc = wgmma_geometry::accumulators(c.block_m, c.block_n, c.consumers); acc > 128)
    return s(acc) + " accumulators a thread > 128 (block_m / consumers / 64 * block_n / 2)";
  if (c.stages < 2 || c.stages > max_stages) return "stages " + s(c.stages) + " outside 2.." + s(max_stages);
  if (c.group_m < 1 || c.group_m > max_group_m) return "group_m " + s(c.group_m) + " outside 1.." + s(max_group_m);
  if (c.split_k != 1) return "split_k " + s(c.split_k) + ": wgmma does not split K";
  if (c.pack != 0) return "pack " + s(c.pack) + ": wgmma does not pack its operands";
  if (c.cluster < 0 || c.cluster > 2) return "cluster " + s(c.cluster) + " is not 1 or 2";
  if (const long long smem = wgmma_smem_bytes(c); smem > max_smem_any_target)
    return "shared memory of " + s(smem) + " bytes (stages * (block_m + block_n) * 128 + 2048) > " +
           s(max_smem_any_target) + " (227 KiB)";
  return {};
}

std::string plan_wgmma(const gemm_config& c, int m, int n, int k, const device_limits& dev, launch_plan& out) {
  const auto s = [](long long v) { return std::to_string(v); };
  if (m > max_mma_extent || n > max_mma_extent || k > max_mma_extent)
    return "m, n or k > " + s(max_mma_extent) + " (the kernel's tile arithmetic is 32-bit)";
  // The tensor maps' row strides are multiples of 16 bytes.
  if (k % 8 != 0) return "k " + s(k) + " is not a multiple of 8 (TMA rows of A and B are 16-byte aligned)";
  const int threads = threads_per_block(c);
  const long long smem = wgmma_smem_bytes(c);
  long long tiles = 0;
  if (std::string bad = check_block_and_tiles(c, m, n, threads, smem, dev, tiles); !bad.empty()) return bad;
  launch_plan p;
  // Persistent: one block per SM at most (a device not known, as in validation: one per tile),
  // whole clusters of blocks that take `cluster` tiles stacked along M (an odd last one included).
  const long long cluster = c.cluster > 1 ? c.cluster : 1;
  const long long tiles_m = (static_cast<long long>(m) + c.block_m - 1) / c.block_m;
  const long long units = (tiles_m + cluster - 1) / cluster * (tiles / tiles_m);
  const long long most = dev.sm_count > 0 ? dev.sm_count / cluster : units;
  p.grid_x = static_cast<unsigned>(cluster * (units < most ? units : most));
  p.cluster_x = static_cast<unsigned>(cluster);
  p.block_x = static_cast<unsigned>(threads);
  p.smem_bytes = static_cast<std::size_t>(smem);
  out = p;
  return {};
}

}  // namespace

std::string_view name_of(family f) noexcept {
  switch (f) {
    case family::mma: return "mma";
    case family::skinny: return "skinny";
    case family::wgmma: return "wgmma";
  }
  return "?";
}

std::vector<family> all_families() { return {family::mma, family::skinny, family::wgmma}; }

bool parse_family(std::string_view s, family& out) noexcept {
  return cuop::detail::parse_named(s, all_families(), out);
}

std::string_view name_of(b_layout l) noexcept {
  switch (l) {
    case b_layout::row: return "row";
    case b_layout::col: return "col";
  }
  return "?";
}

bool parse_b_layout(std::string_view s, b_layout& out) noexcept {
  return cuop::detail::parse_named(s, {b_layout::row, b_layout::col}, out);
}

std::vector<std::string_view> param_names(family f) {
  if (f == family::mma) return {"block_m", "block_n", "block_k", "warp_m", "warp_n", "stages", "group_m", "split_k"};
  if (f == family::skinny) return {"block_n", "threads", "m_tile", "k_chunk", "split_k"};
  if (f == family::wgmma) return {"block_m", "block_n", "stages", "consumers", "group_m"};
  return {};
}

std::vector<std::string_view> optional_param_names(family f) {
  if (f == family::mma) return {"pack"};
  if (f == family::wgmma) return {"cluster"};
  return {};
}

bool set_param(gemm_config& c, std::string_view name, long long value) noexcept {
  return cuop::detail::set_int_param(c, name, value, field);
}

long long get_param(const gemm_config& c, std::string_view name) noexcept {
  return cuop::detail::get_int_param(c, name, field);
}

int threads_per_block(const gemm_config& c) noexcept {
  if (c.fam == family::skinny) return c.threads;
  if (c.fam == family::wgmma) return c.consumers == 1 || c.consumers == 2 ? wgmma_geometry::threads_of(c.consumers) : 0;
  if (c.warp_m <= 0 || c.warp_n <= 0) return 0;
  const long long t = 32ll * (c.block_m / c.warp_m) * static_cast<long long>(c.block_n / c.warp_n);
  return t > std::numeric_limits<int>::max() ? std::numeric_limits<int>::max() : static_cast<int>(t);
}

namespace detail {

std::string check_dtypes(const gemm_config& c) {
  if (c.in != dtype::f16 && c.in != dtype::bf16)
    return "input dtype " + std::string(name_of(c.in)) + " is not f16 or bf16";
  if (c.out != dtype::f32 && c.out != c.in)
    return "output dtype " + std::string(name_of(c.out)) + " is neither f32 nor the input dtype " +
           std::string(name_of(c.in));
  if (c.b != b_layout::row && c.b != b_layout::col) return "unknown b layout";
  return {};
}

}  // namespace detail

std::string check_config(const gemm_config& c) {
  if (std::string bad = detail::check_dtypes(c); !bad.empty()) return bad;
  switch (c.fam) {
    case family::mma: return check_mma(c);
    case family::skinny: return detail::check_skinny(c);
    case family::wgmma: return check_wgmma(c);
  }
  return "unknown family";
}

std::string instance_name(const gemm_config& c) {
  const auto s = [](int v) { return std::to_string(v); };
  std::string n = "gemm_";
  n += name_of(c.in);
  n += '_';
  n += name_of(c.out);
  n += '_';
  n += name_of(c.b);
  n += '_';
  n += name_of(c.fam);
  if (c.fam == family::mma) {
    n += "_block" + s(c.block_m) + "x" + s(c.block_n) + "x" + s(c.block_k) + "_warp" + s(c.warp_m) + "x" + s(c.warp_n) +
         "_stages" + s(c.stages) + "_groupm" + s(c.group_m);
  } else if (c.fam == family::wgmma) {
    // No split: the name says nothing of split_k.
    return n + "_block" + s(c.block_m) + "x" + s(c.block_n) + "_stages" + s(c.stages) + "_consumers" + s(c.consumers) +
           "_groupm" + s(c.group_m) + (c.cluster > 1 ? "_cluster" + s(c.cluster) : "");
  } else {
    n += "_blockn" + s(c.block_n) + "_threads" + s(c.threads) + "_mtile" + s(c.m_tile) + "_kchunk" + s(c.k_chunk);
  }
  n += "_splitk" + s(c.split_k);
  if (c.fam == family::mma && c.pack != 0) n += "_pack" + s(c.pack);
  return n;
}

std::string template_name(const gemm_config& c) {
  const auto s = [](int v) { return std::to_string(v); };
  std::string n = "cuop::kernels::gemm::";
  n += name_of(c.fam);
  n += '<';
  n += device_type_of(c.in);
  n += ", ";
  n += device_type_of(c.out);
  n += c.b == b_layout::col ? ", true" : ", false";
  if (c.fam == family::mma) {
    n += ", " + s(c.block_m) + ", " + s(c.block_n) + ", " + s(c.block_k) + ", " + s(c.warp_m) + ", " + s(c.warp_n) +
         ", " + s(c.stages) + ", " + s(c.group_m);
  } else if (c.fam == family::wgmma) {
    return n + ", " + s(c.block_m) + ", " + s(c.block_n) + ", " + s(c.stages) + ", " + s(c.consumers) + ", " +
           s(c.group_m) + (c.cluster > 1 ? ", " + s(c.cluster) : "") + ">";
  } else {
    n += ", " + s(c.block_n) + ", " + s(c.threads) + ", " + s(c.m_tile) + ", " + s(c.k_chunk);
  }
  n += ", " + s(c.split_k) + ">";
  return n;
}

std::string_view header_of(family f) noexcept {
  switch (f) {
    case family::mma: return "cuop/kernels/gemm/mma.cuh";
    case family::skinny: return "cuop/kernels/gemm/skinny.cuh";
    case family::wgmma: return "cuop/kernels/gemm/wgmma.cuh";
  }
  return "";
}

std::size_t plan_pack(bool b_col, int m, int n, int k, std::size_t start, pack_plan& out, bool pad_n) {
  const auto align256 = [](long long v) { return (v + 255) / 256 * 256; };
  const auto round8 = [](long long v) { return (v + 7) / 8 * 8; };
  const long long kp = round8(k);
  const long long np = pad_n ? round8(n) : n;
  pack_plan p;
  p.on = true;
  p.b_col = b_col;
  p.k = static_cast<int>(kp);
  p.n = static_cast<int>(np);
  p.ldb = b_col ? kp : round8(n);
  p.b_rows = b_col ? np : kp;
  const long long a_bytes = 2 * static_cast<long long>(m) * kp;
  const long long b_bytes = 2 * p.b_rows * p.ldb;
  const long long a_off = align256(static_cast<long long>(start));
  const long long b_off = align256(a_off + a_bytes);
  p.a_offset = static_cast<std::size_t>(a_off);
  p.b_offset = static_cast<std::size_t>(b_off);
  out = p;
  return static_cast<std::size_t>(b_off + b_bytes);
}

std::size_t plan_stage(int m, int n, int element_bytes, std::size_t start, stage_plan& out) {
  const long long per_row = 16 / element_bytes;
  stage_plan s;
  s.on = true;
  s.element_bytes = element_bytes;
  s.ld = (static_cast<long long>(n) + per_row - 1) / per_row * per_row;
  s.offset = (start + 255) / 256 * 256;
  out = s;
  return s.offset + static_cast<std::size_t>(static_cast<long long>(m) * s.ld * element_bytes);
}

std::string plan_launch(const gemm_config& c, int m, int n, int k, const device_limits& dev, launch_plan& out) {
  if (std::string bad = check_config(c); !bad.empty()) return bad;
  if (m < 1) return "m " + std::to_string(m) + " < 1";
  if (n < 1) return "n " + std::to_string(n) + " < 1";
  if (k < 1) return "k " + std::to_string(k) + " < 1";
  if (c.fam == family::skinny) return detail::plan_skinny(c, m, n, k, dev, out);
  if (c.fam == family::wgmma) return plan_wgmma(c, m, n, k, dev, out);
  return plan_mma(c, m, n, k, dev, out);
}

double gemm_flops(int m, int n, int k) noexcept {
  return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
}

double gemm_bytes(dtype in, dtype out, int m, int n, int k) noexcept {
  const double mm = m, nn = n, kk = k;
  return static_cast<double>(size_of(in)) * (mm * kk + kk * nn) + static_cast<double>(size_of(out)) * mm * nn;
}

}  // namespace cuop::kernels::gemm
