// The wgmma GEMM family (sm_90a), instantiated directly with nvcc, planned with plan_launch and
// checked against the reference (gemm_case.hpp): M and N of 1, 7, 129 and 4097, K a multiple of
// 8 but not of the 64-deep k tile, more tiles than SMs (each block runs several, its copies
// running ahead across tiles), alpha and beta, D's rows padded and its pointer off 16 bytes, f32
// and 16-bit outputs, one and two consumer warpgroups, every tile width, clusters of two blocks
// that share B. Operands TMA cannot read
// (rows not 16-byte aligned) are refused by launch(), nothing started.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <string>
#include <vector>

#include "cuop/kernels/common/launch.hpp"
#include "cuop/kernels/gemm/family.hpp"
#include "cuop/kernels/gemm/launch.hpp"
#include "cuop/kernels/gemm/wgmma.cuh"
#include "gemm_case.hpp"
#include "gpu_test_support.hpp"

namespace {

namespace kg = cuop::kernels::gemm;
using cuop::dtype;
using cuop::test::gemm_case::harness;
using cuop::test::gemm_case::layout;
using cuop::test::gemm_case::shape;

// Its tensor maps after gemm_args; the body only where wgmma exists (sm_90a), as emit guards it.
template <typename K>
__global__ void __launch_bounds__(K::block_threads, 1) entry(kg::gemm_args a, const __grid_constant__ kg::gemm_tma in) {
#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
  extern __shared__ __align__(1024) unsigned char smem[];
  K::run(a, in, smem);
#else
  (void)a, (void)in;
#endif
}

const std::vector<shape> shapes = {{1, 1, 8},        {7, 7, 8},        {129, 129, 136}, {4097, 7, 8},
                                   {1, 4097, 136},   {7, 129, 4096},   {129, 1, 4096},  {257, 263, 1000},
                                   {4096, 2048, 72}, {1000, 3000, 520}};
const std::vector<layout> layouts = {
    {-1, -1, -1, 0, 0, 0, 1.f, 0.f},   // aligned everywhere
    {-1, -1, 3, 0, 0, 1, 1.5f, 0.5f},  // D (and C) rows padded, their pointer misaligned; alpha, beta
    {8, 16, -1, 8, 0, 0, -1.f, 0.f},   // A and B rows padded by whole 16-byte chunks, A 16 bytes in
};

template <typename K>
void check_config(const kg::gemm_config& cfg) {
  ASSERT_EQ(kg::check_config(cfg), "");
  ASSERT_EQ(kg::threads_per_block(cfg), K::block_threads);
  int device = 0;
  cudaDeviceProp prop{};
  CUOP_CUDA_ASSERT(cudaGetDevice(&device));
  CUOP_CUDA_ASSERT(cudaGetDeviceProperties(&prop, device));
  if (prop.major != 9 || prop.minor != 0)
    GTEST_SKIP() << "wgmma needs compute capability 9.0 (sm_90a), device is sm_" << prop.major << prop.minor;
  cudaFuncAttributes attr{};
  CUOP_CUDA_ASSERT(cudaFuncGetAttributes(&attr, &entry<K>));
  if (attr.binaryVersion != 90) GTEST_SKIP() << "the tests' kernels were not built for sm_90a";
  harness h{cfg, reinterpret_cast<const void*>(&entry<K>), {}};
  CUOP_CUDA_ASSERT(kg::query_limits(device, h.dev));
  kg::launch_plan plan;
  ASSERT_EQ(kg::plan_launch(cfg, 1, 1, 8, h.dev, plan), "");
  ASSERT_EQ(plan.smem_bytes, static_cast<std::size_t>(K::smem_bytes));
  h.run_cases(shapes, layouts);
  if (testing::Test::HasFatalFailure()) return;
  if (cfg.cluster > 1) {  // launch() caps the persistent grid at the clusters that fit at once
    int clusters = 0;
    CUOP_CUDA_ASSERT(cuop::kernels::common::max_active_clusters(reinterpret_cast<const void*>(&entry<K>), plan.block_x,
                                                                plan.smem_bytes, plan.cluster_x, clusters));
    EXPECT_GT(clusters, 0);
    std::printf("%s: %d clusters of %u resident on %d SMs\n", kg::instance_name(cfg).c_str(), clusters, plan.cluster_x,
                h.dev.sm_count);
  }
  // Rows of A that are not 16-byte aligned: refused, nothing launched.
  const kg::gemm_args odd{reinterpret_cast<const void*>(256),
                          reinterpret_cast<const void*>(256),
                          nullptr,
                          reinterpret_cast<void*>(256),
                          64,
                          64,
                          64,
                          68,
                          64,
                          64,
                          64,
                          1.f,
                          0.f,
                          nullptr};
  EXPECT_EQ(kg::launch(cfg, h.kernel, plan, odd, nullptr), cudaErrorInvalidValue);
}

kg::gemm_config wgmma_cfg(dtype in, dtype out, int bm, int bn, int stages, int consumers, int group_m,
                          int cluster = 0) {
  kg::gemm_config c;
  c.fam = kg::family::wgmma;
  c.in = in;
  c.out = out;
  c.b = kg::b_layout::col;
  c.block_m = bm;
  c.block_n = bn;
  c.stages = stages;
  c.consumers = consumers;
  c.group_m = group_m;
  c.cluster = cluster;
  return c;
}

using bf16 = __nv_bfloat16;

}  // namespace

#define CUOP_WGMMA_TEST(NAME, TI, TO, DI, DO, BM, BN, S, C, G)                                  \
  TEST(sm90_gemm_wgmma, NAME) {                                                                 \
    CUOP_REQUIRE_GPU();                                                                         \
    check_config<kg::wgmma<TI, TO, true, BM, BN, S, C, G>>(wgmma_cfg(DI, DO, BM, BN, S, C, G)); \
  }

// The large tile: two consumers of 64 rows by 256 columns each.
CUOP_WGMMA_TEST(bf16_f32_m128_n256_s4_c2_g8, bf16, float, dtype::bf16, dtype::f32, 128, 256, 4, 2, 8)
// Two consumers of 128 rows (two m64 atoms each), 16-bit output.
CUOP_WGMMA_TEST(bf16_bf16_m256_n128_s3_c2_g4, bf16, bf16, dtype::bf16, dtype::bf16, 256, 128, 3, 2, 4)
// One consumer, f16, narrow tiles, deep pipeline, no grouping.
CUOP_WGMMA_TEST(f16_f16_m64_n64_s8_c1_g1, __half, __half, dtype::f16, dtype::f16, 64, 64, 8, 1, 1)
// One consumer of 128 rows, f16 in, f32 out, two stages.
CUOP_WGMMA_TEST(f16_f32_m128_n128_s2_c1_g8, __half, float, dtype::f16, dtype::f32, 128, 128, 2, 1, 8)

// Clusters of two blocks along M sharing their B tiles by multicast: odd tile rows (a block
// past M), one and two consumers.
#define CUOP_WGMMA_CLUSTER_TEST(NAME, TI, TO, DI, DO, BM, BN, S, C, G)                                \
  TEST(sm90_gemm_wgmma, NAME) {                                                                       \
    CUOP_REQUIRE_GPU();                                                                               \
    check_config<kg::wgmma<TI, TO, true, BM, BN, S, C, G, 2>>(wgmma_cfg(DI, DO, BM, BN, S, C, G, 2)); \
  }
CUOP_WGMMA_CLUSTER_TEST(bf16_bf16_m128_n256_s4_c2_g8_cluster2, bf16, bf16, dtype::bf16, dtype::bf16, 128, 256, 4, 2, 8)
CUOP_WGMMA_CLUSTER_TEST(f16_f32_m64_n128_s6_c1_g1_cluster2, __half, float, dtype::f16, dtype::f32, 64, 128, 6, 1, 1)
