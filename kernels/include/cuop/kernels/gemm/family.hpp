// Host-side description of our GEMM kernel families: their configurations, the names that
// identify them, and how a configuration is launched for a problem. Plain C++ (no CUDA headers),
// shared by the tuner (NVRTC path) and the library's dispatch (nvcc path).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "cuop/dtype.hpp"

namespace cuop::kernels::gemm {

enum class family : int {
  mma = 0,     // tensor cores through mma.sync m16n8k16 + ldmatrix + multi-stage cp.async (sm_80+)
  skinny = 1,  // decode-sized M (1..64): bound by reading B, 16-byte loads, split-K over SMs
  wgmma = 2,   // Hopper's wgmma.mma_async fed by TMA, warp-specialized and persistent (sm_90a)
};

// Every family, in enum order.
std::vector<family> all_families();

// Layout of B (A is row-major, C and D row-major; see args.cuh).
enum class b_layout : int { row = 0, col = 1 };

std::string_view name_of(family f) noexcept;
bool parse_family(std::string_view s, family& out) noexcept;
std::string_view name_of(b_layout l) noexcept;  // "row" / "col"
bool parse_b_layout(std::string_view s, b_layout& out) noexcept;

// Tunable parameters of a family, in the order they appear in names and templates.
// mma:    block_m, block_n, block_k, warp_m, warp_n, stages, group_m, split_k
// skinny: block_n, threads, m_tile, k_chunk, split_k
// wgmma:  block_m, block_n, stages, consumers, group_m
std::vector<std::string_view> param_names(family f);
// Parameters a sweep file may leave out (0 when absent), appended to names only when set.
// mma: pack; wgmma: cluster
std::vector<std::string_view> optional_param_names(family f);

// One configuration. Fields a family does not use are 0.
struct gemm_config {
  family fam = family::mma;
  dtype in = dtype::bf16;    // A and B: f16 or bf16
  dtype out = dtype::f32;    // C and D: f32 or the input type
  b_layout b = b_layout::col;
  // mma (and wgmma: block_m, block_n, stages, group_m)
  int block_m = 0, block_n = 0, block_k = 0;  // block tile
  int warp_m = 0, warp_n = 0;                 // warp tile (block_m % warp_m == 0, ...)
  int stages = 0;                             // pipeline depth: cp.async (mma) or TMA buffers (wgmma)
  int group_m = 0;                            // rasterization: block rows per swizzle group (1 = none)
  // skinny
  int threads = 0;   // threads per block
  int m_tile = 0;    // rows of A (and D) one block computes (1..64)
  int k_chunk = 0;   // elements of K per thread per step (multiple of 8: one 16-byte load)
  // both
  int split_k = 1;   // K split over this many blocks, reduced in the workspace (1 = no split)
  // mma: 1 copies A and B into the workspace first, rows 16-byte aligned and K (and the N of
  // row-major B) padded with zeros to a multiple of 8, so that operands whose leading dimension
  // or pointer defeats 16-byte copies still run the kernel's aligned main loop (pack.hpp)
  int pack = 0;
  // wgmma
  int consumers = 0;  // computing warpgroups (1 or 2), beside the copying one
  int cluster = 0;    // blocks of a cluster along M that share their B tiles by multicast (0 or 1: none, 2)
};

bool set_param(gemm_config& c, std::string_view name, long long value) noexcept;
long long get_param(const gemm_config& c, std::string_view name) noexcept;

int threads_per_block(const gemm_config& c) noexcept;

// Empty when the configuration is well formed for any problem, else why not.
std::string check_config(const gemm_config& c);

// Stable key naming the code, each field named in full, e.g.
// "gemm_bf16_f32_col_mma_block128x128x32_warp64x64_stages4_groupm8_splitk1",
// "gemm_bf16_bf16_col_skinny_blockn16_threads256_mtile1_kchunk16_splitk4",
// "gemm_bf16_bf16_col_wgmma_block128x256_stages4_consumers2_groupm8".
// Never reused for different code: every template argument appears in it.
std::string instance_name(const gemm_config& c);

// Device template instantiation spelled as source, and the header that defines it.
std::string template_name(const gemm_config& c);
std::string_view header_of(family f) noexcept;

// The largest m, n or k the mma family plans: its tile origins, edges and k steps are ints, and
// stay below 2^31 with a margin of more than two tiles in every dimension.
inline constexpr int max_mma_extent = (1 << 30) + ((1 << 30) - (1 << 16));

struct device_limits {
  int sm_count = 0;
  int max_threads_per_block = 1024;
  long long max_smem_per_block = 48 * 1024;  // opt-in maximum; 0: not known (validation, no device)
};

// Where a packing configuration puts its copies of A and B (kernels/src/gemm/pack.cu).
struct pack_plan {
  bool on = false;
  bool b_col = true;             // B is n x k (column-major) or k x n (row-major)
  int k = 0;                     // K rounded up to a multiple of 8: the kernel's K
  int n = 0;                     // the kernel's N: n, or with pad_n n rounded up to 8
  long long b_rows = 0;          // rows of the packed B: n (or the padded n) x k, or k x ldb
  long long ldb = 0;             // leading dimension of the packed B (k, or n rounded up to 8)
  std::size_t a_offset = 0;      // bytes into the workspace, 256-byte aligned
  std::size_t b_offset = 0;
};

struct launch_plan {
  unsigned grid_x = 1, grid_y = 1, grid_z = 1;
  unsigned block_x = 1;
  unsigned cluster_x = 1;           // blocks of a thread-block cluster along x (wgmma's cluster)
  std::size_t smem_bytes = 0;       // dynamic shared memory
  std::size_t workspace_bytes = 0;  // zeroed once when allocated; self-resetting afterwards
  std::size_t zeroed_bytes = 0;     // of those, the leading bytes the launch reads as zeros (the
                                    // split-K counters of its tiles, 4 bytes each): a buffer whose
                                    // contents are not kept between launches (a graph's) clears
                                    // them before each
  pack_plan pack;                   // regions after the split-K ones (never over the counters),
                                    // rewritten by every launch
};

// The packed copies of A (m x k) and B (n x k, or k x n when !b_col) placed from byte `start` of
// a workspace (256-byte aligned regions); returns the end of the second. k <= INT_MAX - 7.
// `pad_n`: B padded with zeros to N rounded up to 8 too (whose extra columns of D are not kept).
std::size_t plan_pack(bool b_col, int m, int n, int k, std::size_t start, pack_plan& out, bool pad_n = false);

// Where a staged output lives (cuBLASLt's `pack: 2` configurations, pack.hpp): D, and C copied in
// first when it is read, as m rows of `ld` elements, each row 16-byte aligned (n: the N computed,
// at least the call's).
struct stage_plan {
  bool on = false;
  int element_bytes = 2;   // of C and D: 2 or 4
  long long ld = 0;        // n rounded up to 16 bytes of elements
  std::size_t offset = 0;  // bytes into the workspace, 256-byte aligned
};

// The staged output of an m x n D of `element_bytes` elements placed from byte `start` of a
// workspace; returns its end.
std::size_t plan_stage(int m, int n, int element_bytes, std::size_t start, stage_plan& out);

// Plans the launch of `c` for an m x n x k problem. Empty on success, else why this
// configuration cannot run the problem (the mma family's tile arithmetic is 32-bit: m, n and k
// within max_mma_extent).
std::string plan_launch(const gemm_config& c, int m, int n, int k, const device_limits& dev,
                        launch_plan& out);

// Floating-point operations of the problem (2 m n k) and bytes of A, B and D touched once.
double gemm_flops(int m, int n, int k) noexcept;
double gemm_bytes(dtype in, dtype out, int m, int n, int k) noexcept;

}  // namespace cuop::kernels::gemm
