// An application of cuop::kernels: a linear layer's GEMM (y = x * W^T, W stored n x k) through
// cuop::gemm for a decode and a prefill batch, checked against the reference. Prints the choice.
#include <cuda_runtime_api.h>

#include <cstdio>

#include "cuop/gemm.hpp"
#include "cuop/reference/gemm_reference.hpp"

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "gemm_app: no CUDA device: nothing to run\n");
    return 77;
  }
  int failures = 0;
  for (const int m : {16, 2048}) {
    cuop::gemm_problem p;  // bf16 in and out, B column-major
    p.m = m;
    p.n = 4096;
    p.k = 4096;
    const auto t = p.in;
    void *a = nullptr, *b = nullptr, *d = nullptr;
    float* ref = nullptr;
    cudaMalloc(&a, static_cast<std::size_t>(p.m) * p.k * 2);
    cudaMalloc(&b, static_cast<std::size_t>(p.n) * p.k * 2);
    cudaMalloc(&d, static_cast<std::size_t>(p.m) * p.n * 2);
    cudaMalloc(reinterpret_cast<void**>(&ref), static_cast<std::size_t>(p.m) * p.n * 4);
    cuop::reference::fill_random(t, a, static_cast<long long>(p.m) * p.k, 1, -1.f, 1.f, nullptr);
    cuop::reference::fill_random(t, b, static_cast<long long>(p.n) * p.k, 2, -1.f, 1.f, nullptr);
    cuop::reference::gemm_reference(t, t, true, a, p.k, b, p.k, nullptr, p.n, p.m, p.n, p.k, 1.f, 0.f, ref, nullptr);
    const auto s = cuop::gemm(p, a, b, nullptr, d);
    cuop::reference::compare_result cmp{};
    cuop::reference::compare_gemm(t, d, p.n, p.m, p.n, ref, cuop::reference::gemm_atol(t, t, p.k),
                                  cuop::reference::gemm_rtol(t), &cmp, nullptr);
    cuop::gemm_choice c;
    cuop::gemm_which(p, c);
    const bool ok = s == cuop::status::success && cmp.bad == 0 && cmp.nan_count == 0;
    if (s != cuop::status::success)  // the library's status, e.g. no code for this GPU
      std::printf("gemm %dx%dx%d bf16: failed: %s\n", p.m, p.n, p.k, cuop::to_string(s));
    else
      std::printf("gemm %dx%dx%d bf16: %s via %s (%s, %s), max abs error %.3g: %s\n", p.m, p.n, p.k, cuop::to_string(s),
                  c.instance ? c.instance : "?", c.kind ? c.kind : "?", c.source ? c.source : "?", cmp.max_abs_err,
                  ok ? "correct" : "WRONG");
    failures += ok ? 0 : 1;
    cudaFree(a);
    cudaFree(b);
    cudaFree(d);
    cudaFree(ref);
  }
  return failures ? 1 : 0;
}
