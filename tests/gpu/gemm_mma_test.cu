// The mma GEMM family, instantiated directly with nvcc, planned with plan_launch and checked
// against the reference on awkward shapes: M, N and K of 1, 7, 129 and 4097, K not a multiple of
// the tile, leading dimensions and pointers that defeat 16-byte loads, both B layouts, beta 0 and
// 0.5, split-K 1 and 3. Outputs are poisoned with NaN first; padding between rows must still hold
// it afterwards. The split-K workspace is zeroed once per configuration and reused by every case,
// and every case is launched twice: the workspace must reset itself. pack: 1 configurations copy A
// and B to aligned, zero-padded rows of the workspace first, never over its split-K counters.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "cuop/kernels/gemm/family.hpp"
#include "cuop/kernels/gemm/launch.hpp"
#include "cuop/kernels/gemm/mma.cuh"
#include "cuop/reference/gemm_reference.hpp"
#include "gpu_test_support.hpp"

namespace {

namespace kg = cuop::kernels::gemm;
namespace ref = cuop::reference;
using cuop::dtype;

template <typename K>
__global__ void __launch_bounds__(K::block_threads) entry(kg::gemm_args a) {
  K::run(a);
}

struct shape {
  int m, n, k;
};

// How the operands lie in memory: lda = k + a_pad etc. (pad < 0: rounded up to a multiple of 8
// elements instead), pointers offset by *_off elements from the allocation.
struct layout {
  int a_pad, b_pad, d_pad;
  int a_off, b_off, d_off;
  float alpha, beta;
};

const std::vector<shape> shapes = {{1, 1, 1},      {7, 7, 7},      {129, 129, 129}, {4097, 7, 1},
                                   {1, 4097, 129}, {7, 129, 4097}, {129, 1, 4097},  {257, 263, 1000}};
const std::vector<layout> layouts = {
    {-1, -1, -1, 0, 0, 0, 1.f, 0.f},   // aligned: 16-byte paths wherever the shape allows
    {0, 0, 0, 0, 0, 0, 1.5f, 0.5f},    // packed: unaligned leading dimensions for odd shapes
    {3, 5, 3, 1, 3, 1, 1.f, 0.5f},     // odd padding and misaligned pointers everywhere
    {-1, -1, -1, 0, 1, 0, -1.f, 0.f},  // aligned A, misaligned B pointer
};

long long leading(int dim, int pad) { return pad < 0 ? (dim + 7LL) / 8 * 8 : dim + static_cast<long long>(pad); }

bool is_nan_bits(dtype t, const unsigned char* p) {
  if (t == dtype::f32) {
    std::uint32_t b;
    std::memcpy(&b, p, 4);
    return (b & 0x7f800000u) == 0x7f800000u && (b & 0x7fffffu) != 0;
  }
  std::uint16_t b;
  std::memcpy(&b, p, 2);
  if (t == dtype::f16) return (b & 0x7c00u) == 0x7c00u && (b & 0x3ffu) != 0;
  return (b & 0x7f80u) == 0x7f80u && (b & 0x7fu) != 0;
}

struct harness {
  kg::gemm_config cfg;
  const void* kernel;
  kg::device_limits dev;
  void* workspace = nullptr;
  std::size_t workspace_size = 0;

  ~harness() { cudaFree(workspace); }

  void run_case(const shape& sh, const layout& lo) {
    const bool b_col = cfg.b == kg::b_layout::col;
    const long long lda = leading(sh.k, lo.a_pad);
    const long long ldb = leading(b_col ? sh.k : sh.n, lo.b_pad);
    const long long ldd = leading(sh.n, lo.d_pad);
    SCOPED_TRACE(kg::instance_name(cfg) + " m " + std::to_string(sh.m) + " n " + std::to_string(sh.n) + " k " +
                 std::to_string(sh.k) + " lda " + std::to_string(lda) + " ldb " + std::to_string(ldb) + " ldd " +
                 std::to_string(ldd) + " offsets " + std::to_string(lo.a_off) + "/" + std::to_string(lo.b_off) + "/" +
                 std::to_string(lo.d_off) + " beta " + std::to_string(lo.beta));
    kg::launch_plan plan;
    const std::string why = kg::plan_launch(cfg, sh.m, sh.n, sh.k, dev, plan);
    ASSERT_EQ(why, "");
    ASSERT_EQ(plan.grid_z, static_cast<unsigned>(cfg.split_k));
    ASSERT_EQ(plan.workspace_bytes > 0, cfg.split_k > 1 || cfg.pack == 1);
    ASSERT_EQ(plan.pack.on, cfg.pack == 1);

    const std::size_t is = cuop::size_of(cfg.in), os = cuop::size_of(cfg.out);
    const long long a_count = (sh.m - 1LL) * lda + sh.k + lo.a_off;
    const long long b_count = (b_col ? (sh.n - 1LL) * ldb + sh.k : (sh.k - 1LL) * ldb + sh.n) + lo.b_off;
    const long long d_count = (sh.m - 1LL) * ldd + sh.n + lo.d_off;
    unsigned char *a = nullptr, *b = nullptr, *c = nullptr, *d = nullptr;
    float* expect = nullptr;
    CUOP_CUDA_ASSERT(cudaMalloc(&a, a_count * is));
    CUOP_CUDA_ASSERT(cudaMalloc(&b, b_count * is));
    CUOP_CUDA_ASSERT(cudaMalloc(&c, d_count * os));
    CUOP_CUDA_ASSERT(cudaMalloc(&d, d_count * os));
    CUOP_CUDA_ASSERT(cudaMalloc(&expect, static_cast<std::size_t>(sh.m) * sh.n * sizeof(float)));
    if (plan.workspace_bytes > workspace_size) {
      cudaFree(workspace);
      workspace = nullptr;
      CUOP_CUDA_ASSERT(cudaMalloc(&workspace, plan.workspace_bytes));
      CUOP_CUDA_ASSERT(cudaMemset(workspace, 0, plan.workspace_bytes));  // once: it self-resets
      workspace_size = plan.workspace_bytes;
    }
    const unsigned long long seed = 1000003ULL * sh.m + 1009ULL * sh.n + sh.k;
    CUOP_CUDA_ASSERT(ref::fill_random(cfg.in, a, a_count, seed, -1.f, 1.f, nullptr));
    CUOP_CUDA_ASSERT(ref::fill_random(cfg.in, b, b_count, seed + 1, -1.f, 1.f, nullptr));
    CUOP_CUDA_ASSERT(ref::fill_random(cfg.out, c, d_count, seed + 2, -1.f, 1.f, nullptr));
    const void* a_data = a + lo.a_off * is;
    const void* b_data = b + lo.b_off * is;
    const void* c_data = lo.beta != 0.f ? c + lo.d_off * os : nullptr;
    void* d_data = d + lo.d_off * os;
    CUOP_CUDA_ASSERT(ref::gemm_reference(cfg.in, cfg.out, b_col, a_data, lda, b_data, ldb, c_data, ldd, sh.m, sh.n,
                                         sh.k, lo.alpha, lo.beta, expect, nullptr));

    const kg::gemm_args args{a_data, b_data, c_data, d_data, sh.m,     sh.n,    sh.k,
                             lda,    ldb,    ldd,    ldd,    lo.alpha, lo.beta, workspace};
    // gemm_atol bounds the error of the dot product; alpha scales it.
    const double atol = ref::gemm_atol(cfg.in, cfg.out, sh.k) * (std::fabs(lo.alpha) > 1.f ? std::fabs(lo.alpha) : 1.f);
    for (int rep = 0; rep < 2; ++rep) {
      CUOP_CUDA_ASSERT(ref::fill_nan(cfg.out, d, d_count, nullptr));
      CUOP_CUDA_ASSERT(kg::launch(kernel, plan, args, nullptr));
      CUOP_CUDA_ASSERT(cudaDeviceSynchronize());
      ref::compare_result r;
      CUOP_CUDA_ASSERT(
          ref::compare_gemm(cfg.out, d_data, ldd, sh.m, sh.n, expect, atol, ref::gemm_rtol(cfg.out), &r, nullptr));
      EXPECT_EQ(r.bad, 0) << "launch " << rep << ": first bad at row " << r.first_bad_row << " col " << r.first_bad_col
                          << ", " << r.nan_count << " NaN, max abs err " << r.max_abs_err << ", max rel err "
                          << r.max_rel_err;
      EXPECT_EQ(r.nan_count, 0);
    }

    // The split-K counters every configuration sharing a workspace relies on are back at zero
    // (packed copies never lie over them).
    if (workspace != nullptr && workspace_size >= kg::detail::mma_split_counter_bytes) {
      std::vector<unsigned> counters(kg::detail::mma_split_counter_bytes / 4);
      CUOP_CUDA_ASSERT(cudaMemcpy(counters.data(), workspace, counters.size() * 4, cudaMemcpyDeviceToHost));
      long long nonzero = 0;
      for (unsigned v : counters) nonzero += v != 0u;
      EXPECT_EQ(nonzero, 0) << "split-K counters left non-zero";
    }

    // Nothing outside the output rows was written: the padding still holds the poison.
    if (ldd > sh.n || lo.d_off > 0) {
      std::vector<unsigned char> host(d_count * os);
      CUOP_CUDA_ASSERT(cudaMemcpy(host.data(), d, host.size(), cudaMemcpyDeviceToHost));
      long long touched = 0;
      for (long long i = 0; i < lo.d_off; ++i) touched += !is_nan_bits(cfg.out, &host[i * os]);
      for (long long r = 0; r + 1 < sh.m; ++r)
        for (long long col = sh.n; col < ldd; ++col)
          touched += !is_nan_bits(cfg.out, &host[(lo.d_off + r * ldd + col) * os]);
      EXPECT_EQ(touched, 0) << "elements outside the output were written";
    }
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    cudaFree(d);
    cudaFree(expect);
  }
};

template <typename K>
void check_config(const kg::gemm_config& cfg) {
  ASSERT_EQ(kg::check_config(cfg), "");
  ASSERT_EQ(kg::threads_per_block(cfg), K::block_threads);
  int device = 0;
  cudaDeviceProp prop{};
  CUOP_CUDA_ASSERT(cudaGetDevice(&device));
  CUOP_CUDA_ASSERT(cudaGetDeviceProperties(&prop, device));
  if (prop.major < 8) GTEST_SKIP() << "needs sm_80 or newer, device is sm_" << prop.major << prop.minor;
  harness h{cfg, reinterpret_cast<const void*>(&entry<K>), {}};
  CUOP_CUDA_ASSERT(kg::query_limits(device, h.dev));
  kg::launch_plan plan;
  ASSERT_EQ(kg::plan_launch(cfg, 1, 1, 1, h.dev, plan), "");
  ASSERT_EQ(plan.smem_bytes, static_cast<std::size_t>(K::smem_bytes));
  for (const shape& sh : shapes)
    for (const layout& lo : layouts) {
      h.run_case(sh, lo);
      if (testing::Test::HasFatalFailure()) return;
    }
}

kg::gemm_config mma_cfg(dtype in, dtype out, kg::b_layout b, int bm, int bn, int bk, int wm, int wn, int stages,
                        int group_m, int split_k, int pack = 0) {
  kg::gemm_config c;
  c.fam = kg::family::mma;
  c.in = in;
  c.out = out;
  c.b = b;
  c.block_m = bm;
  c.block_n = bn;
  c.block_k = bk;
  c.warp_m = wm;
  c.warp_n = wn;
  c.stages = stages;
  c.group_m = group_m;
  c.split_k = split_k;
  c.pack = pack;
  return c;
}

using bf16 = __nv_bfloat16;
constexpr kg::b_layout col = kg::b_layout::col;
constexpr kg::b_layout row = kg::b_layout::row;

}  // namespace

#define CUOP_MMA_TEST(NAME, TI, TO, DI, DO, BL, BM, BN, BK, WM, WN, S, G, SK) \
  TEST(sm80_gemm_mma, NAME) {                                                 \
    CUOP_REQUIRE_GPU();                                                       \
    check_config<kg::mma<TI, TO, BL == col, BM, BN, BK, WM, WN, S, G, SK>>(   \
        mma_cfg(DI, DO, BL, BM, BN, BK, WM, WN, S, G, SK));                   \
  }

// The common large tile; column-major B.
CUOP_MMA_TEST(bf16_f32_col_m128_n128_k32_wm64_wn64_s4_g8_sk1, bf16, float, dtype::bf16, dtype::f32, col, 128, 128, 32,
              64, 64, 4, 8, 1)
// Row-major B (ldmatrix.trans), 16-bit output.
CUOP_MMA_TEST(f16_f16_row_m128_n128_k32_wm64_wn64_s3_g8_sk1, __half, __half, dtype::f16, dtype::f16, row, 128, 128, 32,
              64, 64, 3, 8, 1)
// Split-K, block_k 64, bf16 output.
CUOP_MMA_TEST(bf16_bf16_col_m64_n64_k64_wm32_wn32_s3_g4_sk3, bf16, bf16, dtype::bf16, dtype::bf16, col, 64, 64, 64, 32,
              32, 3, 4, 3)
// Split-K with one k step per tile (fragment buffers alternate by tile), row-major B.
CUOP_MMA_TEST(f16_f32_row_m64_n128_k16_wm32_wn64_s4_g1_sk3, __half, float, dtype::f16, dtype::f32, row, 64, 128, 16, 32,
              64, 4, 1, 3)
// pack: 1 (A and B copied to aligned, zero-padded rows of the workspace first), both layouts,
// with and without split-K: the packed copies follow the split-K regions of the workspace.
#define CUOP_MMA_PACK_TEST(NAME, TI, TO, DI, DO, BL, BM, BN, BK, WM, WN, S, G, SK) \
  TEST(sm80_gemm_mma, NAME) {                                                      \
    CUOP_REQUIRE_GPU();                                                            \
    check_config<kg::mma<TI, TO, BL == col, BM, BN, BK, WM, WN, S, G, SK>>(        \
        mma_cfg(DI, DO, BL, BM, BN, BK, WM, WN, S, G, SK, 1));                     \
  }
CUOP_MMA_PACK_TEST(bf16_bf16_col_m64_n32_k64_wm32_wn16_s8_g1_sk2_pk1, bf16, bf16, dtype::bf16, dtype::bf16, col, 64, 32,
                   64, 32, 16, 8, 1, 2)
CUOP_MMA_PACK_TEST(f16_f32_row_m128_n128_k32_wm64_wn64_s4_g8_sk1_pk1, __half, float, dtype::f16, dtype::f32, row, 128,
                   128, 32, 64, 64, 4, 8, 1)
CUOP_MMA_PACK_TEST(f16_f16_col_m128_n128_k32_wm64_wn64_s4_g8_sk1_pk1, __half, __half, dtype::f16, dtype::f16, col, 128,
                   128, 32, 64, 64, 4, 8, 1)
// Tiles that are not powers of two (6 warps; B rows of 6 chunks), two stages.
CUOP_MMA_TEST(bf16_bf16_row_m96_n48_k32_wm48_wn16_s2_g2_sk1, bf16, bf16, dtype::bf16, dtype::bf16, row, 96, 48, 32, 48,
              16, 2, 2, 1)
