// Device probe: depthwise stages 0-2, f16 NHWC, an RR x RR filter and ph PHV (compile-time: -DRR,
// -DPHV), blocks of 64, 128 and 256 threads on 2x40x40x16 (multi-tile), every output checked
// against an f64 host reference. It found stage 0 at ph 2 wrong for 5x5 and 7x7 at all three
// block sizes before depthwise.cuh's compute worked around NVVM's fault (docs/conv.md, "Limits").
// Usage: bash ci/gpu/probes/dw_stages_rxr.sh (one binary per filter size and ph).
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <vector>
#include "cuop/kernels/conv/depthwise.cuh"
#include "cuop/kernels/conv/family.hpp"
#include "cuop/reference/conv_reference.hpp"
namespace kc = cuop::kernels::conv;
template <typename K>
__global__ void __launch_bounds__(K::block_threads, K::min_blocks) entry(kc::conv_args a) {
  extern __shared__ __align__(16) unsigned char smem[];
  K::run(a, smem);
}
static float h2f(unsigned short b) { __half_raw r; r.x = b; return __half2float(__half(r)); }
template <int R, int C0, int TH, int TW, int PH, int PW, int STAGE>
int check(int n, int hw, int c) {
  using K = kc::depthwise<__half, true, R, R, 1, 4, 1, C0, TH, TW, PH, PW, STAGE>;
  const int pad = R / 2, p = hw, q = hw;
  const long long xn = 1LL * n * hw * hw * c, wn = 1LL * c * R * R, yn = xn;
  std::vector<unsigned short> hx(xn), hwt(wn), hy(yn);
  unsigned st = 777u + R;
  auto rnd = [&] { st = st * 1664525u + 1013904223u; return float(st >> 8) / 16777216.f * 2.f - 1.f; };
  for (auto& v : hx) v = __half_as_ushort(__float2half(rnd()));
  for (auto& v : hwt) v = __half_as_ushort(__float2half(rnd()));
  void *x, *w, *y;
  cudaMalloc(&x, xn * 2); cudaMalloc(&w, wn * 2); cudaMalloc(&y, yn * 2);
  cudaMemcpy(x, hx.data(), xn * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(w, hwt.data(), wn * 2, cudaMemcpyHostToDevice);
  cudaMemset(y, 0xff, yn * 2);
  kc::conv_args a{x, w, y, n, c, hw, hw, c, p, q, R, R, 1, 1, pad, pad, 1, 1, c, 1.f, 0.f};
  const dim3 grid(((p + TH - 1) / TH) * ((q + TW - 1) / TW), (c + C0 - 1) / C0, n);
  cudaFuncSetAttribute(entry<K>, cudaFuncAttributeMaxDynamicSharedMemorySize, K::smem_bytes);
  entry<K><<<grid, K::block_threads, K::smem_bytes>>>(a);
  cudaError_t e = cudaGetLastError();  // e.g. more shared memory than the device has: never ran
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  cudaMemcpy(hy.data(), y, yn * 2, cudaMemcpyDeviceToHost);
  kc::conv_shape sh;  // the library's f64 host reference (conv_reference.hpp)
  sh.n = n, sh.c = sh.k = sh.groups = c, sh.h = sh.w = hw, sh.r = sh.s = R, sh.pad_h = sh.pad_w = pad;
  std::vector<float> fx(xn), fw(wn);
  for (long long i = 0; i < xn; ++i) fx[i] = h2f(hx[i]);
  for (long long i = 0; i < wn; ++i) fw[i] = h2f(hwt[i]);
  std::vector<double> want(yn);
  cuop::reference::conv2d_reference_cpu(sh, fx.data(), fw.data(), want.data());
  long long bad = 0;
  for (long long i = 0; i < yn; ++i)  // loose: a wrong tap row is far off
    if (!(std::fabs(h2f(hy[i]) - want[i]) <= 0.05 + 0.01 * std::fabs(want[i]))) ++bad;
  std::printf("| %dx%d | stage %d | c%d_t%dx%d_ph%d_pw%d | %d | %dx%dx%dx%d | %s | %lld of %lld |\n", R, R, STAGE, C0, TH, TW,
              PH, PW, K::block_threads, n, hw, hw, c, e == cudaSuccess ? "ok" : cudaGetErrorString(e), bad, yn);
  cudaFree(x); cudaFree(w); cudaFree(y);
  return bad || e != cudaSuccess ? 1 : 0;
}
int main() {
  int f = 0;
  const int n = 2, hw = 40, c = 16;
#define ALL(ST)                                            \
  f += check<RR, 16, 8, 16, PHV, 4, ST>(n, hw, c);         \
  f += check<RR, 16, 16, 16, PHV, 4, ST>(n, hw, c);        \
  f += check<RR, 16, 16, 32, PHV, 4, ST>(n, hw, c);
  ALL(0) ALL(1) ALL(2)
  std::printf("R %d ph %d: %d wrong or not run\n", RR, PHV, f);
  return 0;
}
