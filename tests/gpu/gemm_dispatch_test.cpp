// The library's GEMM dispatch path: cuop::gemm through whatever the emitted table chooses (our
// kernels, cuBLASLt configurations, the heuristic, either on packed operands), on tuned and
// untuned shapes, both B layouts, f32 and 16-bit outputs, padded leading dimensions, against the
// reference.
#include <gtest/gtest.h>

#include <string>

#include "cuop/gemm.hpp"
#include "cuop/reference/gemm_reference.hpp"
#include "gpu_test_support.hpp"

namespace {

using cuop::dtype;
using cuop::kernels::gemm::b_layout;

struct device_buffer {
  void* ptr = nullptr;
  explicit device_buffer(std::size_t bytes) { cudaMalloc(&ptr, bytes); }
  ~device_buffer() { cudaFree(ptr); }
};

struct dispatch_case {
  dtype in, out;
  b_layout b;
  int m, n, k;
  int pad;  // extra elements in every leading dimension
  float beta;
};

void check(const dispatch_case& c) {
  const long long lda = c.k + c.pad, ldb = (c.b == b_layout::col ? c.k : c.n) + c.pad, ldc = c.n + c.pad,
                  ldd = c.n + c.pad;
  const long long b_rows = c.b == b_layout::col ? c.n : c.k;
  device_buffer a(static_cast<std::size_t>(c.m * lda) * 2), b(static_cast<std::size_t>(b_rows * ldb) * 2),
      cm(static_cast<std::size_t>(c.m * ldc) * cuop::size_of(c.out)),
      d(static_cast<std::size_t>(c.m * ldd) * cuop::size_of(c.out)),
      ref(static_cast<std::size_t>(c.m) * c.n * sizeof(float)), dense(static_cast<std::size_t>(c.m) * c.n * 4);
  ASSERT_NE(a.ptr, nullptr);
  CUOP_CUDA_ASSERT(cuop::reference::fill_random(c.in, a.ptr, c.m * lda, 1, -1.f, 1.f, nullptr));
  CUOP_CUDA_ASSERT(cuop::reference::fill_random(c.in, b.ptr, b_rows * ldb, 2, -1.f, 1.f, nullptr));
  CUOP_CUDA_ASSERT(cuop::reference::fill_random(c.out, cm.ptr, c.m * ldc, 3, -1.f, 1.f, nullptr));
  CUOP_CUDA_ASSERT(cuop::reference::fill_nan(c.out, d.ptr, c.m * ldd, nullptr));
  CUOP_CUDA_ASSERT(cuop::reference::gemm_reference(c.in, c.out, c.b == b_layout::col, a.ptr, lda, b.ptr, ldb, cm.ptr,
                                                   ldc, c.m, c.n, c.k, 1.f, c.beta, static_cast<float*>(ref.ptr),
                                                   nullptr));
  cuop::gemm_problem p;
  p.in = c.in;
  p.out = c.out;
  p.b = c.b;
  p.m = c.m;
  p.n = c.n;
  p.k = c.k;
  p.lda = lda;
  p.ldb = ldb;
  p.ldc = ldc;
  p.ldd = ldd;
  p.beta = c.beta;
  cuop::gemm_choice choice;
  ASSERT_EQ(cuop::gemm_which(p, choice), cuop::status::success);
  SCOPED_TRACE(std::string(choice.instance) + " (" + choice.kind + ", " + choice.source + ")");
  ASSERT_EQ(cuop::gemm(p, a.ptr, b.ptr, cm.ptr, d.ptr), cuop::status::success);
  CUOP_CUDA_ASSERT(cudaDeviceSynchronize());
  cuop::reference::compare_result r{};
  CUOP_CUDA_ASSERT(cuop::reference::compare_gemm(c.out, d.ptr, ldd, c.m, c.n, static_cast<float*>(ref.ptr),
                                                 cuop::reference::gemm_atol(c.in, c.out, c.k) * 2,
                                                 cuop::reference::gemm_rtol(c.out), &r, nullptr));
  EXPECT_EQ(r.bad, 0) << "first bad at row " << r.first_bad_row << " col " << r.first_bad_col << ", max abs error "
                      << r.max_abs_err;
  EXPECT_EQ(r.nan_count, 0);
}

}  // namespace

TEST(sm80_gemm_dispatch, tuned_and_untuned_shapes) {
  CUOP_REQUIRE_GPU();
  for (const auto& c : std::initializer_list<dispatch_case>{
           {dtype::bf16, dtype::bf16, b_layout::col, 1, 4096, 4096, 0, 0.f},    // tuned decode
           {dtype::bf16, dtype::bf16, b_layout::col, 128, 4096, 4096, 0, 0.f},  // tuned
           {dtype::bf16, dtype::bf16, b_layout::col, 3, 1000, 4000, 0, 0.f},    // untuned: nearest
           {dtype::bf16, dtype::bf16, b_layout::col, 129, 7, 4097, 0, 0.f},     // awkward
           {dtype::f16, dtype::f16, b_layout::col, 64, 1024, 4096, 0, 0.f},
           // Odd K (lda, ldb odd): tuned choices on packed operands (pack: 1, ours or cuBLASLt's),
           // and their neighbours, misaligned (packed too) and aligned (the packing dropped).
           {dtype::f16, dtype::f16, b_layout::col, 4097, 4097, 4097, 0, 0.f},
           {dtype::bf16, dtype::bf16, b_layout::col, 4097, 4097, 4097, 0, 0.f},
           {dtype::bf16, dtype::bf16, b_layout::col, 127, 1031, 4093, 0, 0.f},
           {dtype::f16, dtype::f16, b_layout::col, 127, 1031, 4093, 0, 0.f},
           {dtype::bf16, dtype::bf16, b_layout::col, 130, 1031, 4093, 0, 0.f},
           {dtype::bf16, dtype::bf16, b_layout::col, 120, 1000, 4096, 0, 0.f},
           {dtype::bf16, dtype::bf16, b_layout::col, 4000, 4100, 4104, 0, 0.f},
           {dtype::bf16, dtype::bf16, b_layout::col, 4096, 4096, 4093, 0, 0.f},
           {dtype::f16, dtype::f16, b_layout::col, 4096, 4096, 4093, 0, 0.f},
           {dtype::bf16, dtype::bf16, b_layout::col, 3000, 4096, 4093, 0, 0.f}}) {
    SCOPED_TRACE(std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k));
    check(c);
  }
}

TEST(sm80_gemm_dispatch, untuned_types_layouts_and_padding_use_the_heuristic) {
  CUOP_REQUIRE_GPU();
  for (const auto& c :
       std::initializer_list<dispatch_case>{{dtype::bf16, dtype::f32, b_layout::col, 64, 256, 512, 0, 0.5f},
                                            {dtype::f16, dtype::f16, b_layout::row, 100, 300, 200, 0, 0.f},
                                            {dtype::bf16, dtype::bf16, b_layout::col, 16, 4096, 4096, 8, 0.5f}}) {
    SCOPED_TRACE(std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k));
    check(c);
  }
}

TEST(sm80_gemm_dispatch, bad_arguments_are_refused) {
  CUOP_REQUIRE_GPU();
  cuop::gemm_problem p;
  p.m = 4;
  p.n = 4;
  p.k = 0;
  int dummy = 0;
  EXPECT_EQ(cuop::gemm(p, &dummy, &dummy, nullptr, &dummy), cuop::status::invalid_argument);
  p.k = 4;
  p.lda = 2;  // < k
  EXPECT_EQ(cuop::gemm(p, &dummy, &dummy, nullptr, &dummy), cuop::status::invalid_argument);
  p.lda = 0;
  p.in = dtype::f32;
  EXPECT_EQ(cuop::gemm(p, &dummy, &dummy, nullptr, &dummy), cuop::status::invalid_argument);
}
