// Kernel arguments shared by every GEMM family. Device-safe and NVRTC-safe: built-in types only.
// D = alpha * A * B + beta * C, A is M x K, B is K x N, C and D are M x N row-major.
// A is row-major (A[m * lda + k]); B is row-major (B[k * ldb + n]) or column-major
// (B[n * ldb + k], the "weight stored N x K" layout), chosen by the instantiation. Element types
// of A and B are the instantiation's input type; C and D its output type (f32 or the input type).
#pragma once

namespace cuop::kernels::gemm {

struct gemm_args {
  const void* a;
  const void* b;
  const void* c;  // may be null when beta == 0
  void* d;
  int m;
  int n;
  int k;
  long long lda;  // elements between rows of A (>= k)
  long long ldb;  // row-major B: between rows (>= n); column-major B: between columns (>= k)
  long long ldc;  // elements between rows of C (>= n)
  long long ldd;  // elements between rows of D (>= n)
  float alpha;
  float beta;
  void* workspace;  // split-K partials and counters: zeroed once at allocation, self-resetting
};

}  // namespace cuop::kernels::gemm
