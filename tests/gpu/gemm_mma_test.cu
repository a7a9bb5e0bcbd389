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

#include <string>
#include <vector>

#include "cuop/kernels/gemm/family.hpp"
#include "cuop/kernels/gemm/launch.hpp"
#include "cuop/kernels/gemm/mma.cuh"
#include "gemm_case.hpp"
#include "gpu_test_support.hpp"

namespace {

namespace kg = cuop::kernels::gemm;
using cuop::dtype;
using cuop::test::gemm_case::harness;
using cuop::test::gemm_case::layout;
using cuop::test::gemm_case::shape;

template <typename K>
__global__ void __launch_bounds__(K::block_threads) entry(kg::gemm_args a) {
  K::run(a);
}

const std::vector<shape> shapes = {{1, 1, 1},      {7, 7, 7},      {129, 129, 129}, {4097, 7, 1},
                                   {1, 4097, 129}, {7, 129, 4097}, {129, 1, 4097},  {257, 263, 1000}};
const std::vector<layout> layouts = {
    {-1, -1, -1, 0, 0, 0, 1.f, 0.f},   // aligned: 16-byte paths wherever the shape allows
    {0, 0, 0, 0, 0, 0, 1.5f, 0.5f},    // packed: unaligned leading dimensions for odd shapes
    {3, 5, 3, 1, 3, 1, 1.f, 0.5f},     // odd padding and misaligned pointers everywhere
    {-1, -1, -1, 0, 1, 0, -1.f, 0.f},  // aligned A, misaligned B pointer
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
  h.run_cases(shapes, layouts);
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
