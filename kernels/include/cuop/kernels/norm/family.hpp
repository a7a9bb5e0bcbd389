// Host-side description of the row-normalization kernel families (LayerNorm and RMSNorm, with
// or without the fused residual add): their configurations, the names that identify them, the
// default rule, and how a configuration is launched for a problem. Plain C++ (no CUDA headers),
// shared by the tuner (NVRTC path) and the library's dispatch (nvcc path).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cuop/dtype.hpp"

namespace cuop::kernels::norm {

// What a kernel computes (its KIND template argument: layernorm_kind, rmsnorm_kind in
// common.cuh). RMSNorm kernels add the residual when the call passes one.
enum class norm_kind : int { layernorm = 0, rmsnorm = 1 };

enum class family : int {
  warp_row = 0,    // THREADS_PER_ROW lanes (1..32) per row, row in registers, short rows
  block_row = 1,   // one block per row, row in registers
  block_loop = 2,  // one block per row of any length, read twice (the second time mostly from L2)
};

std::string_view name_of(norm_kind k) noexcept;  // "layernorm", "rmsnorm": also the ops' names
std::string_view name_of(family f) noexcept;
bool parse_kind(std::string_view s, norm_kind& out) noexcept;
bool parse_family(std::string_view s, family& out) noexcept;
std::vector<family> all_families();

// Oldest SM architecture (compute capability x 10) that runs the family: 80 for all of them.
int min_sm(family f) noexcept;

// The tunable parameters of a family, in the order they appear in names and templates.
// warp_row:   vec, threads_per_row, rows_per_block, chunks
// block_row:  vec, block_threads, chunks
// block_loop: vec, block_threads
std::vector<std::string_view> param_names(family f);

// One configuration. Fields a family does not use are 0.
struct norm_config {
  norm_kind kind = norm_kind::layernorm;
  family fam = family::block_row;
  dtype type = dtype::f32;
  int vec = 1;              // elements per vector access (1, 2, 4, 8; 16 bytes max)
  int threads_per_row = 0;  // warp_row
  int rows_per_block = 0;   // warp_row
  int block_threads = 0;    // block_row, block_loop
  int chunks = 0;           // warp_row, block_row: vectors per thread held in registers
};

// Reads a parameter by name (as in param_names for c.fam: set c.fam first); false for an unknown
// name or a value outside [0, INT_MAX]. get_param returns -1 for an unknown name.
bool set_param(norm_config& c, std::string_view name, long long value) noexcept;
long long get_param(const norm_config& c, std::string_view name) noexcept;

// The default rule: what the library runs for a kind, dtype and shape when the dispatch model has
// no confident choice, and the baseline the model is measured against. 16-byte vectors. A launch
// of fewer than 512 rows, whose time is one row's latency, and every RMSNorm launch with the
// residual add fused (which stores each vector's sum before loading the next), spread rows of up
// to 1024 vectors over one vector a thread: warp_row on the fewest of 4, 8, 16 or 32 lanes that
// hold the row, else block_row on the fewest of 64, 96, 128, 160, 192, 256, 320, 384, 512, 640,
// 768 or 1024 threads.
// Otherwise rows of up to 256 vectors in warp_row, 128-thread blocks: the fewest of 4, 8, 16 or 32
// lanes that hold the row with at most 4 vectors a lane (8 on 32 lanes), as many vectors as it
// needs. Then up to 4096 vectors in block_row, 4 vectors a thread on the fewest of 96, 128, 160,
// 192, 256, 320, 384, 512, 640, 768 or 1024 threads (a block that holds the row with little to
// spare and small blocks keep more rows in flight); longer rows in block_loop with 512 threads.
// default_configs lists every configuration it returns (the library instantiates them all).
norm_config default_config(norm_kind k, dtype t, long long rows, long long cols, bool residual = false) noexcept;
std::vector<norm_config> default_configs(norm_kind k, dtype t);

int threads_per_block(const norm_config& c) noexcept;

// Columns one row owner holds in registers (warp_row: its lanes; block_row: its block); 0 for
// block_loop, which holds none and takes rows of any length.
long long cols_per_owner(const norm_config& c) noexcept;

// Empty when the configuration is well formed for any problem, else why not.
std::string check_config(const norm_config& c);

// Stable key naming the code, each field named in full, e.g.
// "rmsnorm_bf16_warp_row_vec8_rowthreads32_blockrows4_chunks4",
// "layernorm_f32_block_row_vec4_threads256_chunks4", "rmsnorm_f16_block_loop_vec8_threads512".
std::string instance_name(const norm_config& c);

// Device template instantiation spelled as source, e.g.
// "cuop::kernels::norm::block_row<0, float, 4, 256, 4>", and the header that defines it.
std::string template_name(const norm_config& c);
std::string_view header_of(family f) noexcept;

// What the device offers a launch (from cudaGetDeviceProperties; zeros when validating without
// a GPU).
struct device_limits {
  int sm = 0;  // compute capability x 10; 0: unknown
  int sm_count = 0;
  int max_threads_per_block = 1024;
};

struct launch_plan {
  unsigned grid_x = 1;
  unsigned block_x = 1;
};

// Grid: one block per row (block_row, block_loop) or per group of rows_per_block rows
// (warp_row), up to 2^31 - 1 blocks, which then stride over the rest. Returns "" on success,
// else why `c` cannot run a rows x cols problem (e.g. "cols 5000 > 4096 held per row").
std::string plan_launch(const norm_config& c, long long rows, long long cols, const device_limits& dev,
                        launch_plan& out);

}  // namespace cuop::kernels::norm
