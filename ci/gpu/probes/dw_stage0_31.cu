// Device probe: depthwise stage 0 (inputs through L1) with 31x31 filters, which the H200 baseline
// sweep of 2026-11-30 found wrong in every block of fewer than 256 threads. The cause was NVVM
// rebuilding the last input row's tap addresses one tap row off; depthwise.cuh's compute works
// around it since 2026-12-03, and family.cpp no longer refuses stage 0 beyond 3x3. The kernels
// are launched directly, each on a few shapes, and checked against an f64 host reference: the
// configurations the sweep found wrong (64 and 128 threads), one it found right (256), and
// stage 1 of the same tiles. Also: the same kernel under other launch bounds, and the script
// builds it with NVVM at -O1 too, then runs compute-sanitizer (ci/gpu/probes/dw_stage0_31.sh;
// findings: docs/conv.md, "Limits").
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cuop/kernels/conv/depthwise.cuh"

namespace kc = cuop::kernels::conv;

template <typename K>
__global__ void __launch_bounds__(K::block_threads, K::min_blocks) entry(kc::conv_args a) {
  extern __shared__ __align__(16) unsigned char smem[];
  K::run(a, smem);
}
// The same kernel under other launch bounds: 256 threads at most, and none.
template <typename K>
__global__ void __launch_bounds__(256, 1) entry_lb256(kc::conv_args a) {
  extern __shared__ __align__(16) unsigned char smem[];
  K::run(a, smem);
}
template <typename K>
__global__ void entry_nolb(kc::conv_args a) {
  extern __shared__ __align__(16) unsigned char smem[];
  K::run(a, smem);
}

namespace {

struct shape {
  int n, c, hw;
};

float half_bits_to_float(unsigned short b) {
  __half_raw r;
  r.x = b;
  return __half2float(__half(r));
}

template <int C0, int TH, int TW, int PH, int PW, int STAGE, int BOUNDS = 0>
int check(const char* label, const shape& s, int smem_pad = 0) {
  using K = kc::depthwise<__half, true, 31, 31, 1, 4, 1, C0, TH, TW, PH, PW, STAGE>;
  const int r = 31, pad = 15, p = s.hw, q = s.hw;
  const long long xn = 1LL * s.n * s.hw * s.hw * s.c, wn = 1LL * s.c * r * r, yn = 1LL * s.n * p * q * s.c;
  std::vector<unsigned short> hx(xn), hw(wn), hy(yn);
  unsigned state = 12345u + s.c * 7u + s.hw;
  auto rnd = [&] {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) / 16777216.f * 2.f - 1.f;
  };
  for (auto& v : hx) v = __half_as_ushort(__float2half(rnd()));
  for (auto& v : hw) v = __half_as_ushort(__float2half(rnd()));
  void *x, *w, *y;
  cudaMalloc(&x, xn * 2);
  cudaMalloc(&w, wn * 2);
  cudaMalloc(&y, yn * 2);
  cudaMemcpy(x, hx.data(), xn * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(w, hw.data(), wn * 2, cudaMemcpyHostToDevice);
  cudaMemset(y, 0xff, yn * 2);  // NaN
  kc::conv_args a{x, w, y, s.n, s.c, s.hw, s.hw, s.c, p, q, r, r, 1, 1, pad, pad, 1, 1, s.c, 1.f, 0.f};
  const dim3 grid(((p + TH - 1) / TH) * ((q + TW - 1) / TW), (s.c + C0 - 1) / C0, s.n);
  auto kernel = BOUNDS == 0 ? entry<K> : BOUNDS == 256 ? entry_lb256<K> : entry_nolb<K>;
  const int smem = K::smem_bytes + smem_pad;  // padded: fewer blocks per SM
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  int per_sm = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, K::block_threads, smem);
  kernel<<<grid, K::block_threads, smem>>>(a);
  if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) {
    std::printf("| %s | %dx%dx%dx%d | %d | launch failed: %s |\n", label, s.n, s.hw, s.hw, s.c, K::block_threads,
                cudaGetErrorString(e));
    return 1;
  }
  cudaMemcpy(hy.data(), y, yn * 2, cudaMemcpyDeviceToHost);
  long long bad = 0, first = -1;
  double worst = 0;
  std::vector<long long> by_row(TH), by_col(TW);  // wrong outputs by row and column within a tile
  for (int n = 0; n < s.n; ++n)
    for (int oy = 0; oy < p; ++oy)
      for (int ox = 0; ox < q; ++ox)
        for (int c = 0; c < s.c; ++c) {
          double want = 0;
          for (int i = 0; i < r; ++i)
            for (int j = 0; j < r; ++j) {
              const int iy = oy - pad + i, ix = ox - pad + j;
              if (iy < 0 || iy >= s.hw || ix < 0 || ix >= s.hw) continue;
              want += double(half_bits_to_float(hx[((1LL * n * s.hw + iy) * s.hw + ix) * s.c + c])) *
                      half_bits_to_float(hw[(1LL * c * r + i) * r + j]);
            }
          const long long idx = ((1LL * n * p + oy) * q + ox) * s.c + c;
          const double got = half_bits_to_float(hy[idx]);
          const double err = std::fabs(got - want);
          if (!(err <= 0.05 + 0.01 * std::fabs(want))) {
            if (first < 0) first = idx;
            ++bad;
            ++by_row[oy % TH];
            ++by_col[ox % TW];
          }
          if (std::isfinite(got) && err > worst) worst = err;
          else if (!std::isfinite(got)) worst = INFINITY;
        }
  std::string where = "-";
  if (first >= 0) {
    const long long c = first % s.c, pix = first / s.c, ox = pix % q, oy = pix / q % p, n = pix / (p * q);
    where = "n " + std::to_string(n) + " y " + std::to_string(oy) + " x " + std::to_string(ox) + " c " +
            std::to_string(c);
  }
  std::string rows, cols;
  for (int i = 0; i < TH; ++i) rows += (i ? " " : "") + std::to_string(by_row[i]);
  for (int i = 0; i < TW; ++i) cols += (i ? " " : "") + std::to_string(by_col[i]);
  std::printf("| %s | %dx%dx%dx%d | %d | %d | %lld of %lld | %.4g | %s | %s | %s |\n", label, s.n, s.hw, s.hw, s.c,
              K::block_threads, per_sm, bad, yn, worst, where.c_str(), bad ? rows.c_str() : "-", bad ? cols.c_str() : "-");
  cudaFree(x);
  cudaFree(w);
  cudaFree(y);
  return bad ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  // For the sanitizer: --quick, the one-tile shape (right answers); --quick-multi, a multi-tile
  // shape where the faulty path runs (wrong answers); the first four checks only.
  const std::string mode = argc > 1 ? argv[1] : "";
  const bool quick = mode == "--quick" || mode == "--quick-multi";
  const shape all_shapes[] = {{1, 32, 16}, {2, 16, 40}, {1, 48, 33}};
  const std::vector<shape> shapes(all_shapes + (mode == "--quick-multi" ? 1 : 0), all_shapes + 3);
  std::printf("| configuration | n x h x w x c | threads | blocks per SM | wrong outputs | max abs error | first wrong "
              "| wrong by tile row | wrong by tile column |\n| --- | --- | ---: | ---: | --- | ---: | --- | --- | --- |\n");
  int failures = 0;
  for (const auto& s : shapes) {
    failures += check<16, 16, 16, 2, 4, 0>("stage 0 c16_t16x16_ph2_pw4 (sweep: wrong)", s, 0);
    failures += check<16, 8, 16, 2, 4, 0>("stage 0 c16_t8x16_ph2_pw4 (sweep: wrong)", s, 0);
    failures += check<16, 16, 32, 2, 4, 0>("stage 0 c16_t16x32_ph2_pw4 (sweep: right)", s, 0);
    failures += check<16, 16, 16, 2, 4, 1>("stage 1 c16_t16x16_ph2_pw4", s, 0);
    if (quick) break;
    // Same kernel, its shared memory padded so that one block fills an SM.
    failures += check<16, 16, 16, 2, 4, 0>("stage 0 c16_t16x16_ph2_pw4, one block per SM", s, 120 * 1024);
    // Same tile, ph and pw at 256 threads (twice the channel threads), and 128 threads on a tile
    // the sweep found right at 256 (half the channel threads).
    failures += check<32, 16, 16, 2, 4, 0>("stage 0 c32_t16x16_ph2_pw4", s, 0);
    failures += check<8, 16, 32, 2, 4, 0>("stage 0 c8_t16x32_ph2_pw4", s, 0);
    failures += check<16, 16, 16, 1, 4, 0>("stage 0 c16_t16x16_ph1_pw4", s, 0);
    failures += check<16, 16, 16, 2, 4, 0, 256>("stage 0 c16_t16x16_ph2_pw4, __launch_bounds__(256, 1)", s, 0);
    failures += check<16, 16, 16, 2, 4, 0, -1>("stage 0 c16_t16x16_ph2_pw4, no launch bounds", s, 0);
  }
  std::printf("\n%d of the checks above wrong\n", failures);
  return 0;
}
