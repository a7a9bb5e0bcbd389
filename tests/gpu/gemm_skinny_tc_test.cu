// The skinny_tc GEMM family (decode GEMM on tensor cores), instantiated directly with nvcc,
// planned with plan_launch and checked against the reference (gemm_case.hpp): M of 1, 7, 9, 33, 64
// and 130 (several row tiles), N of 1, 17 and 4097 (columns past N), K of 1, 7, 40 (one chunk and
// a tail), 1000 and 4103 (whole steps and a tail), leading dimensions and pointers that defeat
// 16-byte loads, alpha and beta, split-K 1, 3 and 4, warps splitting K inside the block or not,
// f16 and bf16 inputs, f32 and 16-bit outputs.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "cuop/kernels/gemm/family.hpp"
#include "cuop/kernels/gemm/launch.hpp"
#include "cuop/kernels/gemm/skinny_tc.cuh"
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

std::vector<shape> shapes() {
  std::vector<shape> s;
  for (int m : {1, 7, 9, 33, 64, 130})
    for (int n : {1, 17, 4097})
      for (int k : {1, 7, 40, 1000, 4103}) s.push_back({m, n, k});
  return s;
}

const std::vector<layout> layouts = {
    {-1, -1, -1, 0, 0, 0, 1.f, 0.f},   // aligned: 16-byte loads wherever K allows
    {-1, -1, 3, 0, 0, 1, 1.5f, 0.5f},  // D (and C) rows padded, their pointer misaligned; alpha, beta
    {1, 3, -1, 1, 0, 0, -1.f, 0.f},    // A and B rows odd, A's pointer one element in: element loads
    {-1, -1, -1, 0, 3, 0, 1.f, 0.f},   // B's pointer three elements in, nothing else
};

template <typename K>
void check_config(const kg::gemm_config& cfg) {
  ASSERT_EQ(kg::check_config(cfg), "");
  ASSERT_EQ(kg::threads_per_block(cfg), K::block_threads);
  int device = 0;
  cudaDeviceProp prop{};
  CUOP_CUDA_ASSERT(cudaGetDevice(&device));
  CUOP_CUDA_ASSERT(cudaGetDeviceProperties(&prop, device));
  if (prop.major < 8)
    GTEST_SKIP() << "skinny_tc needs sm_80 (mma.sync bf16), device is sm_" << prop.major << prop.minor;
  harness h{cfg, reinterpret_cast<const void*>(&entry<K>), {}};
  CUOP_CUDA_ASSERT(kg::query_limits(device, h.dev));
  h.run_cases(shapes(), layouts);
}

kg::gemm_config tc_cfg(dtype in, dtype out, int block_n, int threads, int m_tile, int k_chunk, int split_k) {
  kg::gemm_config c;
  c.fam = kg::family::skinny_tc;
  c.in = in;
  c.out = out;
  c.b = kg::b_layout::col;
  c.block_n = block_n;
  c.threads = threads;
  c.m_tile = m_tile;
  c.k_chunk = k_chunk;
  c.split_k = split_k;
  return c;
}

using bf16 = __nv_bfloat16;

}  // namespace

#define CUOP_SKINNY_TC_TEST(NAME, TI, TO, DI, DO, BN, T, MT, KC, SK)                                 \
  TEST(sm80_gemm_skinny_tc, NAME) {                                                                  \
    CUOP_REQUIRE_GPU();                                                                              \
    check_config<kg::skinny_tc<TI, TO, true, BN, T, MT, KC, SK>>(tc_cfg(DI, DO, BN, T, MT, KC, SK)); \
  }

// Two column tiles per warp, 8 warps splitting K in the block, 4 chunks a step (prefetched).
CUOP_SKINNY_TC_TEST(bf16_bf16_n32_t256_m16_kc32_sk1, bf16, bf16, dtype::bf16, dtype::bf16, 32, 256, 16, 32, 1)
// 64 rows (8 row tiles), f32 output, no prefetch.
CUOP_SKINNY_TC_TEST(bf16_f32_n32_t128_m64_kc16_sk1, bf16, float, dtype::bf16, dtype::f32, 32, 128, 64, 16, 1)
// One column tile per warp and no warp splitting K (no shared memory), split-K 3 over blocks.
CUOP_SKINNY_TC_TEST(f16_f16_n64_t128_m8_kc64_sk3, __half, __half, dtype::f16, dtype::f16, 64, 128, 8, 64, 3)
// Two warps per column group, 32 rows, split-K 4, f32 output.
CUOP_SKINNY_TC_TEST(f16_f32_n128_t512_m32_kc8_sk4, __half, float, dtype::f16, dtype::f32, 128, 512, 32, 8, 4)
