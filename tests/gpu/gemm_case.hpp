// One GEMM kernel configuration checked against the reference on one shape and operand layout
// (tests/gpu/gemm_*_test.cu): outputs poisoned with NaN first, padding between rows must still
// hold it afterwards, every case launched twice (a split-K workspace must reset itself), and the
// split-K counters every configuration sharing a workspace relies on back at zero.
#pragma once

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

namespace cuop::test::gemm_case {

namespace kg = cuop::kernels::gemm;
namespace ref = cuop::reference;
using cuop::dtype;

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

inline long long leading(int dim, int pad) { return pad < 0 ? (dim + 7LL) / 8 * 8 : dim + static_cast<long long>(pad); }

inline bool is_nan_bits(dtype t, const unsigned char* p) {
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
      CUOP_CUDA_ASSERT(kg::launch(cfg, kernel, plan, args, nullptr));
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

  // Every shape in every layout, stopping at the first fatal failure.
  void run_cases(const std::vector<shape>& shapes, const std::vector<layout>& layouts) {
    for (const shape& sh : shapes)
      for (const layout& lo : layouts) {
        run_case(sh, lo);
        if (testing::Test::HasFatalFailure()) return;
      }
  }
};

}  // namespace cuop::test::gemm_case
