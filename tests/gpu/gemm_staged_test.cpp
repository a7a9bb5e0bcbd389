// cuBLASLt's configurations on aligned copies (pack: 2, tuner/ops/gemm/library.cpp): A and B
// packed where K is not a multiple of 8, D (and C, where it is read) staged in aligned rows where N
// is not, against the reference, as the sweep runs them.
#include <gtest/gtest.h>

#include <string>

#include "cuop/reference/gemm_reference.hpp"
#include "gpu_test_support.hpp"
#include "tuner/ops/gemm/library.hpp"

namespace {

using cuop::dtype;

struct device_buffer {
  void* ptr = nullptr;
  explicit device_buffer(std::size_t bytes) { cudaMalloc(&ptr, bytes < 16 ? 16 : bytes); }
  ~device_buffer() { cudaFree(ptr); }
};

void check_staged(dtype t, int m, int n, int k, float beta) {
  SCOPED_TRACE(std::string(cuop::name_of(t)) + " " + std::to_string(m) + "x" + std::to_string(n) + "x" +
               std::to_string(k) + " beta " + std::to_string(beta));
  const auto elems = [](long long r, long long c) { return static_cast<std::size_t>(r * c); };
  device_buffer a(elems(m, k) * 2), b(elems(n, k) * 2), c(elems(m, n) * 2), d(elems(m, n) * 2),
      ref(elems(m, n) * sizeof(float));
  ASSERT_NE(a.ptr, nullptr);
  CUOP_CUDA_ASSERT(cuop::reference::fill_random(t, a.ptr, static_cast<long long>(m) * k, 1, -1.f, 1.f, nullptr));
  CUOP_CUDA_ASSERT(cuop::reference::fill_random(t, b.ptr, static_cast<long long>(n) * k, 2, -1.f, 1.f, nullptr));
  CUOP_CUDA_ASSERT(cuop::reference::fill_random(t, c.ptr, static_cast<long long>(m) * n, 3, -1.f, 1.f, nullptr));
  CUOP_CUDA_ASSERT(cuop::reference::fill_nan(t, d.ptr, static_cast<long long>(m) * n, nullptr));
  CUOP_CUDA_ASSERT(cuop::reference::gemm_reference(t, t, true, a.ptr, k, b.ptr, k, c.ptr, n, m, n, k, 1.f, beta,
                                                   static_cast<float*>(ref.ptr), nullptr));

  cuop::ops::gemm_library lib;
  std::string message;
  const nlohmann::json point = {{"family", "cublaslt"},
                                {"params", {{"top", 1}, {"space", 0}, {"workspace_mb", 32}, {"pack", 2}}}};
  const auto listed = lib.list(t, m, n, k, point, message);
  ASSERT_TRUE(listed.is_array()) << message;
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0]["instance"], "gemm_" + std::string(cuop::name_of(t)) + "_cublaslt_heuristic_pk2");
  cuop::ops::library_call call;
  ASSERT_EQ(lib.prepare(t, m, n, k, listed[0], call), "");
  device_buffer workspace(call.workspace_bytes);
  const cuop::kernels::gemm::gemm_args args{a.ptr, b.ptr, c.ptr, d.ptr, m, n, k, k, k, n, n, 1.f, beta, workspace.ptr};
  CUOP_CUDA_ASSERT(lib.run(call, args, workspace.ptr, call.workspace_bytes, nullptr));
  CUOP_CUDA_ASSERT(cudaDeviceSynchronize());
  cuop::reference::compare_result r{};
  CUOP_CUDA_ASSERT(cuop::reference::compare_gemm(t, d.ptr, n, m, n, static_cast<float*>(ref.ptr),
                                                 cuop::reference::gemm_atol(t, t, k) * 2, cuop::reference::gemm_rtol(t),
                                                 &r, nullptr));
  EXPECT_EQ(r.bad, 0) << "first bad at row " << r.first_bad_row << " col " << r.first_bad_col << ", max abs error "
                      << r.max_abs_err;
  EXPECT_EQ(r.nan_count, 0);
}

}  // namespace

TEST(sm80_gemm_staged, aligned_copies_of_what_is_misaligned) {
  CUOP_REQUIRE_GPU();
  check_staged(dtype::bf16, 300, 1567, 520, 0.f);  // N odd: D staged
  check_staged(dtype::f16, 257, 1031, 4093, 0.f);  // both: packed and staged
  check_staged(dtype::bf16, 129, 512, 4093, 0.f);  // K odd: packed only
  check_staged(dtype::f16, 33, 7, 95, 0.5f);       // C staged in, read, D staged out
  check_staged(dtype::bf16, 1, 4099, 64, 0.5f);
}

TEST(sm80_gemm_staged, nothing_to_align_is_refused) {
  CUOP_REQUIRE_GPU();
  cuop::ops::gemm_library lib;
  std::string message;
  const nlohmann::json point = {{"family", "cublaslt"},
                                {"params", {{"top", 1}, {"space", 0}, {"workspace_mb", 32}, {"pack", 2}}}};
  EXPECT_TRUE(lib.list(dtype::bf16, 64, 512, 512, point, message).is_null());
  EXPECT_NE(message.find("nothing to align"), std::string::npos) << message;
}
