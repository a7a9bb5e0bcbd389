#include "cuop/kernels/softmax/family.hpp"

#include <algorithm>
#include <limits>
#include <set>
#include <string>

#include "cuop/detail/named_fields.hpp"
#include "cuop/kernels/softmax/split_workspace.hpp"

namespace cuop::kernels::softmax {

namespace {

constexpr int max_threads_per_sm = 2048;  // sm_80, sm_90, sm_100
constexpr int max_blocks_per_sm = 32;
constexpr int max_chunks = 64;

bool is_pow2(long long v) { return v > 0 && (v & (v - 1)) == 0; }

// The families whose rows are held by threads_per_row lanes, rows_per_block rows to a block.
bool rows_on_lanes(family f) { return f == family::warp_row || f == family::row_tile; }

// Pointer to the config field a parameter name stands for in family f, or null.
int* field(softmax_config& c, std::string_view name) {
  if (name == "vec") return &c.vec;
  if (name == "chunks") return &c.chunks;
  if (name == "persistent" && c.fam != family::cluster_row && c.fam != family::row_tile) return &c.persistent;
  if (name == "smem_chunks" && (c.fam == family::block_row || c.fam == family::split_row)) return &c.smem_chunks;
  if (rows_on_lanes(c.fam)) {
    if (name == "threads_per_row") return &c.threads_per_row;
    if (name == "rows_per_block") return &c.rows_per_block;
  } else if (name == "block_threads") {
    return &c.block_threads;
  } else if (name == "cluster" && c.fam == family::cluster_row) {
    return &c.cluster;
  }
  return nullptr;
}

// Blocks of `threads` threads that a launch can keep resident: the caller's occupancy when
// known, else the thread/block limits of the SMs, else unbounded (validation without a GPU).
long long resident_blocks(const device_limits& dev, int threads) {
  if (dev.max_resident_blocks > 0) return dev.max_resident_blocks;
  if (dev.sm_count > 0)
    return static_cast<long long>(dev.sm_count) *
           std::max(1, std::min(max_blocks_per_sm, max_threads_per_sm / threads));
  return std::numeric_limits<int>::max();
}

// Clusters that a launch can keep resident: the occupancy calculator's count when known, else
// unbounded (one cluster per row). Not estimated from the SM count: a cluster must fit in one GPC,
// so fragmentation leaves fewer than blocks / cluster (with one block per SM, clusters of 4 cannot
// cover every SM when a GPC's SMs are not a multiple of 4), and a persistent grid only a few clusters too large runs those clusters,
// with all their rows, after the others have finished; one cluster per row lets the hardware
// schedule clusters as they fit, at the cost of the next-row prefetch.
long long resident_clusters(const device_limits& dev) {
  if (dev.max_active_clusters != 0) return dev.max_active_clusters;
  return std::numeric_limits<int>::max();
}

// row_tile's own limits: whole-word vectors (the tile moves in 4-, 8- or 16-byte accesses) and
// a tile (row_tile.cuh: every row's elements and one vector of slack at each end) that fits the
// 48 KiB of static shared memory.
std::string check_row_tile(const softmax_config& c) {
  const long long vec_bytes = static_cast<long long>(c.vec) * static_cast<long long>(size_of(c.type));
  if (vec_bytes < 4) return "row_tile: vec " + std::to_string(c.vec) + " is narrower than 4 bytes";
  const long long tile_bytes = (static_cast<long long>(c.rows_per_block) * c.threads_per_row * c.chunks + 2LL * c.vec) *
                               static_cast<long long>(size_of(c.type));
  if (tile_bytes > default_smem_per_block)
    return "row_tile: a tile of " + std::to_string(tile_bytes) + " bytes > " + std::to_string(default_smem_per_block) +
           " bytes of static shared memory";
  return {};
}

}  // namespace

std::string_view name_of(family f) noexcept {
  switch (f) {
    case family::warp_row: return "warp_row";
    case family::block_row: return "block_row";
    case family::split_row: return "split_row";
    case family::cluster_row: return "cluster_row";
    case family::row_tile: return "row_tile";
  }
  return "?";
}

bool parse_family(std::string_view s, family& out) noexcept {
  return cuop::detail::parse_named(s, all_families(), out);
}

std::vector<family> all_families() {
  return {family::warp_row, family::block_row, family::split_row, family::cluster_row, family::row_tile};
}

int min_sm(family f) noexcept { return f == family::cluster_row ? 90 : 80; }

std::vector<std::string_view> param_names(family f) {
  if (rows_on_lanes(f)) return {"vec", "threads_per_row", "rows_per_block", "chunks"};
  if (f == family::cluster_row) return {"vec", "block_threads", "chunks", "cluster"};
  return {"vec", "block_threads", "chunks"};
}

std::vector<std::string_view> optional_param_names(family f) {
  if (f == family::warp_row) return {"persistent"};
  if (f == family::block_row || f == family::split_row) return {"persistent", "smem_chunks"};
  return {};
}

bool set_param(softmax_config& c, std::string_view name, long long value) noexcept {
  return cuop::detail::set_int_param(c, name, value, field);
}

long long get_param(const softmax_config& c, std::string_view name) noexcept {
  return cuop::detail::get_int_param(c, name, field);
}

int threads_per_block(const softmax_config& c) noexcept {
  if (rows_on_lanes(c.fam)) return c.threads_per_row * c.rows_per_block;
  return c.block_threads;
}

long long cols_per_owner(const softmax_config& c) noexcept {
  if (c.fam == family::row_tile) return static_cast<long long>(c.threads_per_row) * c.chunks;
  const long long lanes = c.fam == family::warp_row ? c.threads_per_row : c.block_threads;
  return static_cast<long long>(c.vec) * lanes * (c.chunks + c.smem_chunks);
}

long long dynamic_smem_bytes(const softmax_config& c) noexcept {
  return static_cast<long long>(c.smem_chunks) * threads_per_block(c) * c.vec * size_of(c.type);
}

std::string check_config(const softmax_config& c) {
  if (c.type != dtype::f32 && c.type != dtype::f16 && c.type != dtype::bf16) return "unknown dtype";
  if (c.vec != 1 && c.vec != 2 && c.vec != 4 && c.vec != 8)
    return "vec " + std::to_string(c.vec) + " is not 1, 2, 4 or 8";
  if (c.vec * static_cast<long long>(size_of(c.type)) > 16)
    return "vec " + std::to_string(c.vec) + " * " + std::to_string(size_of(c.type)) + " bytes > 16 bytes";
  if (c.chunks < 1 || c.chunks > max_chunks)
    return "chunks " + std::to_string(c.chunks) + " outside 1.." + std::to_string(max_chunks);
  if (c.persistent != 0 && c.persistent != 1) return "persistent " + std::to_string(c.persistent) + " is not 0 or 1";
  if (c.persistent != 1 && (c.fam == family::cluster_row || c.fam == family::row_tile))
    return "persistent applies to warp_row, block_row and split_row only";
  if (c.smem_chunks < 0 || c.smem_chunks > max_chunks)
    return "smem_chunks " + std::to_string(c.smem_chunks) + " outside 0.." + std::to_string(max_chunks);
  if (c.smem_chunks != 0 && c.fam != family::block_row && c.fam != family::split_row)
    return "smem_chunks applies to block_row and split_row only";
  if (c.smem_chunks != 0 && c.persistent != 0)
    return "smem_chunks needs persistent 0 (one block per row or row segment)";
  if (rows_on_lanes(c.fam)) {
    if (!is_pow2(c.threads_per_row) || c.threads_per_row > 32)
      return "threads_per_row " + std::to_string(c.threads_per_row) + " must be a power of two <= 32";
    if (c.rows_per_block < 1) return "rows_per_block " + std::to_string(c.rows_per_block) + " < 1";
    if (c.fam == family::row_tile) {
      if (const std::string bad = check_row_tile(c); !bad.empty()) return bad;
    }
  } else if (c.fam == family::cluster_row) {
    if (c.cluster != 2 && c.cluster != 4 && c.cluster != 8 && c.cluster != 16)
      return "cluster " + std::to_string(c.cluster) + " is not 2, 4, 8 or 16";
  } else if (c.fam != family::block_row && c.fam != family::split_row) {
    return "unknown family";
  }
  const long long threads =
      rows_on_lanes(c.fam) ? static_cast<long long>(c.threads_per_row) * c.rows_per_block : c.block_threads;
  if (threads < 32 || threads % 32 != 0)
    return "block of " + std::to_string(threads) + " threads is not a multiple of 32";
  if (threads > 1024) return "block of " + std::to_string(threads) + " threads > 1024";
  return {};
}

namespace {

// The default rule's two parallelism targets (docs/dispatch.md, "The softmax default rule"): a
// launch of fewer threads than this leaves most SMs of a large GPU idle, so short rows then share
// more lanes, and medium rows more threads of a block.
constexpr long long rule_min_threads = 32768;
// split_row: at least this many blocks in the grid, else segments are made shorter.
constexpr long long rule_min_blocks = 256;
// split_row segments a row may have before a segment is made as long as a block can hold.
constexpr long long rule_max_segments = 128;
// Rows past block_row's registers: from this many rows on, one block a row (registers and shared
// memory) fills the GPU and reads a row once; fewer rows split it over blocks instead.
constexpr long long rule_block_rows = 1024;
// The longest row one block then holds, in 16-byte vectors (1024 threads with 16 each).
constexpr long long rule_block_max_vectors = 1024 * 16;
// row_tile for 16-bit rows of up to this many columns (rounded up to a power of two), when they
// are off the 16-byte grid and longer than 8 bytes, from this many elements in all: below it the
// launch is short enough that the staging's barriers cost more than the narrow accesses.
constexpr long long rule_tile_max_cols = 64;
constexpr long long rule_tile_min_elements = 1LL << 19;

long long pow2_at_least(long long v) {
  long long p = 1;
  while (p < v) p *= 2;
  return p;
}

// Short rows: P (the columns rounded up to a power of two) split over lanes of narrow vectors.
void short_row_split(dtype t, long long pow2_cols, softmax_config& c) {
  int lanes = 1;
  if (size_of(t) == 4) {  // f32: 16-byte vectors hold up; lanes up to 8
    if (pow2_cols > 4) lanes = static_cast<int>(std::min(8LL, pow2_cols / 4));
  } else if (pow2_cols > 8) {  // 16-bit: 2 lanes for 16 columns, then 16 columns a lane, 4 to 8 lanes
    lanes = pow2_cols == 16 ? 2 : static_cast<int>(std::clamp(pow2_cols / 16, 4LL, 8LL));
  }
  const int per_lane = static_cast<int>(pow2_cols / lanes);
  if (pow2_cols <= (size_of(t) == 4 ? 4 : 8)) {  // one lane, one vector holding the row
    c.vec = per_lane;
    c.chunks = 1;
  } else if (size_of(t) == 4) {
    c.vec = std::min(4, per_lane);
    c.chunks = per_lane / c.vec;
  } else {  // 16-bit: up to 4 vectors a lane, or from 16 columns a lane up to 8 of 8 bytes
    c.chunks = per_lane >= 16 ? std::min(8, per_lane / 4) : std::min(4, per_lane / 2);
    c.vec = per_lane / c.chunks;
  }
  c.threads_per_row = lanes;
}

// Short 16-bit rows that warp_row would read in narrow or misaligned accesses: every other row of
// an odd length starts off the vector grid. row_tile stages rows_per_block rows as one aligned
// range instead: up to 8 elements a lane (16 from 33 columns), 128-thread blocks.
bool staged_short_rows(dtype t, long long rows, long long cols, long long pow2_cols, bool contiguous) {
  return contiguous && size_of(t) == 2 && pow2_cols <= rule_tile_max_cols && cols % 8 != 0 && cols * 2 > 8 &&
         rows * cols >= rule_tile_min_elements;
}

void row_tile_split(long long pow2_cols, softmax_config& c) {
  c.fam = family::row_tile;
  c.persistent = 1;  // row_tile has one grid: a block per tile
  c.vec = 8;
  c.chunks = static_cast<int>(pow2_cols <= 32 ? std::min(pow2_cols, 8LL) : 16);
  c.threads_per_row = static_cast<int>(pow2_cols / c.chunks);
  c.rows_per_block = 128 / c.threads_per_row;
}

// warp_row: too few rows for rule_min_threads get more lanes each (fewer chunks, then narrower
// vectors, down to 4 bytes), in 128-thread blocks so that more blocks spread over the SMs.
void spread_lanes(dtype t, long long rows, softmax_config& c, bool small_blocks = false) {
  bool spread = small_blocks;
  while (c.threads_per_row < 32 && rows * c.threads_per_row < rule_min_threads) {
    if (c.chunks > 1) c.chunks /= 2;
    else if (c.vec * static_cast<int>(size_of(t)) > 4) c.vec /= 2;
    else break;
    c.threads_per_row *= 2;
    spread = true;
  }
  c.rows_per_block = std::max(spread ? 128 : 256, c.threads_per_row) / c.threads_per_row;
}

}  // namespace

softmax_config default_config(dtype t, long long rows, long long cols, bool contiguous) noexcept {
  const int vec = static_cast<int>(16 / size_of(t));
  softmax_config c;
  c.type = t;
  c.vec = vec;
  c.persistent = 0;  // one block per row group or segment: no occupancy query sizes the grid
  rows = std::max(rows, 1LL);
  cols = std::max(cols, 1LL);
  const long long vectors = (cols + vec - 1) / vec;
  const long long pow2_cols = pow2_at_least(cols);
  if (pow2_cols <= (size_of(t) == 4 ? 128 : 256)) {
    if (staged_short_rows(t, rows, cols, pow2_cols, contiguous)) {
      row_tile_split(pow2_cols, c);
      return c;
    }
    c.fam = family::warp_row;
    short_row_split(t, pow2_cols, c);
    spread_lanes(t, rows, c);
    return c;
  }
  if (vectors <= 32 * 4) {
    c.fam = family::warp_row;
    if (size_of(t) == 2) {  // 16-bit: 8-byte vectors, the fewest lanes (4 to 32) with up to 8 each
      c.vec = 4;
      const long long narrow = pow2_cols / c.vec;
      c.threads_per_row = 4;
      while (c.threads_per_row < 32 && c.threads_per_row * 8LL < narrow) c.threads_per_row *= 2;
      c.chunks = static_cast<int>(narrow / c.threads_per_row);
      spread_lanes(t, rows, c, true);
      return c;
    }
    // f32: the fewest lanes (4 to 32) holding the row in 1 or 4 chunks of 16-byte vectors
    c.chunks = vectors <= 32 ? 1 : 4;
    int lanes = 4;
    while (lanes < 32 && static_cast<long long>(lanes) * c.chunks < vectors) lanes *= 2;
    c.threads_per_row = lanes;
    spread_lanes(t, rows, c);
    return c;
  }
  const long long pow2_vectors = pow2_at_least(vectors);
  if (pow2_vectors <= 1024 * 4) {  // block_row: the fewest threads (128+) with up to 4 vectors each
    c.fam = family::block_row;
    c.block_threads = 128;
    while (pow2_vectors / c.block_threads > 4) c.block_threads *= 2;
    c.chunks = static_cast<int>(pow2_vectors / c.block_threads);
    while (c.block_threads < 1024 && c.chunks > 1 && rows * c.block_threads < rule_min_threads) {
      c.block_threads *= 2;
      c.chunks /= 2;
    }
    return c;
  }
  if (rows >= rule_block_rows && vectors <= rule_block_max_vectors) {
    // block_row with shared memory: 512 threads with 4 vectors each in registers (1024 with 8 past
    // 8192 vectors), the rest of the row in shared memory, an even number of vectors a thread.
    c.fam = family::block_row;
    c.block_threads = vectors <= 512 * 16 ? 512 : 1024;
    c.chunks = c.block_threads == 512 ? 4 : 8;
    const long long per_thread = (vectors + c.block_threads - 1) / c.block_threads;
    c.smem_chunks = static_cast<int>(std::max(2LL, (per_thread - c.chunks + 1) / 2 * 2));
    return c;
  }
  // split_row, one block per (row, segment): 256 threads with 8 vectors each, shorter segments
  // while the grid has fewer than rule_min_blocks, longer blocks past rule_max_segments.
  c.fam = family::split_row;
  c.block_threads = 256;
  c.chunks = 8;
  const auto segments = [&] {
    const long long held = static_cast<long long>(vec) * c.block_threads * c.chunks;
    return (cols + held - 1) / held;
  };
  while (c.chunks > 2 && rows * segments() < rule_min_blocks) c.chunks /= 2;
  if (segments() > rule_max_segments) {
    c.block_threads = 1024;
    c.chunks = 8;
  }
  return c;
}

std::vector<softmax_config> default_configs(dtype t) {
  std::vector<softmax_config> out;
  std::set<std::string> names;
  const auto add = [&](const softmax_config& c) {
    if (names.insert(instance_name(c)).second) out.push_back(c);
  };
  // Every boundary of the rule (each at a power of two of rows and columns), and one row length
  // beyond the last.
  const long long vec = 16 / static_cast<long long>(size_of(t));
  for (long long cols = 1; cols <= 2048LL * 128 * 2 * vec * 16; cols *= 2)
    for (long long rows = 1; rows <= rule_min_threads * 2; rows *= 2) add(default_config(t, rows, cols));
  // row_tile's short rows: one length off the vector grid for each power of two.
  for (long long cols = 8; cols <= rule_tile_max_cols; cols *= 2)
    add(default_config(t, rule_tile_min_elements, cols - 1));
  // block_row with shared memory sizes its shared part to the row: every even count, one row
  // length for each (each block size's longest row for it).
  for (const long long threads : {512LL, 1024LL})
    for (long long per_thread = 2; per_thread <= 16; ++per_thread)
      if (const long long vectors = threads * per_thread; vectors > 4096 && vectors <= rule_block_max_vectors)
        add(default_config(t, rule_block_rows, vectors * vec));
  return out;
}

std::string instance_name(const softmax_config& c) {
  std::string n = "softmax_";
  n += name_of(c.type);
  n += '_';
  n += name_of(c.fam);
  n += "_vec" + std::to_string(c.vec);
  if (rows_on_lanes(c.fam))
    n += "_rowthreads" + std::to_string(c.threads_per_row) + "_blockrows" + std::to_string(c.rows_per_block);
  else n += "_threads" + std::to_string(c.block_threads);
  n += "_chunks" + std::to_string(c.chunks);
  if (c.fam == family::cluster_row) n += "_cluster" + std::to_string(c.cluster);
  if (c.persistent != 1) n += "_persistent" + std::to_string(c.persistent);
  if (c.smem_chunks != 0) n += "_smemchunks" + std::to_string(c.smem_chunks);
  return n;
}

std::string template_name(const softmax_config& c) {
  std::string n = "cuop::kernels::softmax::";
  n += name_of(c.fam);
  n += '<';
  n += device_type_of(c.type);
  n += ", " + std::to_string(c.vec);
  if (rows_on_lanes(c.fam)) n += ", " + std::to_string(c.threads_per_row) + ", " + std::to_string(c.rows_per_block);
  else n += ", " + std::to_string(c.block_threads);
  n += ", " + std::to_string(c.chunks);
  if (c.fam == family::cluster_row) n += ", " + std::to_string(c.cluster);
  if (c.persistent != 1 || c.smem_chunks != 0) n += ", " + std::to_string(c.persistent);
  if (c.smem_chunks != 0) n += ", " + std::to_string(c.smem_chunks);
  return n + ">";
}

std::string_view header_of(family f) noexcept {
  switch (f) {
    case family::warp_row: return "cuop/kernels/softmax/warp_row.cuh";
    case family::block_row: return "cuop/kernels/softmax/block_row.cuh";
    case family::split_row: return "cuop/kernels/softmax/split_row.cuh";
    case family::cluster_row: return "cuop/kernels/softmax/cluster_row.cuh";
    case family::row_tile: return "cuop/kernels/softmax/row_tile.cuh";
  }
  return "";
}

std::string plan_launch(const softmax_config& c, long long rows, long long cols, const device_limits& dev,
                        launch_plan& out) {
  if (std::string bad = check_config(c); !bad.empty()) return bad;
  if (rows < 1) return "rows " + std::to_string(rows) + " < 1";
  if (cols < 1) return "cols " + std::to_string(cols) + " < 1";
  if (dev.sm > 0 && dev.sm < min_sm(c.fam))
    return std::string(name_of(c.fam)) + " needs sm_" + std::to_string(min_sm(c.fam)) + " or newer (device sm_" +
           std::to_string(dev.sm) + ")";
  const int threads = threads_per_block(c);
  if (threads > dev.max_threads_per_block)
    return "block of " + std::to_string(threads) + " threads > device limit " +
           std::to_string(dev.max_threads_per_block);
  const long long held = cols_per_owner(c);
  constexpr long long max_grid = std::numeric_limits<int>::max();

  const long long smem = dynamic_smem_bytes(c);
  if (dev.max_smem_per_block > 0 && smem + dev.static_smem > dev.max_smem_per_block)  // 0: not known
    return "shared memory " + std::to_string(smem) + " + " + std::to_string(dev.static_smem) +
           " static bytes > device limit " + std::to_string(dev.max_smem_per_block);

  launch_plan p;
  p.block_x = static_cast<unsigned>(threads);
  p.smem_bytes = static_cast<std::size_t>(smem);
  p.smem_opt_in = needs_smem_opt_in(smem, dev.static_smem);
  if (c.fam == family::row_tile) {
    if (cols > held) return "cols " + std::to_string(cols) + " > " + std::to_string(held) + " held per row";
    p.grid_x = static_cast<unsigned>(std::min((rows + c.rows_per_block - 1) / c.rows_per_block, max_grid));
    if ((rows + c.rows_per_block - 1) / c.rows_per_block > max_grid)
      return std::to_string(rows) + " rows need more than " + std::to_string(max_grid) + " blocks";
  } else if (c.fam == family::warp_row || c.fam == family::block_row) {
    if (cols > held) return "cols " + std::to_string(cols) + " > " + std::to_string(held) + " held per row";
    const long long groups = c.fam == family::warp_row ? (rows + c.rows_per_block - 1) / c.rows_per_block : rows;
    const long long cap = c.persistent ? resident_blocks(dev, threads) : max_grid;
    p.grid_x = static_cast<unsigned>(std::min({groups, cap, max_grid}));
  } else if (c.fam == family::cluster_row) {
    if (cols > c.cluster * held)
      return "cols " + std::to_string(cols) + " > " + std::to_string(c.cluster * held) + " held by a cluster of " +
             std::to_string(c.cluster) + " blocks of " + std::to_string(held);
    const long long resident = resident_clusters(dev);
    if (resident < 1)
      return "a cluster of " + std::to_string(c.cluster) + " blocks of " + std::to_string(threads) +
             " threads cannot be resident on this device";
    const long long clusters = std::min({rows, resident, max_grid / c.cluster});
    p.grid_x = static_cast<unsigned>(clusters * c.cluster);
    p.cluster_x = static_cast<unsigned>(c.cluster);
  } else {
    const long long splits = (cols + held - 1) / held;
    const long long resident = dev.max_resident_blocks > 0 ? dev.max_resident_blocks : dev.sm_count;
    if (resident < 1) return "split_row needs the device's co-resident block count";
    if (splits > resident)
      return "cols " + std::to_string(cols) + " need " + std::to_string(splits) + " blocks of " + std::to_string(held) +
             " > " + std::to_string(resident) + " co-resident blocks";
    if (c.persistent == 0) {  // one block per (row, segment)
      if (rows > max_grid / splits)
        return std::to_string(rows) + " rows of " + std::to_string(splits) + " blocks > " + std::to_string(max_grid) +
               " blocks";
      p.grid_x = static_cast<unsigned>(rows * splits);
      p.workspace_bytes = static_cast<std::size_t>(split_row_header_bytes +
                                                   rows * splits * (split_row_slot_bytes + split_row_claim_bytes));
    } else {
      const long long groups = std::min(rows, resident / splits);
      p.grid_x = static_cast<unsigned>(groups * splits);
      p.workspace_bytes = static_cast<std::size_t>(split_row_header_bytes + 2 * groups * splits * split_row_slot_bytes);
      p.cooperative = true;
    }
  }
  out = p;
  return {};
}

}  // namespace cuop::kernels::softmax
