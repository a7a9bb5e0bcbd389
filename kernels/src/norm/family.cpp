#include "cuop/kernels/norm/family.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "cuop/detail/named_fields.hpp"

namespace cuop::kernels::norm {

namespace {

constexpr int max_chunks = 64;
constexpr int max_tile_words = 128;  // 32-bit registers a thread's tile may take
constexpr long long max_grid = std::numeric_limits<int>::max();
// The kernels' positions in a row (vectors past its end included) are ints.
constexpr long long max_cols = std::numeric_limits<int>::max() - 1024;

bool is_pow2(long long v) { return v > 0 && (v & (v - 1)) == 0; }

int* field(norm_config& c, std::string_view name) {
  if (name == "vec") return &c.vec;
  if (c.fam == family::warp_row) {
    if (name == "threads_per_row") return &c.threads_per_row;
    if (name == "rows_per_block") return &c.rows_per_block;
    if (name == "chunks") return &c.chunks;
    return nullptr;
  }
  if (name == "block_threads") return &c.block_threads;
  if (name == "chunks" && c.fam == family::block_row) return &c.chunks;
  return nullptr;
}

norm_config warp_config(norm_kind k, dtype t, int vec, int lanes, int chunks) {
  norm_config c{.kind = k, .fam = family::warp_row, .type = t, .vec = vec};
  c.threads_per_row = lanes;
  c.rows_per_block = 128 / lanes;
  c.chunks = chunks;
  return c;
}

norm_config block_config(norm_kind k, dtype t, int vec, int threads, int chunks) {
  norm_config c{.kind = k, .fam = chunks > 0 ? family::block_row : family::block_loop, .type = t, .vec = vec};
  c.block_threads = threads;
  c.chunks = chunks;
  return c;
}

}  // namespace

std::string_view name_of(norm_kind k) noexcept { return k == norm_kind::layernorm ? "layernorm" : "rmsnorm"; }

std::string_view name_of(family f) noexcept {
  switch (f) {
    case family::warp_row: return "warp_row";
    case family::block_row: return "block_row";
    case family::block_loop: return "block_loop";
  }
  return "?";
}

bool parse_kind(std::string_view s, norm_kind& out) noexcept {
  return cuop::detail::parse_named(s, {norm_kind::layernorm, norm_kind::rmsnorm}, out);
}

bool parse_family(std::string_view s, family& out) noexcept {
  return cuop::detail::parse_named(s, all_families(), out);
}

std::vector<family> all_families() { return {family::warp_row, family::block_row, family::block_loop}; }

int min_sm(family) noexcept { return 80; }

std::vector<std::string_view> param_names(family f) {
  if (f == family::warp_row) return {"vec", "threads_per_row", "rows_per_block", "chunks"};
  if (f == family::block_row) return {"vec", "block_threads", "chunks"};
  return {"vec", "block_threads"};
}

bool set_param(norm_config& c, std::string_view name, long long value) noexcept {
  return cuop::detail::set_int_param(c, name, value, field);
}

long long get_param(const norm_config& c, std::string_view name) noexcept {
  return cuop::detail::get_int_param(c, name, field);
}

namespace {

// warp_row's default lane counts, fewest first, each with up to this many vectors a lane.
constexpr struct { int lanes, max_chunks; } default_lanes[] = {{4, 4}, {8, 4}, {16, 4}, {32, 8}};
// block_row's default block sizes, each with 4 vectors a thread: the fewest threads that hold the
// row, so that a block wastes at most a third of its lanes and an SM keeps more rows in flight.
constexpr int default_block_threads[] = {96, 128, 160, 192, 256, 320, 384, 512, 640, 768, 1024};
constexpr int default_block_chunks = 4;
constexpr int default_loop_threads = 512;
// A launch of fewer rows leaves most of the GPU's warp slots empty, so its time is the latency of
// one row: the rule spreads each row over as many threads as it has vectors (one vector a thread),
// which shortens the chain of dependent loads and stores a thread issues. The fused residual add
// stores each vector's sum before it loads the next residual vector, so that chain is long at any
// row count: with a residual the rule spreads every launch.
constexpr long long few_rows = 512;
// block_row's smallest block for one vector a thread (rows of 33 to 64 vectors); longer rows take
// the default block sizes.
constexpr int spread_min_threads = 64;

// The rule's configuration for a launch it spreads (few rows, or the fused residual add): one
// vector a thread, on the fewest lanes or threads that hold the row; false for rows longer than
// the largest block.
bool spread_config(norm_kind k, dtype t, int vec, long long vectors, norm_config& out) noexcept {
  for (const auto& w : default_lanes)
    if (vectors <= w.lanes) {
      out = warp_config(k, t, vec, w.lanes, 1);
      return true;
    }
  if (vectors <= spread_min_threads) {
    out = block_config(k, t, vec, spread_min_threads, 1);
    return true;
  }
  for (const int threads : default_block_threads)
    if (vectors <= threads) {
      out = block_config(k, t, vec, threads, 1);
      return true;
    }
  return false;
}

}  // namespace

norm_config default_config(norm_kind k, dtype t, long long rows, long long cols, bool residual) noexcept {
  const int vec = static_cast<int>(16 / size_of(t));
  const long long vectors = (cols + vec - 1) / vec;
  const bool spreads = rows < few_rows || (residual && k == norm_kind::rmsnorm);
  if (norm_config spread; spreads && spread_config(k, t, vec, vectors, spread)) return spread;
  for (const auto& w : default_lanes)
    if (vectors <= static_cast<long long>(w.lanes) * w.max_chunks)
      return warp_config(k, t, vec, w.lanes, static_cast<int>((vectors + w.lanes - 1) / w.lanes));
  for (const int threads : default_block_threads)
    if (vectors <= static_cast<long long>(threads) * default_block_chunks)
      return block_config(k, t, vec, threads, default_block_chunks);
  return block_config(k, t, vec, default_loop_threads, 0);
}

std::vector<norm_config> default_configs(norm_kind k, dtype t) {
  const int vec = static_cast<int>(16 / size_of(t));
  std::vector<norm_config> out;
  int held = 0;  // vectors the lane counts before hold: fewer chunks never run on these lanes
  for (const auto& w : default_lanes) {
    // One chunk runs on every lane count: launches of few rows spread their rows (spread_config).
    if (held / w.lanes + 1 > 1) out.push_back(warp_config(k, t, vec, w.lanes, 1));
    for (int chunks = held / w.lanes + 1; chunks <= w.max_chunks; ++chunks)
      out.push_back(warp_config(k, t, vec, w.lanes, chunks));
    held = w.lanes * w.max_chunks;
  }
  out.push_back(block_config(k, t, vec, spread_min_threads, 1));
  for (const int threads : default_block_threads) out.push_back(block_config(k, t, vec, threads, 1));
  for (const int threads : default_block_threads) out.push_back(block_config(k, t, vec, threads, default_block_chunks));
  out.push_back(block_config(k, t, vec, default_loop_threads, 0));
  return out;
}

int threads_per_block(const norm_config& c) noexcept {
  return c.fam == family::warp_row ? c.threads_per_row * c.rows_per_block : c.block_threads;
}

long long cols_per_owner(const norm_config& c) noexcept {
  if (c.fam == family::block_loop) return 0;
  const long long lanes = c.fam == family::warp_row ? c.threads_per_row : c.block_threads;
  return static_cast<long long>(c.vec) * lanes * c.chunks;
}

std::string check_config(const norm_config& c) {
  if (c.vec != 1 && c.vec != 2 && c.vec != 4 && c.vec != 8) return "vec must be 1, 2, 4 or 8";
  const long long bytes = static_cast<long long>(c.vec) * static_cast<long long>(size_of(c.type));
  if (bytes > 16) return "vec * sizeof(element) > 16 bytes";
  if (c.fam == family::warp_row) {
    if (!is_pow2(c.threads_per_row) || c.threads_per_row > 32) return "threads_per_row must be a power of two <= 32";
    if (c.rows_per_block < 1) return "rows_per_block must be >= 1";
  }
  const long long threads =
      c.fam == family::warp_row ? static_cast<long long>(c.threads_per_row) * c.rows_per_block : c.block_threads;
  if (threads < 32 || threads % 32 != 0) return "threads per block must be a multiple of 32";
  if (threads > 1024) return "block of " + std::to_string(threads) + " threads > 1024";
  if (c.fam != family::block_loop) {
    if (c.chunks < 1 || c.chunks > max_chunks) return "chunks must be 1.." + std::to_string(max_chunks);
    const long long words = c.chunks * std::max<long long>(1, bytes / 4);
    if (words > max_tile_words)
      return "a thread's tile of " + std::to_string(words) + " registers > " + std::to_string(max_tile_words);
  }
  return {};
}

std::string instance_name(const norm_config& c) {
  std::string s = std::string(name_of(c.kind)) + "_" + std::string(name_of(c.type)) + "_" +
                  std::string(name_of(c.fam)) + "_vec" + std::to_string(c.vec);
  if (c.fam == family::warp_row)
    return s + "_rowthreads" + std::to_string(c.threads_per_row) + "_blockrows" + std::to_string(c.rows_per_block) +
           "_chunks" + std::to_string(c.chunks);
  s += "_threads" + std::to_string(c.block_threads);
  if (c.fam == family::block_row) s += "_chunks" + std::to_string(c.chunks);
  return s;
}

std::string template_name(const norm_config& c) {
  std::string s = "cuop::kernels::norm::" + std::string(name_of(c.fam)) + "<" +
                  std::to_string(static_cast<int>(c.kind)) + ", " + std::string(device_type_of(c.type)) + ", " +
                  std::to_string(c.vec) + ", ";
  if (c.fam == family::warp_row)
    return s + std::to_string(c.threads_per_row) + ", " + std::to_string(c.rows_per_block) + ", " +
           std::to_string(c.chunks) + ">";
  s += std::to_string(c.block_threads);
  if (c.fam == family::block_row) s += ", " + std::to_string(c.chunks);
  return s + ">";
}

std::string_view header_of(family f) noexcept {
  switch (f) {
    case family::warp_row: return "cuop/kernels/norm/warp_row.cuh";
    case family::block_row: return "cuop/kernels/norm/block_row.cuh";
    case family::block_loop: return "cuop/kernels/norm/block_loop.cuh";
  }
  return "";
}

std::string plan_launch(const norm_config& c, long long rows, long long cols, const device_limits& dev,
                        launch_plan& out) {
  if (auto why = check_config(c); !why.empty()) return why;
  if (dev.sm > 0 && dev.sm < min_sm(c.fam)) return "needs sm_" + std::to_string(min_sm(c.fam)) + " or newer";
  const int threads = threads_per_block(c);
  if (threads > dev.max_threads_per_block)
    return "block of " + std::to_string(threads) + " threads > the device's " +
           std::to_string(dev.max_threads_per_block);
  if (rows < 1 || cols < 1) return "empty problem";
  if (cols > max_cols)
    return "cols " + std::to_string(cols) + " > " + std::to_string(max_cols) + " (positions in a row are ints)";
  if (const long long held = cols_per_owner(c); held > 0 && cols > held)
    return "cols " + std::to_string(cols) + " > " + std::to_string(held) + " held per row";
  const long long per_block = c.fam == family::warp_row ? c.rows_per_block : 1;
  const long long blocks = (rows + per_block - 1) / per_block;
  out.grid_x = static_cast<unsigned>(std::min(blocks, max_grid));
  out.block_x = static_cast<unsigned>(threads);
  return {};
}

}  // namespace cuop::kernels::norm
