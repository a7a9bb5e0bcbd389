// An application of cuop::kernels: a ConvNeXt block's 7x7 depthwise convolution and a ResNet-50
// 3x3 layer (f16, NHWC) through cuop::conv2d, checked against the reference. Prints the choice.
#include <cuda_runtime_api.h>

#include <cstdio>

#include "cuop/conv.hpp"
#include "cuop/reference/conv_reference.hpp"
#include "cuop/reference/gemm_reference.hpp"  // compare_gemm

namespace kc = cuop::kernels::conv;

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "conv_app: no CUDA device: nothing to run\n");
    return 77;
  }
  kc::conv_shape depthwise{
      .n = 32, .c = 512, .h = 28, .w = 28, .k = 512, .r = 7, .s = 7, .pad_h = 3, .pad_w = 3, .groups = 512};
  kc::conv_shape dense{.n = 32, .c = 64, .h = 56, .w = 56, .k = 64, .r = 3, .s = 3, .pad_h = 1, .pad_w = 1};
  int failures = 0;
  for (const auto& sh : {depthwise, dense}) {
    const cuop::conv2d_problem p{cuop::dtype::f16, sh};
    const long long xn = 1LL * sh.n * sh.h * sh.w * sh.c, wn = 1LL * sh.k * (sh.c / sh.groups) * sh.r * sh.s,
                    yn = 1LL * sh.n * sh.p() * sh.q() * sh.k;
    void *x = nullptr, *w = nullptr, *y = nullptr;
    float* ref = nullptr;
    cudaMalloc(&x, xn * 2);
    cudaMalloc(&w, wn * 2);
    cudaMalloc(&y, yn * 2);
    cudaMalloc(reinterpret_cast<void**>(&ref), yn * 4);
    cuop::reference::fill_random(p.type, x, xn, 1, -1.f, 1.f, nullptr);
    cuop::reference::fill_random(p.type, w, wn, 2, -1.f, 1.f, nullptr);
    cuop::reference::conv2d_reference(p.type, sh, x, w, ref, nullptr);
    const auto s = cuop::conv2d(p, x, w, y);
    cuop::reference::compare_result cmp{};
    cuop::reference::compare_gemm(p.type, y, sh.k, static_cast<int>(yn / sh.k), sh.k, ref,
                                  cuop::reference::conv_atol(p.type, sh), cuop::reference::conv_rtol(p.type), &cmp,
                                  nullptr);
    cuop::conv2d_choice c;
    cuop::conv2d_which(p, c);
    const bool ok = s == cuop::status::success && cmp.bad == 0 && cmp.nan_count == 0;
    if (s != cuop::status::success)  // the library's status, e.g. no code for this GPU
      std::printf("conv2d %dx%dx%dx%d k%d %dx%d groups %d f16 nhwc: failed: %s\n", sh.n, sh.h, sh.w, sh.c, sh.k, sh.r,
                  sh.s, sh.groups, cuop::to_string(s));
    else
      std::printf("conv2d %dx%dx%dx%d k%d %dx%d groups %d f16 nhwc: %s via %s (%s, %s), max abs error %.3g: %s\n", sh.n,
                  sh.h, sh.w, sh.c, sh.k, sh.r, sh.s, sh.groups, cuop::to_string(s), c.instance ? c.instance : "?",
                  c.kind ? c.kind : "?", c.source ? c.source : "?", cmp.max_abs_err, ok ? "correct" : "WRONG");
    failures += ok ? 0 : 1;
    cudaFree(x);
    cudaFree(w);
    cudaFree(y);
    cudaFree(ref);
  }
  return failures ? 1 : 0;
}
