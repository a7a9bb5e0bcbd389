// Host-side description of the softmax kernel families: their configurations, the names that
// identify them, and how a configuration is launched for a problem. Plain C++ (no CUDA headers),
// shared by the tuner (NVRTC path) and the library's dispatch (nvcc path) so both launch a
// configuration identically.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "cuop/dtype.hpp"

namespace cuop::kernels::softmax {

enum class family : int {
  warp_row = 0,   // THREADS_PER_ROW lanes (1..32) per row, row in registers, short rows
  block_row = 1,  // one block per row, row in registers, single pass, medium rows
  split_row = 2,  // SPLITS co-resident blocks per row (cooperative launch), rows of 100k+ columns
  cluster_row = 3,  // the CLUSTER blocks of a thread-block cluster per row (sm_90+), long rows
  row_tile = 4,     // ROWS_PER_BLOCK whole rows staged in shared memory, short rows of any length
};

std::string_view name_of(family f) noexcept;
bool parse_family(std::string_view s, family& out) noexcept;
std::vector<family> all_families();

// Oldest SM architecture (compute capability x 10) that can run the family: 80 for warp_row,
// block_row and split_row, 90 for cluster_row (thread-block clusters). Its kernels still compile
// for older targets, where they trap: the tuner and emit skip them there.
int min_sm(family f) noexcept;

// The tunable parameters of a family, in the order they appear in names and templates.
// warp_row:  vec, threads_per_row, rows_per_block, chunks
// row_tile:  vec, threads_per_row, rows_per_block, chunks (elements, not vectors, a lane)
// block_row: vec, block_threads, chunks
// split_row: vec, block_threads, chunks
// cluster_row: vec, block_threads, chunks, cluster
std::vector<std::string_view> param_names(family f);

// Parameters a sweep file may leave out, each then taking its default: `persistent` (default 1)
// for warp_row, block_row and split_row, `smem_chunks` (default 0) for block_row and split_row. Names and templates carry it only when it differs from the
// default, so configurations named before it existed keep their names.
std::vector<std::string_view> optional_param_names(family f);

// One configuration. Fields a family does not use are 0.
struct softmax_config {
  family fam = family::block_row;
  dtype type = dtype::f32;
  int vec = 1;              // elements per vector access (1, 2, 4, 8; 16 bytes max; row_tile: 4,
                            // 8 or 16 bytes)
  int threads_per_row = 0;  // warp_row, row_tile
  int rows_per_block = 0;   // warp_row, row_tile
  int block_threads = 0;    // block_row, split_row, cluster_row
  int chunks = 1;           // vectors per thread held in registers (row_tile: elements)
  int cluster = 0;          // cluster_row: blocks per cluster (2, 4, 8 or 16)
  int persistent = 1;       // warp_row, block_row, split_row: 1 grid capped at the resident
                            // blocks, 0 one block per row group or row segment (launch_plan)
  int smem_chunks = 0;      // block_row, split_row with persistent 0: vectors per thread held in
                            // dynamic shared memory besides the registers' `chunks`
};

// Reads a parameter by name (as in param_names or optional_param_names); returns false for an
// unknown name (one in neither for c.fam: set c.fam first) or a value outside [0, INT_MAX]. get_param returns -1 for
// an unknown name.
bool set_param(softmax_config& c, std::string_view name, long long value) noexcept;
long long get_param(const softmax_config& c, std::string_view name) noexcept;

// The default rule: the configuration the library runs for a dtype and shape when the dispatch
// model has no confident choice, and the baseline the model is measured against (docs/dispatch.md,
// "The softmax default rule"). 16-bit rows of 5 to 64 columns that are not a multiple of 8, 2^19
// elements or more in all, are staged whole in row_tile (8 elements a lane, 16 from 33 columns,
// 128-thread blocks) when the call is `contiguous` (both operands' rows exactly cols elements
// apart: row_tile moves such rows as one range, and strided ones element by element). Otherwise
// rows live in registers. Short rows (up to 128 f32 or 256 16-bit
// columns, rounded up to a power of two P) on 1 to 8 lanes of up to 8 narrow vectors (f32: 8
// lanes of 16-byte vectors); then rows of up to 128 16-byte vectors on the fewest lanes (4 to 32)
// that hold them in up to 8 vectors of 8 bytes a lane in 128-thread blocks (16-bit), or in 1 or
// 4 16-byte vectors a lane (f32), in warp_row; then up to 4096 vectors in block_row
// (the fewest threads from 128 with up to 4 vectors each); longer rows of 1024 rows or more, up to
// 16384 vectors, in block_row with shared memory (512 threads with 4 vectors in registers, 1024
// with 8 past 8192 vectors, the rest of the row in shared memory); other long rows in split_row,
// one block of 256 threads with 8 vectors per row segment. Small launches spread out: with fewer than 32k
// threads a short row takes more lanes (128-thread blocks), a medium row more threads, and a long
// row shorter segments while the grid has fewer than 256 blocks. default_configs(t) lists every
// configuration it returns (the library instantiates them all).
softmax_config default_config(dtype t, long long rows, long long cols, bool contiguous = true) noexcept;
std::vector<softmax_config> default_configs(dtype t);

// Threads per block of the configuration (warp_row, row_tile: threads_per_row * rows_per_block).
int threads_per_block(const softmax_config& c) noexcept;

// Dynamic shared memory a launch of c needs, in bytes (block_row's smem_chunks; else 0).
long long dynamic_smem_bytes(const softmax_config& c) noexcept;

// Columns one row-owner holds, registers and shared memory (warp_row, row_tile: per row; block_row: per block;
// split_row: per block, the row is split over ceil(cols / this) blocks; cluster_row: per block,
// a row holds at most cluster times this).
long long cols_per_owner(const softmax_config& c) noexcept;

// Empty when the configuration is well formed for any problem, else why not (e.g. "vec * sizeof
// > 16 bytes", "threads_per_row must be a power of two <= 32", "block of 2048 threads > 1024").
std::string check_config(const softmax_config& c);

// Stable key naming the code, each field named in full, e.g.
// "softmax_f16_warp_row_vec8_rowthreads32_blockrows4_chunks1",
// "softmax_f32_cluster_row_vec4_threads512_chunks8_cluster8",
// "softmax_bf16_block_row_vec8_threads256_chunks4_persistent0" (persistent 0),
// "softmax_f32_block_row_vec4_threads1024_chunks6_persistent0_smemchunks10" (10 vectors per thread in
// shared memory).
// Never reused for different code: every template argument that differs from its default
// appears in it.
std::string instance_name(const softmax_config& c);

// Device template instantiation spelled as source, e.g.
// "cuop::kernels::softmax::warp_row<__half, 8, 32, 4, 1>", and the header that defines it.
std::string template_name(const softmax_config& c);
std::string_view header_of(family f) noexcept;

// Shared memory a block may use, static and dynamic together, without raising
// cudaFuncAttributeMaxDynamicSharedMemorySize.
inline constexpr long long default_smem_per_block = 48 * 1024;

// Whether a launch with `dynamic` bytes of dynamic shared memory beside `static_bytes` must raise
// that attribute first (static and dynamic bytes share the default allowance).
constexpr bool needs_smem_opt_in(long long dynamic, long long static_bytes) noexcept {
  return dynamic > 0 && dynamic + static_bytes > default_smem_per_block;
}

// What the device offers a launch; the caller fills it from cudaGetDeviceProperties (or the
// target's published limits when validating without a GPU).
struct device_limits {
  int sm = 0;  // compute capability x 10 (90 for 9.0); 0: unknown (validation without a GPU)
  int sm_count = 0;
  int max_threads_per_block = 1024;
  long long max_smem_per_block = 48 * 1024;  // opt-in maximum
  long long max_resident_blocks = 0;         // split_row: occupancy(kernel) * sm_count
  // cluster_row: clusters of the configuration's size that can be resident at once
  // (cudaOccupancyMaxActiveClusters); 0: unknown (plan_launch then gives one cluster per row);
  // negative: such a cluster cannot be resident on this device at all.
  long long max_active_clusters = 0;
  // The kernel's static shared memory (cudaFuncGetAttributes); it shares the per-block limit with
  // the dynamic bytes. 0 when validating without a GPU (the target check counts it from ptxas).
  long long static_smem = 0;
};

struct launch_plan {
  unsigned grid_x = 1, grid_y = 1, grid_z = 1;
  unsigned block_x = 1;
  std::size_t smem_bytes = 0;       // dynamic shared memory
  // Static plus dynamic bytes exceed the 48 KiB every kernel may use unasked: the launch must
  // raise cudaFuncAttributeMaxDynamicSharedMemorySize first.
  bool smem_opt_in = false;
  std::size_t workspace_bytes = 0;  // must be zeroed once when allocated
  bool cooperative = false;         // launch with the cooperative attribute (co-residency)
  unsigned cluster_x = 1;           // blocks per thread-block cluster along x; 1: no cluster
};

// Grid: row_tile: one block per ROWS_PER_BLOCK rows. warp_row and block_row stride over row groups. persistent == 1: grid_x is capped at the
// resident blocks (dev.max_resident_blocks when > 0, else an estimate from sm_count, else
// uncapped); persistent == 0: one block per group (up to 2^31 - 1 blocks).
// split_row: SPLITS = ceil(cols / cols_per_owner) blocks per row, rejected when more than
// resident = dev.max_resident_blocks (or sm_count when 0) for this kernel. persistent == 1:
// grid_x = G * SPLITS, G = min(rows, resident / SPLITS), a cooperative launch. persistent == 0:
// grid_x = rows * SPLITS (up to 2^31 - 1), an ordinary launch (block b is segment b % SPLITS of
// row b / SPLITS). The workspace (layout in split_workspace.hpp) must be zeroed once; it stays
// valid for every later launch that needs no more bytes.
// cluster_row: grid_x = clusters * CLUSTER and cluster_x = CLUSTER, clusters = min(rows,
// dev.max_active_clusters), or rows when that count is unknown (0): an estimate from the SM count
// can exceed what GPC fragmentation leaves resident, and a persistent grid larger than the
// resident clusters runs its last ones after the others. Clusters stride over rows, so they need
// not be co-resident with each other and the launch is not cooperative. Rejected when cols >
// CLUSTER * cols_per_owner.
// Every family: a device (dev.sm, when known) older than min_sm(c.fam) is rejected, and so is a
// configuration whose dynamic shared memory (dynamic_smem_bytes) plus dev.static_smem exceeds
// dev.max_smem_per_block; plan.smem_bytes carries the dynamic bytes to the launch, and
// plan.smem_opt_in says whether the sum passes the default 48 KiB.
// Plans the launch of `c` for a rows x cols problem. Returns an empty string on success, else the
// reason this configuration cannot run the problem (e.g. "cols 5000 > 4096 held per row").
std::string plan_launch(const softmax_config& c, long long rows, long long cols,
                        const device_limits& dev, launch_plan& out);

}  // namespace cuop::kernels::softmax
