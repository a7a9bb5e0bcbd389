#include "cuop/reference/conv_reference.hpp"

#include "cuop/reference/gemm_reference.hpp"

#include <cmath>

namespace cuop::reference {

namespace kc = kernels::conv;

void conv2d_reference_cpu(const kc::conv_shape& sh, const float* x, const float* w, double* y) {
  const long long P = sh.p(), Q = sh.q(), cg = sh.c / sh.groups, kg = sh.k / sh.groups;
  const bool nhwc = sh.lay == kc::layout::nhwc;
  const auto xi = [&](long long n, long long c, long long h, long long wi) {
    return nhwc ? ((n * sh.h + h) * sh.w + wi) * sh.c + c : ((n * sh.c + c) * sh.h + h) * sh.w + wi;
  };
  const auto yi = [&](long long n, long long k, long long p, long long q) {
    return nhwc ? ((n * P + p) * Q + q) * sh.k + k : ((n * sh.k + k) * P + p) * Q + q;
  };
  for (long long n = 0; n < sh.n; ++n)
    for (long long k = 0; k < sh.k; ++k) {
      const long long g = k / kg;
      for (long long p = 0; p < P; ++p)
        for (long long q = 0; q < Q; ++q) {
          double acc = 0;
          for (long long cc = 0; cc < cg; ++cc)
            for (long long r = 0; r < sh.r; ++r) {
              const long long h = p * sh.stride_h - sh.pad_h + r * sh.dil_h;
              if (h < 0 || h >= sh.h) continue;
              for (long long s = 0; s < sh.s; ++s) {
                const long long wi = q * sh.stride_w - sh.pad_w + s * sh.dil_w;
                if (wi < 0 || wi >= sh.w) continue;
                const long long wi_index =
                    nhwc ? ((k * sh.r + r) * sh.s + s) * cg + cc : ((k * cg + cc) * sh.r + r) * sh.s + s;
                acc += static_cast<double>(x[xi(n, g * cg + cc, h, wi)]) * static_cast<double>(w[wi_index]);
              }
            }
          y[yi(n, k, p, q)] = acc;
        }
    }
}

double conv_rtol(dtype t) { return gemm_rtol(t); }

double conv_atol(dtype t, const kc::conv_shape& sh) {
  const long long len = static_cast<long long>(sh.c / sh.groups) * sh.r * sh.s;
  const double f32 = gemm_atol(t, t, len > 2147483647ll ? 2147483647 : static_cast<int>(len));
  if (t != dtype::f32 || !sh.allow_tf32) return f32;
  // TF32 rounds each input to 10 mantissa bits (relative error <= 2^-11), so each product of
  // inputs in [-1, 1] is off by up to ~2^-10 with a random sign: the sum's error grows like
  // sqrt(len). Twice that, on top of the f32 accumulation bound, is far outside what a correct
  // TF32 kernel produces and far inside a wrong answer's error.
  return f32 + 2 * 0x1p-10 * std::sqrt(static_cast<double>(len));
}

}  // namespace cuop::reference
