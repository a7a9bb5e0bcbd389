// The kernels of FFT convolution around cuFFT (kernels.hpp): input tiles and the dilated filter
// into zero-padded f32 buffers, the frequency-domain product summed over channels, and the crop
// of each tile's valid outputs into y. Buffer layouts are fft_conv.hpp's (real[batch][lh][lw],
// spectra[batch][lh][lw / 2 + 1] as cuFFT's R2C writes them). Every kernel loops over its work
// with a grid-stride loop, so a grid never exceeds what a launch accepts.
#include "kernels.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>

namespace cuop::backends::fft_detail {

namespace {

namespace kc = kernels::conv;

constexpr long long max_blocks = 1 << 20;
constexpr int edge = 32;  // gather and crop transpose 32 x 32 tiles through shared memory
constexpr int rows = 8;   // with 32 x 8 threads
constexpr int filter_threads = 256;
constexpr int multiply_threads = 128;  // consecutive bins: loads and stores coalesce

// What the kernels need of the shape and the plan.
struct geometry {
  long long n, c, h, w, k, p, q;
  int r, s, dil_h, dil_w, pad_h, pad_w;
  int tile_h, tile_w, tiles_w, in_h, in_w, lh, lw;
  long long tiles;  // per image
  long long nt;     // n * tiles
};

geometry geometry_of(const kc::conv_shape& sh, const fft_conv_sizes& z) {
  geometry g{};
  g.n = sh.n, g.c = sh.c, g.h = sh.h, g.w = sh.w, g.k = sh.k, g.p = z.p, g.q = z.q;
  g.r = sh.r, g.s = sh.s, g.dil_h = sh.dil_h, g.dil_w = sh.dil_w, g.pad_h = sh.pad_h, g.pad_w = sh.pad_w;
  g.tile_h = z.tile_h, g.tile_w = z.tile_w, g.tiles_w = z.tiles_w, g.in_h = z.in_h, g.in_w = z.in_w;
  g.lh = z.lh, g.lw = z.lw;
  g.tiles = static_cast<long long>(z.tiles_h) * z.tiles_w;
  g.nt = g.n * g.tiles;
  return g;
}

unsigned grid_for(long long tasks) { return static_cast<unsigned>(std::clamp(tasks, 1ll, max_blocks)); }

__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T>
__device__ __forceinline__ T from_float(float v);
template <>
__device__ __forceinline__ float from_float<float>(float v) {
  return v;
}
template <>
__device__ __forceinline__ __half from_float<__half>(float v) {
  return __float2half_rn(v);
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}

// A task is one row i of one (n, tile)'s buffers, for 32 columns j and 32 channels c. NHWC reads
// along c and writes along j, so it turns the 32 x 32 block around in shared memory; NCHW reads
// and writes along j directly.
template <typename T, bool NHWC>
__global__ void __launch_bounds__(edge* rows)
    gather_kernel(geometry g, const T* __restrict__ x, float* __restrict__ real) {
  __shared__ float stage[edge][edge + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const long long jblocks = (g.lw + edge - 1) / edge, cblocks = (g.c + edge - 1) / edge;
  const long long tasks = g.nt * g.lh * jblocks * cblocks;
  const long long plane = static_cast<long long>(g.lh) * g.lw;
  for (long long task = blockIdx.x; task < tasks; task += gridDim.x) {
    const long long j0 = task % jblocks * edge;
    long long rest = task / jblocks;
    const long long c0 = rest % cblocks * edge;
    rest /= cblocks;
    const int i = static_cast<int>(rest % g.lh);
    const long long nt = rest / g.lh, n = nt / g.tiles, t = nt % g.tiles;
    const long long h = t / g.tiles_w * g.tile_h - g.pad_h + i;
    const long long w0 = t % g.tiles_w * g.tile_w - g.pad_w;  // the image column of patch column 0
    const bool row_in = i < g.in_h && h >= 0 && h < g.h;
    const auto value = [&](long long j, long long c) {
      const long long wc = w0 + j;
      if (!row_in || j >= g.in_w || wc < 0 || wc >= g.w || c >= g.c) return 0.f;
      return to_float(x[NHWC ? ((n * g.h + h) * g.w + wc) * g.c + c : ((n * g.c + c) * g.h + h) * g.w + wc]);
    };
    float* out = real + nt * g.c * plane + static_cast<long long>(i) * g.lw;  // + c * plane + j
    const long long j = j0 + tx;
    if constexpr (NHWC) {
      for (int jj = ty; jj < edge; jj += rows) stage[jj][tx] = value(j0 + jj, c0 + tx);
      __syncthreads();
      for (int cc = ty; cc < edge; cc += rows)
        if (c0 + cc < g.c && j < g.lw) out[(c0 + cc) * plane + j] = stage[tx][cc];
      __syncthreads();  // the next task refills stage
    } else {
      for (int cc = ty; cc < edge; cc += rows)
        if (c0 + cc < g.c && j < g.lw) out[(c0 + cc) * plane + j] = value(j, c0 + cc);
    }
  }
}

// One thread per buffer element: tap (r, s) lands at (r * dil_h, s * dil_w).
template <typename T, bool NHWC>
__global__ void __launch_bounds__(filter_threads)
    filter_kernel(geometry g, const T* __restrict__ w, float* __restrict__ real) {
  const long long plane = static_cast<long long>(g.lh) * g.lw, total = g.k * g.c * plane;
  for (long long e = blockIdx.x * static_cast<long long>(filter_threads) + threadIdx.x; e < total;
       e += static_cast<long long>(gridDim.x) * filter_threads) {
    const int j = static_cast<int>(e % g.lw), i = static_cast<int>(e / g.lw % g.lh);
    const long long kc = e / plane, c = kc % g.c, k = kc / g.c;
    float v = 0.f;
    if (i % g.dil_h == 0 && j % g.dil_w == 0) {
      const int r = i / g.dil_h, s = j / g.dil_w;
      if (r < g.r && s < g.s)
        v = to_float(w[NHWC ? ((k * g.r + r) * g.s + s) * g.c + c : ((k * g.c + c) * g.r + r) * g.s + s]);
    }
    real[e] = v;
  }
}

// A thread owns one bin of KB output channels for NB (n, tile) pairs: per channel c it loads KB
// filter and NB input values and does KB x NB complex products, so the filter spectrum is read
// once per NB images and the input once per KB channels. Y = X * conj(W): a correlation.
template <int KB, int NB>
__global__ void __launch_bounds__(multiply_threads)
    multiply_kernel(const float2* __restrict__ xs, const float2* __restrict__ ws, float2* __restrict__ ys,
                    long long bins, int channels, int outputs, long long nt) {
  const long long kblocks = (outputs + KB - 1) / KB, ntblocks = (nt + NB - 1) / NB;
  const long long fblocks = (bins + multiply_threads - 1) / multiply_threads;
  const long long tasks = kblocks * ntblocks * fblocks;
  const long long cstride = channels * bins;  // between consecutive k (in ws) or nt (in xs)
  for (long long task = blockIdx.x; task < tasks; task += gridDim.x) {
    // k-blocks fastest: blocks resident together share the x spectra of their images.
    const long long kblock = task % kblocks, rest = task / kblocks;
    const long long ntblock = rest % ntblocks, fblock = rest / ntblocks;
    const long long f = fblock * multiply_threads + threadIdx.x;
    if (f >= bins) continue;
    const int k0 = static_cast<int>(kblock * KB);
    const long long nt0 = ntblock * NB;
    // Past the last k or (n, tile), the last one is read again and its products not stored.
    const int klast = min(KB - 1, outputs - 1 - k0), ntlast = static_cast<int>(min(NB - 1ll, nt - 1 - nt0));
    const float2* wp = ws + k0 * cstride + f;
    const float2* xp = xs + nt0 * cstride + f;
    float2 acc[NB][KB];
#pragma unroll
    for (int a = 0; a < NB; ++a)
#pragma unroll
      for (int b = 0; b < KB; ++b) acc[a][b] = make_float2(0.f, 0.f);
        // Not unrolled: KB + NB independent loads per channel suffice, and unrolling made ptxas spill.
#pragma unroll 1
    for (int c = 0; c < channels; ++c, wp += bins, xp += bins) {
      float2 wv[KB], xv[NB];
#pragma unroll
      for (int b = 0; b < KB; ++b) wv[b] = wp[min(b, klast) * cstride];
#pragma unroll
      for (int a = 0; a < NB; ++a) xv[a] = xp[min(a, ntlast) * cstride];
#pragma unroll
      for (int a = 0; a < NB; ++a)
#pragma unroll
        for (int b = 0; b < KB; ++b) {
          acc[a][b].x = fmaf(xv[a].x, wv[b].x, fmaf(xv[a].y, wv[b].y, acc[a][b].x));
          acc[a][b].y = fmaf(xv[a].y, wv[b].x, fmaf(-xv[a].x, wv[b].y, acc[a][b].y));
        }
    }
#pragma unroll
    for (int a = 0; a < NB; ++a)
#pragma unroll
      for (int b = 0; b < KB; ++b)
        if (nt0 + a < nt && k0 + b < outputs) ys[((nt0 + a) * outputs + k0 + b) * bins + f] = acc[a][b];
  }
}

// Output (n, k, p, q) is element (p % tile_h, q % tile_w) of the C2R output of (n, its tile, k).
// NHWC writes along k and reads along q, so it turns 32 x 32 blocks around in shared memory; NCHW
// reads and writes along q with one thread per output.
template <typename T, bool NHWC>
__global__ void __launch_bounds__(edge* rows)
    crop_kernel(geometry g, const float* __restrict__ real, T* y, float scale, float beta) {
  __shared__ float stage[edge][edge + 1];
  const auto source = [&](long long n, long long k, long long p, long long q) {
    const long long th = p / g.tile_h, tw = q / g.tile_w;
    const long long nt = n * g.tiles + th * g.tiles_w + tw;
    return real[((nt * g.k + k) * g.lh + (p - th * g.tile_h)) * g.lw + (q - tw * g.tile_w)];
  };
  const auto store = [&](long long index, float v) {
    float out = scale * v;
    if (beta != 0.f) out = fmaf(beta, to_float(y[index]), out);  // y is not read when beta == 0
    y[index] = from_float<T>(out);
  };
  const int tx = threadIdx.x, ty = threadIdx.y;
  if constexpr (NHWC) {
    const long long kblocks = (g.k + edge - 1) / edge, qblocks = (g.q + edge - 1) / edge;
    const long long tasks = g.n * g.p * qblocks * kblocks;
    for (long long task = blockIdx.x; task < tasks; task += gridDim.x) {
      const long long k0 = task % kblocks * edge;
      long long rest = task / kblocks;
      const long long q0 = rest % qblocks * edge;
      rest /= qblocks;
      const long long p = rest % g.p, n = rest / g.p;
      for (int kk = ty; kk < edge; kk += rows)
        if (k0 + kk < g.k && q0 + tx < g.q) stage[kk][tx] = source(n, k0 + kk, p, q0 + tx);
      __syncthreads();
      for (int qq = ty; qq < edge; qq += rows)
        if (k0 + tx < g.k && q0 + qq < g.q) store(((n * g.p + p) * g.q + q0 + qq) * g.k + k0 + tx, stage[tx][qq]);
      __syncthreads();  // the next task refills stage
    }
  } else {
    const long long total = g.n * g.k * g.p * g.q, threads = edge * rows;
    for (long long e = blockIdx.x * threads + ty * edge + tx; e < total; e += gridDim.x * threads) {
      const long long q = e % g.q, p = e / g.q % g.p, nk = e / (g.q * g.p);
      store(e, source(nk / g.k, nk % g.k, p, q));
    }
  }
}

// Calls f with a value of the element type `t` names.
template <typename F>
cudaError_t by_dtype(dtype t, F&& f) {
  switch (t) {
    case dtype::f32: return f(float{});
    case dtype::f16: return f(__half{});
    case dtype::bf16: return f(__nv_bfloat16{});
  }
  return cudaErrorInvalidValue;
}

template <int KB>
cudaError_t multiply_kb(const geometry& g, long long bins, const float2* xs, const float2* ws, float2* ys,
                        cudaStream_t s) {
  // As many (n, tile) pairs per thread as there are, up to 4: with one image, no loads are wasted.
  const int nb = g.nt >= 4 ? 4 : (g.nt >= 2 ? 2 : 1);
  const long long tasks =
      (g.k + KB - 1) / KB * ((g.nt + nb - 1) / nb) * ((bins + multiply_threads - 1) / multiply_threads);
  const auto run = [&](auto kernel) {
    kernel<<<grid_for(tasks), multiply_threads, 0, s>>>(xs, ws, ys, bins, static_cast<int>(g.c), static_cast<int>(g.k),
                                                        g.nt);
    return cudaGetLastError();
  };
  if (nb == 4) return run(multiply_kernel<KB, 4>);
  if (nb == 2) return run(multiply_kernel<KB, 2>);
  return run(multiply_kernel<KB, 1>);
}

}  // namespace

cudaError_t gather_input(dtype t, const kc::conv_shape& sh, const fft_conv_sizes& z, const void* x, float* real,
                         cudaStream_t s) {
  const geometry g = geometry_of(sh, z);
  const long long tasks = g.nt * g.lh * ((g.lw + edge - 1) / edge) * ((g.c + edge - 1) / edge);
  const dim3 block(edge, rows);
  return by_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    if (sh.lay == kc::layout::nhwc)
      gather_kernel<T, true><<<grid_for(tasks), block, 0, s>>>(g, static_cast<const T*>(x), real);
    else gather_kernel<T, false><<<grid_for(tasks), block, 0, s>>>(g, static_cast<const T*>(x), real);
    return cudaGetLastError();
  });
}

cudaError_t pad_filter(dtype t, const kc::conv_shape& sh, const fft_conv_sizes& z, const void* w, float* real,
                       cudaStream_t s) {
  const geometry g = geometry_of(sh, z);
  const long long total = g.k * g.c * g.lh * g.lw;
  const unsigned grid = grid_for((total + filter_threads - 1) / filter_threads);
  return by_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    if (sh.lay == kc::layout::nhwc)
      filter_kernel<T, true><<<grid, filter_threads, 0, s>>>(g, static_cast<const T*>(w), real);
    else filter_kernel<T, false><<<grid, filter_threads, 0, s>>>(g, static_cast<const T*>(w), real);
    return cudaGetLastError();
  });
}

cudaError_t multiply_spectra(int kb, const kc::conv_shape& sh, const fft_conv_sizes& z, const float* xs,
                             const float* ws, float* ys, cudaStream_t s) {
  const geometry g = geometry_of(sh, z);
  const auto* x2 = reinterpret_cast<const float2*>(xs);
  const auto* w2 = reinterpret_cast<const float2*>(ws);
  auto* y2 = reinterpret_cast<float2*>(ys);
  switch (kb) {
    case 1: return multiply_kb<1>(g, z.bins, x2, w2, y2, s);
    case 2: return multiply_kb<2>(g, z.bins, x2, w2, y2, s);
    case 4: return multiply_kb<4>(g, z.bins, x2, w2, y2, s);
    case 8: return multiply_kb<8>(g, z.bins, x2, w2, y2, s);
  }
  return cudaErrorInvalidValue;
}

cudaError_t crop_output(dtype t, const kc::conv_shape& sh, const fft_conv_sizes& z, const float* real, void* y,
                        float alpha, float beta, cudaStream_t s) {
  const geometry g = geometry_of(sh, z);
  // cuFFT's inverse is unnormalized: it returns lh * lw times the circular correlation.
  const float scale = static_cast<float>(alpha / (static_cast<double>(g.lh) * g.lw));
  const dim3 block(edge, rows);
  const long long tasks = sh.lay == kc::layout::nhwc ? g.n * g.p * ((g.q + edge - 1) / edge) * ((g.k + edge - 1) / edge)
                                                     : (g.n * g.k * g.p * g.q + edge * rows - 1) / (edge * rows);
  return by_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    if (sh.lay == kc::layout::nhwc)
      crop_kernel<T, true><<<grid_for(tasks), block, 0, s>>>(g, real, static_cast<T*>(y), scale, beta);
    else crop_kernel<T, false><<<grid_for(tasks), block, 0, s>>>(g, real, static_cast<T*>(y), scale, beta);
    return cudaGetLastError();
  });
}

}  // namespace cuop::backends::fft_detail
