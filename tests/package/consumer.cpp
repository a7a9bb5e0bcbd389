// Asks the installed library what it would run for a softmax, a GEMM and a convolution. Without a
// GPU each answer is a status (no device); the test is that this builds and links from an install.
#include <cstdio>

#include "cuop/conv.hpp"
#include "cuop/gemm.hpp"
#include "cuop/softmax.hpp"

void scale_on_device();  // scale.cu: the consumer's own CUDA code beside the library's

int main() {
  cuop::softmax_problem s;
  s.type = cuop::dtype::bf16;
  s.rows = 4096;
  s.cols = 1000;
  cuop::softmax_choice sc;
  const auto st = cuop::softmax_which(s, sc);
  std::printf("softmax 4096x1000 bf16: %s %s\n", cuop::to_string(st), st == cuop::status::success ? sc.instance : "");
  cuop::gemm_problem g;
  g.m = g.n = g.k = 1024;
  cuop::gemm_choice gc;
  std::printf("gemm 1024^3 bf16: %s\n", cuop::to_string(cuop::gemm_which(g, gc)));
  scale_on_device();
  return 0;
}
