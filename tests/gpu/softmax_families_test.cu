// The softmax kernel families, instantiated directly with nvcc, planned with plan_launch,
// launched with launch() and checked against the reference on awkward shapes: tiny and odd
// column counts, one row and 65537 rows, misaligned pointers, strides wider than the row, and
// rows in which whole per-thread or per-block segments are -inf (row_tile also on rows of odd
// lengths at many rows: tiles that start anywhere on the vector grid). Outputs are poisoned with NaN
// first, and the padding between rows must still hold it afterwards. cluster_row needs sm_90:
// its tests skip, saying so, on older devices.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "cuop/kernels/softmax/block_row.cuh"
#include "cuop/kernels/softmax/cluster_row.cuh"
#include "cuop/kernels/softmax/family.hpp"
#include "cuop/kernels/softmax/launch.hpp"
#include "cuop/kernels/softmax/row_tile.cuh"
#include "cuop/kernels/softmax/split_row.cuh"
#include "cuop/kernels/softmax/warp_row.cuh"
#include "cuop/reference/softmax_reference.hpp"
#include "gpu_test_support.hpp"

namespace {

namespace ks = cuop::kernels::softmax;
namespace ref = cuop::reference;

template <typename K>
__global__ void __launch_bounds__(K::block_threads) entry(ks::softmax_args a) {
  K::run(a);
}

// Columns [begin, end) of every row set to -inf.
template <typename T>
__global__ void set_neg_inf(T* data, long long rows, long long stride, long long begin, long long end) {
  const long long width = end - begin;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < rows * width;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    T* p = data + (i / width) * stride + begin + i % width;
    if constexpr (sizeof(T) == 4) *reinterpret_cast<unsigned*>(p) = 0xff800000u;
    else if constexpr (std::is_same_v<T, __half>) *reinterpret_cast<unsigned short*>(p) = 0xfc00u;
    else *reinterpret_cast<unsigned short*>(p) = 0xff80u;
  }
}

cudaError_t fill_neg_inf(cuop::dtype t, void* data, long long rows, long long stride, long long begin, long long end) {
  if (end <= begin) return cudaSuccess;
  if (t == cuop::dtype::f32) set_neg_inf<<<256, 256>>>(static_cast<float*>(data), rows, stride, begin, end);
  else if (t == cuop::dtype::f16) set_neg_inf<<<256, 256>>>(static_cast<__half*>(data), rows, stride, begin, end);
  else set_neg_inf<<<256, 256>>>(static_cast<__nv_bfloat16*>(data), rows, stride, begin, end);
  return cudaGetLastError();
}

struct shape {
  long long rows, cols;
};

// Row strides are cols + pad; pointers are offset by off elements from a 256-byte boundary.
struct layout {
  long long in_pad, out_pad;
  int in_off, out_off;
};

const std::vector<shape> shapes = {{1, 1},      {7, 3},     {65537, 3},  {65537, 128},
                                   {129, 1000}, {33, 4097}, {1, 100003}, {3, 100003}};
const std::vector<layout> layouts = {{0, 0, 0, 0}, {0, 0, 1, 1}, {0, 0, 1, 0},
                                     {0, 0, 0, 1}, {5, 3, 0, 0}, {5, 3, 1, 1}};

bool is_nan_bits(cuop::dtype t, const unsigned char* p) {
  if (t == cuop::dtype::f32) {
    std::uint32_t b;
    std::memcpy(&b, p, 4);
    return (b & 0x7f800000u) == 0x7f800000u && (b & 0x7fffffu) != 0;
  }
  std::uint16_t b;
  std::memcpy(&b, p, 2);
  if (t == cuop::dtype::f16) return (b & 0x7c00u) == 0x7c00u && (b & 0x3ffu) != 0;
  return (b & 0x7f80u) == 0x7f80u && (b & 0x7fu) != 0;
}

// Owns device buffers for one test; the split_row workspace is zeroed once and reused by every
// case, which is the self-resetting contract under test.
struct harness {
  ks::softmax_config cfg;
  const void* kernel;
  ks::device_limits dev;
  void* workspace = nullptr;
  std::size_t workspace_size = 0;
  long long inf_begin = 0, inf_end = 0;  // columns set to -inf in every row (none when equal)

  ~harness() { cudaFree(workspace); }

  void run_case(const shape& sh, const layout& lo, int repeats) {
    SCOPED_TRACE(ks::instance_name(cfg) + " rows " + std::to_string(sh.rows) + " cols " + std::to_string(sh.cols) +
                 " in_pad " + std::to_string(lo.in_pad) + " out_pad " + std::to_string(lo.out_pad) + " in_off " +
                 std::to_string(lo.in_off) + " out_off " + std::to_string(lo.out_off));
    ks::launch_plan plan;
    const std::string why = ks::plan_launch(cfg, sh.rows, sh.cols, dev, plan);
    const long long held = ks::cols_per_owner(cfg);
    if (cfg.fam == ks::family::split_row) {
      const long long splits = (sh.cols + held - 1) / held;
      ASSERT_EQ(why.empty(), splits <= dev.max_resident_blocks) << why;
      if (why.empty() && cfg.persistent == 0) {  // one block per (row, segment)
        ASSERT_EQ(plan.grid_x, static_cast<unsigned>(sh.rows * splits));
        ASSERT_FALSE(plan.cooperative);
      }
    } else if (cfg.fam == ks::family::cluster_row) {
      ASSERT_EQ(why.empty(), sh.cols <= cfg.cluster * held) << why;
      if (why.empty()) {
        ASSERT_EQ(plan.cluster_x, static_cast<unsigned>(cfg.cluster));
        ASSERT_EQ(plan.grid_x % plan.cluster_x, 0u);
        ASSERT_LE(plan.grid_x / plan.cluster_x, static_cast<unsigned long long>(dev.max_active_clusters));
      }
    } else {
      ASSERT_EQ(why.empty(), sh.cols <= held) << why;
      // One block per row group, not the resident cap (row_tile always).
      if (why.empty() && (cfg.persistent == 0 || cfg.fam == ks::family::row_tile)) {
        const long long per_block = cfg.fam == ks::family::block_row ? 1 : cfg.rows_per_block;
        ASSERT_EQ(plan.grid_x, static_cast<unsigned>((sh.rows + per_block - 1) / per_block));
      }
    }
    if (!why.empty()) return;
    ASSERT_EQ(plan.smem_opt_in, plan.smem_bytes > 0 && static_cast<long long>(plan.smem_bytes) + dev.static_smem >
                                                           ks::default_smem_per_block);

    const cuop::dtype t = cfg.type;
    const std::size_t es = cuop::size_of(t);
    const long long in_stride = sh.cols + lo.in_pad, out_stride = sh.cols + lo.out_pad;
    const long long in_count = (sh.rows - 1) * in_stride + sh.cols + lo.in_off;
    const long long out_count = (sh.rows - 1) * out_stride + sh.cols + lo.out_off;
    unsigned char *in = nullptr, *out = nullptr;
    float* expect = nullptr;
    CUOP_CUDA_ASSERT(cudaMalloc(&in, in_count * es));
    CUOP_CUDA_ASSERT(cudaMalloc(&out, out_count * es));
    CUOP_CUDA_ASSERT(cudaMalloc(&expect, sh.rows * sh.cols * sizeof(float)));
    if (plan.workspace_bytes > workspace_size) {
      cudaFree(workspace);
      workspace = nullptr;
      CUOP_CUDA_ASSERT(cudaMalloc(&workspace, plan.workspace_bytes));
      CUOP_CUDA_ASSERT(cudaMemset(workspace, 0, plan.workspace_bytes));
      workspace_size = plan.workspace_bytes;
    }
    const void* in_data = in + lo.in_off * es;
    void* out_data = out + lo.out_off * es;
    CUOP_CUDA_ASSERT(ref::fill_random(t, in, in_count, 1234 + sh.cols, -8.f, 8.f, nullptr));
    CUOP_CUDA_ASSERT(fill_neg_inf(t, in + lo.in_off * es, sh.rows, in_stride, std::min(inf_begin, sh.cols),
                                  std::min(inf_end, sh.cols)));
    CUOP_CUDA_ASSERT(ref::softmax_reference(t, in_data, sh.rows, sh.cols, in_stride, expect, nullptr));

    for (int rep = 0; rep < repeats; ++rep) {
      CUOP_CUDA_ASSERT(ref::fill_nan(t, out, out_count, nullptr));
      const ks::softmax_args args{in_data, out_data, sh.rows, sh.cols, in_stride, out_stride, workspace};
      CUOP_CUDA_ASSERT(ks::launch(kernel, plan, args, nullptr));
      CUOP_CUDA_ASSERT(cudaDeviceSynchronize());

      ref::compare_result r;
      CUOP_CUDA_ASSERT(ref::compare_softmax(t, out_data, sh.rows, sh.cols, out_stride, expect,
                                            ref::softmax_tolerance(t, sh.cols), ref::softmax_rtol(t), &r, nullptr));
      EXPECT_EQ(r.bad, 0) << "launch " << rep << ": first bad at row " << r.first_bad_row << " col " << r.first_bad_col
                          << ", " << r.nan_count << " NaN, max abs err " << r.max_abs_err << ", max rel err "
                          << r.max_rel_err;
      EXPECT_EQ(r.nan_count, 0);
    }

    // Nothing outside the rows was written: the padding still holds the poison.
    if (lo.out_pad > 0 || lo.out_off > 0) {
      std::vector<unsigned char> host(out_count * es);
      CUOP_CUDA_ASSERT(cudaMemcpy(host.data(), out, host.size(), cudaMemcpyDeviceToHost));
      long long touched = 0;
      for (long long i = 0; i < lo.out_off; ++i) touched += !is_nan_bits(t, &host[i * es]);
      for (long long r = 0; r + 1 < sh.rows; ++r)
        for (long long c = sh.cols; c < out_stride; ++c)
          touched += !is_nan_bits(t, &host[(lo.out_off + r * out_stride + c) * es]);
      EXPECT_EQ(touched, 0) << "elements outside the rows were written";
    }
    cudaFree(in);
    cudaFree(out);
    cudaFree(expect);
  }
};

// Skips (with the reason) on a device older than the family needs; else the limits for K from
// query_limits, as the tuner and the dispatch get them.
template <typename K>
void prepare(const ks::softmax_config& cfg, ks::device_limits& dev) {
  ASSERT_EQ(ks::check_config(cfg), "");
  ASSERT_EQ(ks::threads_per_block(cfg), K::block_threads);
  int device = 0;
  cudaDeviceProp prop{};
  CUOP_CUDA_ASSERT(cudaGetDevice(&device));
  CUOP_CUDA_ASSERT(cudaGetDeviceProperties(&prop, device));
  const int sm = prop.major * 10 + prop.minor;
  if (sm < ks::min_sm(cfg.fam))
    GTEST_SKIP() << ks::name_of(cfg.fam) << " needs sm_" << ks::min_sm(cfg.fam) << " or newer, device is sm_" << sm;
  // A build without code for the family's architecture (CMAKE_CUDA_ARCHITECTURES=80 on an H200,
  // run through compute_80 PTX) carries cluster_row's trapping stub; dispatch never picks it there.
  cudaFuncAttributes attr{};
  CUOP_CUDA_ASSERT(cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(&entry<K>)));
  if (attr.ptxVersion < ks::min_sm(cfg.fam))
    GTEST_SKIP() << ks::name_of(cfg.fam) << " needs code for sm_" << ks::min_sm(cfg.fam) << "; this build's is compute_"
                 << attr.ptxVersion << " PTX";
  CUOP_CUDA_ASSERT(ks::query_limits(device, reinterpret_cast<const void*>(&entry<K>), cfg, dev));
  ASSERT_GT(dev.max_resident_blocks, 0) << "kernel cannot be resident";
  if (cfg.fam == ks::family::cluster_row)
    ASSERT_GT(dev.max_active_clusters, 0) << "a cluster of " << cfg.cluster << " cannot be resident";
}

template <typename K>
void check_family(ks::softmax_config cfg, const std::vector<shape>& more = {}) {
  harness h{cfg, reinterpret_cast<const void*>(&entry<K>), {}};
  prepare<K>(cfg, h.dev);
  if (testing::Test::HasFatalFailure() || testing::Test::IsSkipped()) return;
  const int repeats = cfg.fam == ks::family::split_row ? 2 : 1;  // the workspace must self-reset
  std::vector<shape> all = shapes;
  all.insert(all.end(), more.begin(), more.end());
  for (const shape& sh : all) {
    // Keep each case moderate: many rows only with short rows.
    if (sh.rows > 1000 && sh.cols > 128) continue;
    for (const layout& lo : layouts) {
      h.run_case(sh, lo, repeats);
      if (testing::Test::HasFatalFailure()) return;
    }
  }
}

// Columns [begin, end) of every row of a rows x cols problem are -inf: whole per-thread tiles
// (and per-block segments, when the segment is shorter than the run) hold only -inf, whose
// elements must come out 0 while the rest of the row is normalized as usual.
template <typename K>
void check_neg_inf_segment(ks::softmax_config cfg, shape sh, long long begin, long long end) {
  harness h{cfg, reinterpret_cast<const void*>(&entry<K>), {}};
  prepare<K>(cfg, h.dev);
  if (testing::Test::HasFatalFailure() || testing::Test::IsSkipped()) return;
  h.inf_begin = begin;
  h.inf_end = end;
  for (const layout& lo : {layout{0, 0, 0, 0}, layout{5, 3, 1, 1}}) {
    h.run_case(sh, lo, 1);
    if (testing::Test::HasFatalFailure()) return;
  }
}

// A row whose elements are all -inf gives no defined answer, but every family must finish.
template <typename K>
void check_all_neg_inf_rows_finish(ks::softmax_config cfg, long long rows, long long cols) {
  ks::device_limits dev;
  prepare<K>(cfg, dev);
  if (testing::Test::HasFatalFailure() || testing::Test::IsSkipped()) return;
  ks::launch_plan plan;
  ASSERT_EQ(ks::plan_launch(cfg, rows, cols, dev, plan), "");
  std::vector<float> host(rows * cols, -INFINITY);
  float *in = nullptr, *out = nullptr;
  void* ws = nullptr;
  CUOP_CUDA_ASSERT(cudaMalloc(&in, host.size() * sizeof(float)));
  CUOP_CUDA_ASSERT(cudaMalloc(&out, host.size() * sizeof(float)));
  if (plan.workspace_bytes > 0) {
    CUOP_CUDA_ASSERT(cudaMalloc(&ws, plan.workspace_bytes));
    CUOP_CUDA_ASSERT(cudaMemset(ws, 0, plan.workspace_bytes));
  }
  CUOP_CUDA_ASSERT(cudaMemcpy(in, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
  const ks::softmax_args args{in, out, rows, cols, cols, cols, ws};
  CUOP_CUDA_ASSERT(ks::launch(reinterpret_cast<const void*>(&entry<K>), plan, args, nullptr));
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cudaFree(in);
  cudaFree(out);
  cudaFree(ws);
}

ks::softmax_config warp_cfg(cuop::dtype t, int vec, int tpr, int rpb, int chunks) {
  ks::softmax_config c;
  c.fam = ks::family::warp_row;
  c.type = t;
  c.vec = vec;
  c.threads_per_row = tpr;
  c.rows_per_block = rpb;
  c.chunks = chunks;
  return c;
}

ks::softmax_config tile_cfg(cuop::dtype t, int vec, int tpr, int rpb, int chunks) {
  ks::softmax_config c = warp_cfg(t, vec, tpr, rpb, chunks);
  c.fam = ks::family::row_tile;
  return c;
}

ks::softmax_config block_cfg(ks::family f, cuop::dtype t, int vec, int threads, int chunks) {
  ks::softmax_config c;
  c.fam = f;
  c.type = t;
  c.vec = vec;
  c.block_threads = threads;
  c.chunks = chunks;
  return c;
}

ks::softmax_config cluster_cfg(cuop::dtype t, int vec, int threads, int chunks, int cluster) {
  ks::softmax_config c = block_cfg(ks::family::cluster_row, t, vec, threads, chunks);
  c.cluster = cluster;
  return c;
}

using cuop::dtype;
constexpr ks::family split = ks::family::split_row;

}  // namespace

#define CUOP_WARP_TEST(NAME, T, DT, V, TPR, RPB, C)                              \
  TEST(sm80_softmax_warp_row, NAME) {                                            \
    CUOP_REQUIRE_GPU();                                                          \
    check_family<ks::warp_row<T, V, TPR, RPB, C>>(warp_cfg(DT, V, TPR, RPB, C)); \
  }
#define CUOP_BLOCK_TEST(FAM, NAME, T, DT, V, B, C)                              \
  TEST(sm80_softmax_##FAM, NAME) {                                              \
    CUOP_REQUIRE_GPU();                                                         \
    check_family<ks::FAM<T, V, B, C>>(block_cfg(ks::family::FAM, DT, V, B, C)); \
  }

CUOP_WARP_TEST(f32_v4_t32_r4_c8, float, dtype::f32, 4, 32, 4, 8)
CUOP_WARP_TEST(f16_v8_t32_r4_c1, __half, dtype::f16, 8, 32, 4, 1)
CUOP_WARP_TEST(bf16_v8_t16_r8_c1, __nv_bfloat16, dtype::bf16, 8, 16, 8, 1)
CUOP_WARP_TEST(bf16_v2_t4_r32_c1, __nv_bfloat16, dtype::bf16, 2, 4, 32, 1)
CUOP_WARP_TEST(f32_v1_t1_r128_c4, float, dtype::f32, 1, 1, 128, 4)
CUOP_WARP_TEST(f16_v8_t32_r1_c17, __half, dtype::f16, 8, 32, 1, 17)

// row_tile: rows of odd lengths, many of them, so that tiles start at every offset from the
// vector grid (their rows stay short: a case with many rows skips rows over 128 columns).
const std::vector<shape> odd_rows = {{4099, 77}, {1025, 97}, {3001, 5}, {999, 33}, {515, 127}};
#define CUOP_TILE_TEST(NAME, T, DT, V, TPR, RPB, C)                                        \
  TEST(sm80_softmax_row_tile, NAME) {                                                      \
    CUOP_REQUIRE_GPU();                                                                    \
    check_family<ks::row_tile<T, V, TPR, RPB, C>>(tile_cfg(DT, V, TPR, RPB, C), odd_rows); \
  }
CUOP_TILE_TEST(f16_v8_t8_r32_c16, __half, dtype::f16, 8, 8, 32, 16)
CUOP_TILE_TEST(bf16_v8_t1_r128_c8, __nv_bfloat16, dtype::bf16, 8, 1, 128, 8)
CUOP_TILE_TEST(bf16_v4_t32_r8_c32, __nv_bfloat16, dtype::bf16, 4, 32, 8, 32)
CUOP_TILE_TEST(f32_v4_t4_r64_c32, float, dtype::f32, 4, 4, 64, 32)
CUOP_TILE_TEST(f32_v1_t2_r64_c4, float, dtype::f32, 1, 2, 64, 4)
CUOP_TILE_TEST(f16_v2_t16_r4_c8, __half, dtype::f16, 2, 16, 4, 8)

CUOP_BLOCK_TEST(block_row, f32_v4_b128_c2, float, dtype::f32, 4, 128, 2)
CUOP_BLOCK_TEST(block_row, f16_v8_b256_c2, __half, dtype::f16, 8, 256, 2)
CUOP_BLOCK_TEST(block_row, f32_v4_b256_c5, float, dtype::f32, 4, 256, 5)
CUOP_BLOCK_TEST(block_row, bf16_v8_b1024_c13, __nv_bfloat16, dtype::bf16, 8, 1024, 13)
CUOP_BLOCK_TEST(block_row, f16_v2_b64_c1, __half, dtype::f16, 2, 64, 1)

// persistent = 0: one block per row group, no prefetch (the same shapes and layouts; 65537 rows
// of short rows give grids far beyond the resident blocks).
ks::softmax_config one_block_per_group(ks::softmax_config c) {
  c.persistent = 0;
  return c;
}
TEST(sm80_softmax_warp_row, f16_v8_t32_r4_c1_p0) {
  CUOP_REQUIRE_GPU();
  check_family<ks::warp_row<__half, 8, 32, 4, 1, 0>>(one_block_per_group(warp_cfg(dtype::f16, 8, 32, 4, 1)));
}
TEST(sm80_softmax_warp_row, f32_v1_t1_r128_c4_p0) {
  CUOP_REQUIRE_GPU();
  check_family<ks::warp_row<float, 1, 1, 128, 4, 0>>(one_block_per_group(warp_cfg(dtype::f32, 1, 1, 128, 4)));
}
TEST(sm80_softmax_block_row, bf16_v8_b256_c4_p0) {
  CUOP_REQUIRE_GPU();
  check_family<ks::block_row<__nv_bfloat16, 8, 256, 4, 0>>(
      one_block_per_group(block_cfg(ks::family::block_row, dtype::bf16, 8, 256, 4)));
}
TEST(sm80_softmax_block_row, f32_v4_b256_c5_p0) {
  CUOP_REQUIRE_GPU();
  check_family<ks::block_row<float, 4, 256, 5, 0>>(
      one_block_per_group(block_cfg(ks::family::block_row, dtype::f32, 4, 256, 5)));
}

// smem_chunks: part of each thread's share in dynamic shared memory (cp.async for 4- to 16-byte
// vectors, element by element for 2-byte ones and at the edges). f16 v8 b1024 c7 s6 holds
// 106496 columns with 96 KiB of shared memory (within the 99 KiB of sm_86 / sm_89 / sm_120), so
// the 100003-column shapes run too.
ks::softmax_config with_smem(ks::softmax_config c, int smem_chunks) {
  c.persistent = 0;
  c.smem_chunks = smem_chunks;
  return c;
}
#define CUOP_SMEM_TEST(NAME, T, DT, V, B, C, S)                                                                 \
  TEST(sm80_softmax_block_row, NAME) {                                                                          \
    CUOP_REQUIRE_GPU();                                                                                         \
    check_family<ks::block_row<T, V, B, C, 0, S>>(with_smem(block_cfg(ks::family::block_row, DT, V, B, C), S)); \
  }
CUOP_SMEM_TEST(f32_v4_b256_c2_p0_s3, float, dtype::f32, 4, 256, 2, 3)
CUOP_SMEM_TEST(bf16_v2_b64_c1_p0_s4, __nv_bfloat16, dtype::bf16, 2, 64, 1, 4)
CUOP_SMEM_TEST(f16_v1_b32_c1_p0_s5, __half, dtype::f16, 1, 32, 1, 5)
CUOP_SMEM_TEST(f16_v8_b1024_c7_p0_s6, __half, dtype::f16, 8, 1024, 7, 6)
CUOP_SMEM_TEST(f32_v2_b128_c1_p0_s2, float, dtype::f32, 2, 128, 1, 2)
CUOP_SMEM_TEST(f32_v4_b256_c4_p0_s12, float, dtype::f32, 4, 256, 4, 12)  // 48 KiB + static

CUOP_BLOCK_TEST(split_row, f32_v4_b256_c4, float, dtype::f32, 4, 256, 4)
CUOP_BLOCK_TEST(split_row, f16_v8_b128_c1, __half, dtype::f16, 8, 128, 1)
CUOP_BLOCK_TEST(split_row, bf16_v8_b512_c2, __nv_bfloat16, dtype::bf16, 8, 512, 2)
CUOP_BLOCK_TEST(split_row, f32_v4_b1024_c8, float, dtype::f32, 4, 1024, 8)
CUOP_BLOCK_TEST(split_row, f32_v1_b32_c1, float, dtype::f32, 1, 32, 1)

// split_row with persistent 0 (one block per row segment; 65537 rows of short rows give grids
// far beyond the resident blocks, and the second repeat checks the counter and epoch reset and
// that the claims do not outlive their launch), without and with segments partly in shared
// memory.
#define CUOP_SPLIT_P0_TEST(NAME, T, DT, V, B, C, S)                                                             \
  TEST(sm80_softmax_split_row, NAME) {                                                                          \
    CUOP_REQUIRE_GPU();                                                                                         \
    check_family<ks::split_row<T, V, B, C, 0, S>>(with_smem(block_cfg(ks::family::split_row, DT, V, B, C), S)); \
  }
CUOP_SPLIT_P0_TEST(f32_v4_b256_c4_p0, float, dtype::f32, 4, 256, 4, 0)
CUOP_SPLIT_P0_TEST(f32_v4_b128_c2_p0_s3, float, dtype::f32, 4, 128, 2, 3)
CUOP_SPLIT_P0_TEST(bf16_v8_b256_c1_p0_s2, __nv_bfloat16, dtype::bf16, 8, 256, 1, 2)
CUOP_SPLIT_P0_TEST(f16_v1_b32_c1_p0_s2, __half, dtype::f16, 1, 32, 1, 2)
CUOP_SPLIT_P0_TEST(f32_v4_b512_c6_p0_s10, float, dtype::f32, 4, 512, 6, 10)
// Exactly 48 KiB of dynamic shared memory beside the static scratch: the launch must opt in
// (these two failed with cudaErrorInvalidValue in the H200 sweep before static bytes counted).
CUOP_SPLIT_P0_TEST(f32_v4_b512_c4_p0_s6, float, dtype::f32, 4, 512, 4, 6)
CUOP_SPLIT_P0_TEST(f32_v4_b768_c4_p0_s4, float, dtype::f32, 4, 768, 4, 4)

// The fallback forced: every block gives up on a missing peer at once and computes its segment
// from global memory, so rescued segments meet every layout, the offset rows (in_off) among them,
// whose segments start before their nominal first column.
#define CUOP_SPLIT_RESCUE_TEST(NAME, T, DT, V, B, C, S)                                                            \
  TEST(sm80_softmax_split_row, NAME) {                                                                             \
    CUOP_REQUIRE_GPU();                                                                                            \
    check_family<ks::split_row<T, V, B, C, 0, S, 0>>(with_smem(block_cfg(ks::family::split_row, DT, V, B, C), S)); \
  }
CUOP_SPLIT_RESCUE_TEST(f32_v4_b256_c2_p0_rescued, float, dtype::f32, 4, 256, 2, 0)
CUOP_SPLIT_RESCUE_TEST(bf16_v8_b128_c1_p0_s2_rescued, __nv_bfloat16, dtype::bf16, 8, 128, 1, 2)

#define CUOP_CLUSTER_TEST(NAME, T, DT, V, B, C, K)                             \
  TEST(sm90_softmax_cluster_row, NAME) {                                       \
    CUOP_REQUIRE_GPU();                                                        \
    check_family<ks::cluster_row<T, V, B, C, K>>(cluster_cfg(DT, V, B, C, K)); \
  }

// Prefetching and not, every cluster size (16 is non-portable), 4- to 16-byte and scalar
// vectors; capacities from 256 columns (most shapes rejected, {7, 3} leaves blocks with empty
// segments) to 131072 (the 100003-column rows).
CUOP_CLUSTER_TEST(f32_v4_b256_c4_k4, float, dtype::f32, 4, 256, 4, 4)
CUOP_CLUSTER_TEST(f16_v8_b128_c1_k2, __half, dtype::f16, 8, 128, 1, 2)
CUOP_CLUSTER_TEST(bf16_v8_b512_c2_k8, __nv_bfloat16, dtype::bf16, 8, 512, 2, 8)
CUOP_CLUSTER_TEST(bf16_v8_b256_c8_k4, __nv_bfloat16, dtype::bf16, 8, 256, 8, 4)
CUOP_CLUSTER_TEST(f32_v4_b256_c8_k16, float, dtype::f32, 4, 256, 8, 16)
CUOP_CLUSTER_TEST(f32_v4_b1024_c8_k2, float, dtype::f32, 4, 1024, 8, 2)
CUOP_CLUSTER_TEST(f16_v2_b64_c3_k8, __half, dtype::f16, 2, 64, 3, 8)
CUOP_CLUSTER_TEST(f32_v1_b32_c1_k8, float, dtype::f32, 1, 32, 1, 8)

// f32 tiles keep exps relative to each thread's own max: a thread whose elements are all -inf
// (the first chunk of every thread is -inf, the later ones past the row for some threads), or a
// whole split or cluster block, must write zeros, not NaN.
TEST(sm80_softmax_warp_row, neg_inf_segment) {
  CUOP_REQUIRE_GPU();
  check_neg_inf_segment<ks::warp_row<float, 4, 32, 4, 8>>(warp_cfg(dtype::f32, 4, 32, 4, 8), {129, 200}, 0, 128);
}
TEST(sm80_softmax_row_tile, neg_inf_segment) {
  CUOP_REQUIRE_GPU();
  // Lane t of a row's 32 holds columns t, t + 32 and t + 64 (of 77): with columns 0..63 -inf,
  // lanes 13 to 31 hold only -inf.
  check_neg_inf_segment<ks::row_tile<float, 4, 32, 8, 4>>(tile_cfg(dtype::f32, 4, 32, 8, 4), {333, 77}, 0, 64);
  check_all_neg_inf_rows_finish<ks::row_tile<float, 4, 32, 8, 4>>(tile_cfg(dtype::f32, 4, 32, 8, 4), 9, 77);
}
TEST(sm80_softmax_block_row, neg_inf_segment) {
  CUOP_REQUIRE_GPU();
  check_neg_inf_segment<ks::block_row<float, 4, 128, 2>>(block_cfg(ks::family::block_row, dtype::f32, 4, 128, 2),
                                                         {129, 700}, 0, 512);
}
// The register part all finite, the shared-memory part -inf (and the reverse).
TEST(sm80_softmax_block_row, neg_inf_segment_smem) {
  CUOP_REQUIRE_GPU();
  const auto c = with_smem(block_cfg(ks::family::block_row, dtype::f32, 4, 128, 2), 3);
  check_neg_inf_segment<ks::block_row<float, 4, 128, 2, 0, 3>>(c, {5, 2560}, 1024, 2560);
  check_neg_inf_segment<ks::block_row<float, 4, 128, 2, 0, 3>>(c, {5, 2560}, 0, 1024);
}
TEST(sm80_softmax_split_row, neg_inf_segment_p0_smem) {
  CUOP_REQUIRE_GPU();
  const auto c = with_smem(block_cfg(split, dtype::f32, 4, 128, 2), 3);  // segments of 2560
  check_neg_inf_segment<ks::split_row<float, 4, 128, 2, 0, 3>>(c, {3, 7680}, 2560, 5120);
  check_neg_inf_segment<ks::split_row<float, 4, 128, 2, 0, 3>>(c, {3, 7680}, 3584, 5120);
}
TEST(sm80_softmax_split_row, neg_inf_segment) {
  CUOP_REQUIRE_GPU();
  check_neg_inf_segment<ks::split_row<float, 4, 256, 4>>(block_cfg(split, dtype::f32, 4, 256, 4), {33, 20000}, 4096,
                                                         12000);
}
TEST(sm90_softmax_cluster_row, neg_inf_segment) {
  CUOP_REQUIRE_GPU();
  check_neg_inf_segment<ks::cluster_row<float, 4, 256, 4, 4>>(cluster_cfg(dtype::f32, 4, 256, 4, 4), {33, 16000}, 4000,
                                                              9000);
}
TEST(sm90_softmax_cluster_row, neg_inf_segment_bf16) {
  CUOP_REQUIRE_GPU();
  check_neg_inf_segment<ks::cluster_row<__nv_bfloat16, 8, 256, 8, 4>>(cluster_cfg(dtype::bf16, 8, 256, 8, 4),
                                                                      {33, 60000}, 100, 40000);
}

TEST(sm80_softmax_split_row, all_neg_inf_rows_finish) {
  CUOP_REQUIRE_GPU();
  check_all_neg_inf_rows_finish<ks::split_row<float, 4, 256, 1>>(block_cfg(split, dtype::f32, 4, 256, 1), 64, 5000);
}

TEST(sm90_softmax_cluster_row, all_neg_inf_rows_finish) {
  CUOP_REQUIRE_GPU();
  check_all_neg_inf_rows_finish<ks::cluster_row<float, 4, 256, 1, 8>>(cluster_cfg(dtype::f32, 4, 256, 1, 8), 64, 5000);
}

// More segments in a row than blocks can be resident: plan_launch refuses such a plan (every row
// would meet only through the fallback), so it is built here by hand. The blocks that started
// wait for segments whose blocks cannot start until some block finishes; each must give up,
// claim the missing segments and compute their statistics (split_row.cuh, the fallback), and the
// late blocks must then find their slots taken and only write. In place and not; launched twice
// on one workspace (the claims must not outlive their launch).
template <typename K>
void check_fallback(ks::softmax_config cfg, long long rows, bool in_place) {
  ks::device_limits dev;
  prepare<K>(cfg, dev);
  if (testing::Test::HasFatalFailure() || testing::Test::IsSkipped()) return;
  const long long held = ks::cols_per_owner(cfg);
  const long long splits = dev.max_resident_blocks + 37;
  const long long cols = splits * held - held / 3;  // the last segment two-thirds full
  ks::launch_plan plan;
  ASSERT_NE(ks::plan_launch(cfg, rows, cols, dev, plan), "");
  plan = {};
  plan.grid_x = static_cast<unsigned>(rows * splits);
  plan.block_x = static_cast<unsigned>(K::block_threads);
  plan.smem_bytes = static_cast<std::size_t>(ks::dynamic_smem_bytes(cfg));
  plan.smem_opt_in = ks::needs_smem_opt_in(static_cast<long long>(plan.smem_bytes), dev.static_smem);
  plan.workspace_bytes = static_cast<std::size_t>(
      ks::split_row_header_bytes + rows * splits * (ks::split_row_slot_bytes + ks::split_row_claim_bytes));
  SCOPED_TRACE(ks::instance_name(cfg) + " rows " + std::to_string(rows) + " cols " + std::to_string(cols) +
               " segments " + std::to_string(splits) + " resident " + std::to_string(dev.max_resident_blocks) +
               (in_place ? " in place" : ""));

  const cuop::dtype t = cfg.type;
  const long long n = rows * cols;
  unsigned char *in = nullptr, *out = nullptr;
  float* expect = nullptr;
  void* ws = nullptr;
  CUOP_CUDA_ASSERT(cudaMalloc(&in, n * cuop::size_of(t)));
  CUOP_CUDA_ASSERT(cudaMalloc(&out, n * cuop::size_of(t)));
  CUOP_CUDA_ASSERT(cudaMalloc(&expect, n * sizeof(float)));
  CUOP_CUDA_ASSERT(cudaMalloc(&ws, plan.workspace_bytes));
  CUOP_CUDA_ASSERT(cudaMemset(ws, 0, plan.workspace_bytes));
  for (int rep = 0; rep < 2; ++rep) {
    CUOP_CUDA_ASSERT(ref::fill_random(t, in, n, 99 + rep, -8.f, 8.f, nullptr));
    CUOP_CUDA_ASSERT(ref::softmax_reference(t, in, rows, cols, cols, expect, nullptr));
    void* dst = in_place ? static_cast<void*>(in) : static_cast<void*>(out);
    if (!in_place) CUOP_CUDA_ASSERT(ref::fill_nan(t, out, n, nullptr));
    const ks::softmax_args args{in, dst, rows, cols, cols, cols, ws};
    CUOP_CUDA_ASSERT(ks::launch(reinterpret_cast<const void*>(&entry<K>), plan, args, nullptr));
    CUOP_CUDA_ASSERT(cudaDeviceSynchronize());
    ref::compare_result r;
    CUOP_CUDA_ASSERT(ref::compare_softmax(t, dst, rows, cols, cols, expect, ref::softmax_tolerance(t, cols),
                                          ref::softmax_rtol(t), &r, nullptr));
    EXPECT_EQ(r.bad, 0) << "launch " << rep << ": first bad at row " << r.first_bad_row << " col " << r.first_bad_col
                        << ", " << r.nan_count << " NaN, max abs err " << r.max_abs_err;
  }
  cudaFree(in);
  cudaFree(out);
  cudaFree(expect);
  cudaFree(ws);
}

TEST(sm80_softmax_split_row, fallback_f32_v4_b1024_c1_p0) {
  CUOP_REQUIRE_GPU();
  const auto c = with_smem(block_cfg(split, dtype::f32, 4, 1024, 1), 0);
  check_fallback<ks::split_row<float, 4, 1024, 1, 0, 0>>(c, 3, false);
  check_fallback<ks::split_row<float, 4, 1024, 1, 0, 0>>(c, 2, true);
}
TEST(sm80_softmax_split_row, fallback_bf16_v8_b256_c1_p0_s2) {
  CUOP_REQUIRE_GPU();
  const auto c = with_smem(block_cfg(split, dtype::bf16, 8, 256, 1), 2);
  check_fallback<ks::split_row<__nv_bfloat16, 8, 256, 1, 0, 2>>(c, 2, false);
  check_fallback<ks::split_row<__nv_bfloat16, 8, 256, 1, 0, 2>>(c, 2, true);
}

// Bytes an earlier launch of another layout left among this launch's claims: floats whose bits
// equal this launch's tag (1, on a zeroed header) in every word but the claim's own (where only
// tags can have been) must not read as taken, or no block would publish its slot and the launch
// would never finish.
TEST(sm80_softmax_split_row, stale_bytes_under_the_claims_do_not_match) {
  CUOP_REQUIRE_GPU();
  using K = ks::split_row<float, 4, 256, 4, 0, 0>;
  const auto c = with_smem(block_cfg(split, dtype::f32, 4, 256, 4), 0);
  ks::device_limits dev;
  prepare<K>(c, dev);
  if (testing::Test::HasFatalFailure() || testing::Test::IsSkipped()) return;
  const long long rows = 5, cols = 20000;
  ks::launch_plan plan;
  ASSERT_EQ(ks::plan_launch(c, rows, cols, dev, plan), "");
  const long long slots = static_cast<long long>(plan.grid_x);
  const long long claims_at = ks::split_row_header_bytes + slots * ks::split_row_slot_bytes;
  ASSERT_EQ(static_cast<long long>(plan.workspace_bytes), claims_at + slots * ks::split_row_claim_bytes);
  std::vector<unsigned char> host(plan.workspace_bytes, 0);
  for (long long i = 0; i < slots; ++i) {
    const unsigned stale[4] = {1, 0, 1, 1};  // 1: the tag to come; word 1 is the claim
    std::memcpy(&host[claims_at + i * ks::split_row_claim_bytes], stale, sizeof stale);
  }
  float *in = nullptr, *out = nullptr, *expect = nullptr;
  void* ws = nullptr;
  CUOP_CUDA_ASSERT(cudaMalloc(&in, rows * cols * sizeof(float)));
  CUOP_CUDA_ASSERT(cudaMalloc(&out, rows * cols * sizeof(float)));
  CUOP_CUDA_ASSERT(cudaMalloc(&expect, rows * cols * sizeof(float)));
  CUOP_CUDA_ASSERT(cudaMalloc(&ws, plan.workspace_bytes));
  CUOP_CUDA_ASSERT(cudaMemcpy(ws, host.data(), host.size(), cudaMemcpyHostToDevice));
  CUOP_CUDA_ASSERT(ref::fill_random(dtype::f32, in, rows * cols, 7, -8.f, 8.f, nullptr));
  CUOP_CUDA_ASSERT(ref::softmax_reference(dtype::f32, in, rows, cols, cols, expect, nullptr));
  CUOP_CUDA_ASSERT(ref::fill_nan(dtype::f32, out, rows * cols, nullptr));
  const ks::softmax_args args{in, out, rows, cols, cols, cols, ws};
  CUOP_CUDA_ASSERT(ks::launch(reinterpret_cast<const void*>(&entry<K>), plan, args, nullptr));
  CUOP_CUDA_ASSERT(cudaDeviceSynchronize());
  ref::compare_result r;
  CUOP_CUDA_ASSERT(ref::compare_softmax(dtype::f32, out, rows, cols, cols, expect,
                                        ref::softmax_tolerance(dtype::f32, cols), ref::softmax_rtol(dtype::f32), &r,
                                        nullptr));
  EXPECT_EQ(r.bad, 0) << "first bad at row " << r.first_bad_row << " col " << r.first_bad_col;
  cudaFree(in);
  cudaFree(out);
  cudaFree(expect);
  cudaFree(ws);
}
