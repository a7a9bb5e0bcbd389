// The skinny GEMM family, instantiated directly with nvcc, planned with plan_launch and checked
// against the reference on awkward shapes: M of 1, 7, 16, 64 and 130 (more than one row tile), N
// and K of 1, 7, 129 and 4097, leading dimensions and pointers that defeat 16-byte loads (of A, of
// B, of both), both B layouts, beta 0 and 0.5, split-K 1, 3 and 4, f16 and bf16 inputs, f32 and
// 16-bit outputs. Outputs are poisoned with NaN first; padding between rows must still hold it
// afterwards. The split-K workspace is zeroed once per configuration and reused by every case,
// and every case is launched twice: the workspace must reset itself.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "cuop/kernels/gemm/family.hpp"
#include "cuop/kernels/gemm/launch.hpp"
#include "cuop/kernels/gemm/skinny.cuh"
#include "cuop/reference/gemm_reference.hpp"
#include "gemm_case.hpp"
#include "gpu_test_support.hpp"

namespace {

namespace kg = cuop::kernels::gemm;
namespace ref = cuop::reference;
using cuop::dtype;
using cuop::test::gemm_case::is_nan_bits;
using cuop::test::gemm_case::leading;

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
  int a_pad, b_pad, c_pad, d_pad;
  int a_off, b_off, c_off, d_off;
  float alpha, beta;
};

std::vector<shape> shapes() {
  std::vector<shape> s;
  for (int m : {1, 7, 16, 64, 130})
    for (int n : {1, 7, 129, 4097})
      for (int k : {1, 7, 129, 4097}) s.push_back({m, n, k});
  return s;
}

const std::vector<layout> layouts = {
    {-1, -1, -1, -1, 0, 0, 0, 0, 1.f, 0.f},    // aligned: 16-byte paths wherever the shape allows
    {0, 0, 0, 0, 0, 0, 0, 0, 1.5f, 0.5f},      // packed: unaligned leading dimensions for odd shapes
    {3, 5, 1, 3, 1, 3, 2, 1, 1.f, 0.5f},       // odd padding and misaligned pointers everywhere
    {-1, -1, -1, -1, 0, 1, 0, 0, -1.f, 0.f},   // aligned A, misaligned B pointer
    {-1, -1, -1, -1, 3, 0, 0, 0, 0.5f, 0.5f},  // misaligned A pointer, aligned B
};

struct harness {
  kg::gemm_config cfg;
  const void* kernel;
  kg::device_limits dev;
  int m_tile, block_n;  // of the instantiation, to check the planned workspace
  void* workspace = nullptr;
  std::size_t workspace_size = 0;

  ~harness() { cudaFree(workspace); }

  void run_case(const shape& sh, const layout& lo) {
    const bool b_col = cfg.b == kg::b_layout::col;
    const long long lda = leading(sh.k, lo.a_pad);
    const long long ldb = leading(b_col ? sh.k : sh.n, lo.b_pad);
    const long long ldc = leading(sh.n, lo.c_pad);
    const long long ldd = leading(sh.n, lo.d_pad);
    SCOPED_TRACE(kg::instance_name(cfg) + " m " + std::to_string(sh.m) + " n " + std::to_string(sh.n) + " k " +
                 std::to_string(sh.k) + " lda " + std::to_string(lda) + " ldb " + std::to_string(ldb) + " ldc " +
                 std::to_string(ldc) + " ldd " + std::to_string(ldd) + " offsets " + std::to_string(lo.a_off) + "/" +
                 std::to_string(lo.b_off) + "/" + std::to_string(lo.c_off) + "/" + std::to_string(lo.d_off) +
                 " alpha " + std::to_string(lo.alpha) + " beta " + std::to_string(lo.beta));
    kg::launch_plan plan;
    const std::string why = kg::plan_launch(cfg, sh.m, sh.n, sh.k, dev, plan);
    const long long gx = (sh.n + block_n - 1) / block_n, gy = (sh.m + m_tile - 1) / m_tile;
    if (cfg.split_k > 1 && gx * gy > kg::skinny_split_max_tiles) {  // one counter per output tile
      EXPECT_NE(why.find("needs a counter per output tile"), std::string::npos) << why;
      return;
    }
    ASSERT_EQ(why, "");
    ASSERT_EQ(plan.grid_x, static_cast<unsigned>(gx));
    ASSERT_EQ(plan.grid_y, static_cast<unsigned>(gy));
    ASSERT_EQ(plan.grid_z, static_cast<unsigned>(cfg.split_k));
    ASSERT_EQ(plan.smem_bytes, 0u);
    // The layout skinny.cuh documents: counters, then f32 partials[tiles][split_k][m_tile * block_n].
    const std::size_t ws =
        cfg.split_k == 1
            ? 0
            : static_cast<std::size_t>(kg::skinny_split_counter_bytes + 4LL * gx * gy * cfg.split_k * m_tile * block_n);
    ASSERT_EQ(plan.workspace_bytes, ws);

    const std::size_t is = cuop::size_of(cfg.in), os = cuop::size_of(cfg.out);
    const long long a_count = (sh.m - 1LL) * lda + sh.k + lo.a_off;
    const long long b_count = (b_col ? (sh.n - 1LL) * ldb + sh.k : (sh.k - 1LL) * ldb + sh.n) + lo.b_off;
    const long long c_count = (sh.m - 1LL) * ldc + sh.n + lo.c_off;
    const long long d_count = (sh.m - 1LL) * ldd + sh.n + lo.d_off;
    unsigned char *a = nullptr, *b = nullptr, *c = nullptr, *d = nullptr;
    float* expect = nullptr;
    CUOP_CUDA_ASSERT(cudaMalloc(&a, a_count * is));
    CUOP_CUDA_ASSERT(cudaMalloc(&b, b_count * is));
    CUOP_CUDA_ASSERT(cudaMalloc(&c, c_count * os));
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
    // With beta 0, C is NaN: a kernel that reads it anyway (0 * NaN) fails.
    if (lo.beta != 0.f) CUOP_CUDA_ASSERT(ref::fill_random(cfg.out, c, c_count, seed + 2, -1.f, 1.f, nullptr));
    else CUOP_CUDA_ASSERT(ref::fill_nan(cfg.out, c, c_count, nullptr));
    const void* a_data = a + lo.a_off * is;
    const void* b_data = b + lo.b_off * is;
    const void* c_data = c + lo.c_off * os;
    void* d_data = d + lo.d_off * os;
    CUOP_CUDA_ASSERT(ref::gemm_reference(cfg.in, cfg.out, b_col, a_data, lda, b_data, ldb,
                                         lo.beta != 0.f ? c_data : nullptr, ldc, sh.m, sh.n, sh.k, lo.alpha, lo.beta,
                                         expect, nullptr));

    const kg::gemm_args args{a_data, b_data, c_data, d_data, sh.m,     sh.n,    sh.k,
                             lda,    ldb,    ldc,    ldd,    lo.alpha, lo.beta, workspace};
    for (int rep = 0; rep < 2; ++rep) {
      CUOP_CUDA_ASSERT(ref::fill_nan(cfg.out, d, d_count, nullptr));
      CUOP_CUDA_ASSERT(kg::launch(kernel, plan, args, nullptr));
      CUOP_CUDA_ASSERT(cudaDeviceSynchronize());
      ref::compare_result r;
      CUOP_CUDA_ASSERT(ref::compare_gemm(cfg.out, d_data, ldd, sh.m, sh.n, expect,
                                         ref::gemm_atol(cfg.in, cfg.out, sh.k), ref::gemm_rtol(cfg.out), &r, nullptr));
      EXPECT_EQ(r.bad, 0) << "launch " << rep << ": first bad at row " << r.first_bad_row << " col " << r.first_bad_col
                          << ", " << r.nan_count << " NaN, max abs err " << r.max_abs_err << ", max rel err "
                          << r.max_rel_err;
      EXPECT_EQ(r.nan_count, 0);
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

template <typename K, int M_TILE, int BLOCK_N>
void check_config(const kg::gemm_config& cfg) {
  ASSERT_EQ(kg::check_config(cfg), "");
  ASSERT_EQ(cfg.threads, K::block_threads);
  int device = 0;
  cudaDeviceProp prop{};
  CUOP_CUDA_ASSERT(cudaGetDevice(&device));
  CUOP_CUDA_ASSERT(cudaGetDeviceProperties(&prop, device));
  if (prop.major < 8) GTEST_SKIP() << "needs sm_80 or newer, device is sm_" << prop.major << prop.minor;
  int occupancy = 0;
  CUOP_CUDA_ASSERT(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occupancy, entry<K>, K::block_threads, 0));
  ASSERT_GT(occupancy, 0) << "kernel cannot be resident";
  harness h{cfg, reinterpret_cast<const void*>(&entry<K>), {}, M_TILE, BLOCK_N};
  CUOP_CUDA_ASSERT(kg::query_limits(device, h.dev));
  for (const shape& sh : shapes())
    for (const layout& lo : layouts) {
      h.run_case(sh, lo);
      if (testing::Test::HasFatalFailure()) return;
    }
}

kg::gemm_config skinny_cfg(dtype in, dtype out, kg::b_layout b, int block_n, int threads, int m_tile, int k_chunk,
                           int split_k) {
  kg::gemm_config c;
  c.fam = kg::family::skinny;
  c.in = in;
  c.out = out;
  c.b = b;
  c.block_n = block_n;
  c.threads = threads;
  c.m_tile = m_tile;
  c.k_chunk = k_chunk;
  c.split_k = split_k;
  return c;
}

using bf16 = __nv_bfloat16;
constexpr kg::b_layout col = kg::b_layout::col;
constexpr kg::b_layout row = kg::b_layout::row;

}  // namespace

#define CUOP_SKINNY_TEST(NAME, TI, TO, DI, DO, BL, BN, T, MT, KC, SK)                                                  \
  TEST(sm80_gemm_skinny, NAME) {                                                                                       \
    CUOP_REQUIRE_GPU();                                                                                                \
    check_config<kg::skinny<TI, TO, BL == col, BN, T, MT, KC, SK>, MT, BN>(skinny_cfg(DI, DO, BL, BN, T, MT, KC, SK)); \
  }

// Decode workhorse: a warp per column, one row of A, 4 loads in flight per lane (prefetched).
CUOP_SKINNY_TEST(bf16_f32_col_n8_t256_m1_kc32_sk1, bf16, float, dtype::bf16, dtype::f32, col, 8, 256, 1, 32, 1)
// 4 columns per warp, 64 accumulators (two sums per lane after the reduce-scatter), split-K 4,
// bf16 output.
CUOP_SKINNY_TEST(bf16_bf16_col_n16_t128_m16_kc16_sk4, bf16, bf16, dtype::bf16, dtype::bf16, col, 16, 128, 16, 16, 4)
// 4 warps per column (K split inside the block, partials added in shared memory), split-K 3.
CUOP_SKINNY_TEST(f16_f32_col_n2_t256_m8_kc8_sk3, __half, float, dtype::f16, dtype::f32, col, 2, 256, 8, 8, 3)
// 5 rows (padded to 8 values), 8 loads in flight per lane, f16 output.
CUOP_SKINNY_TEST(f16_f16_col_n8_t256_m5_kc64_sk1, __half, __half, dtype::f16, dtype::f16, col, 8, 256, 5, 64, 1)
// Row-major B: 8 threads across 64 columns, 32 along K (4 per warp, 8 warps added in shared memory).
CUOP_SKINNY_TEST(bf16_f32_row_n64_t256_m4_kc32_sk1, bf16, float, dtype::bf16, dtype::f32, row, 64, 256, 4, 32, 1)
// Row-major B wider than a warp (64 threads across 512 columns, 2 along K), 3 rows, split-K 4.
CUOP_SKINNY_TEST(f16_f32_row_n512_t128_m3_kc16_sk4, __half, float, dtype::f16, dtype::f32, row, 512, 128, 3, 16, 4)
