// Depthwise algorithm plane: NCHW on CUDA cores, along each channel's own plane. The other
// algorithms vectorize over channels, which NCHW keeps a plane apart; here a thread owns PH x PW
// outputs of one channel, PW adjacent along W, so that its input rows are contiguous floats in
// shared memory and its stores contiguous in the output.
//
//   grid   x: ceil(P / TILE_H) * ceil(Q / TILE_W) output tiles, y: ceil(C / BLOCK_C) channel
//          groups, z: N images (as the other CUDA-core algorithms)
//   block  BLOCK_C x (TILE_H / PH) x (TILE_W / PW) threads, a tile row's threads fastest, so that
//          a warp shares its channel (the taps are broadcast) where a plane has 32 threads or more
//   smem   depthwise_geometry.hpp's plane_geometry: the block's input patches as f32
//          [channel][row][row_pitch], zero in the padding, past the image and past C; then the
//          taps as f32 [channel][taps_pitch]
//
// The patch is staged in the order of its rows, so that a warp's loads are contiguous along W
// whatever the tile, several loads issued before their stores to keep more bytes in flight: as
// aligned 4-element vectors where W is a multiple of 4 and x is aligned to them (a vector's
// elements land in shared memory one by one, shifted by the patch's offset from the vector
// grid; vectors cut by the image's edge are read element by element), else element by element. A thread then walks the (PH - 1) * STRIDE + R input rows of its patch,
// reads each once as 16-byte vectors, and does S x PW multiply-adds per output row that the input
// row feeds. Rows run in a loop unrolled for filters up to 7 (which output rows a row feeds is
// then known at compile time), and not unrolled past that (the code would grow with R x S).
//
// Host side: names and launch plans in kernels/src/conv/family.cpp, validity in plane_config.cpp,
// shared memory and threads from the same plane_geometry. Accepted by nvcc and NVRTC alike: no host standard headers.
#pragma once

#include "cuop/kernels/common/elements.cuh"
#include "cuop/kernels/common/global_access.cuh"
#include "cuop/kernels/conv/args.cuh"
#include "cuop/kernels/conv/depthwise_geometry.hpp"

namespace cuop::kernels::conv {

template <typename T, int R, int S, int STRIDE, int BLOCK_C, int TILE_H, int TILE_W, int PH, int PW>
struct depthwise_plane {
  using elem = common::elem<T>;
  static constexpr plane_geometry geo = plane_geometry_of(R, S, STRIDE, BLOCK_C, TILE_H, TILE_W, PH, PW);
  static constexpr int block_threads = static_cast<int>(geo.block_threads);
  static constexpr int plane_threads = static_cast<int>(geo.plane_threads);
  static constexpr int segs = static_cast<int>(geo.segs);
  static constexpr int loads = static_cast<int>(geo.loads);
  static constexpr int row_pitch = static_cast<int>(geo.row_pitch);
  static constexpr int plane_words = static_cast<int>(geo.plane_words);
  static constexpr int taps_pitch = static_cast<int>(geo.taps_pitch);
  static constexpr int taps = R * S;
  static constexpr int in_rows = (PH - 1) * STRIDE + R;
  static constexpr int smem_bytes = static_cast<int>(geo.smem_bytes);
  static constexpr int min_blocks = static_cast<int>(plane_min_blocks(geo, default_smem_per_sm));

  static_assert(R >= 1 && S >= 1 && (STRIDE == 1 || STRIDE == 2), "filter >= 1, stride 1 or 2");
  static_assert(PH >= 1 && TILE_H % PH == 0 && PW >= 1 && TILE_W % PW == 0, "tiles multiples of ph and pw");
  static_assert(PW * STRIDE % 4 == 0, "a thread's first column on a 16-byte boundary");
  static_assert(block_threads >= 32 && block_threads <= 1024, "32 to 1024 threads");

  // Loads in flight per thread while staging: the element loads are narrow, and a block's
  // lifetime waits mostly on its staging (more than 8 costs registers, and spills at 5x5).
  static constexpr int batch = 8;

  static __device__ __forceinline__ void stage_taps(const conv_args& a, int c0, float* tap_rows) {
    const int tid = static_cast<int>(threadIdx.x);
    const T* w = static_cast<const T*>(a.w);
    for (int i = tid; i < BLOCK_C * taps; i += block_threads) {
      const int cc = i / taps, tap = i % taps, c = c0 + cc;
      tap_rows[cc * taps_pitch + tap] =
          c < a.c ? elem::to_float(common::load_elem(w + static_cast<long long>(c) * taps + tap)) : 0.f;
    }
  }

  // Vectors of 4 elements a patch row spans from the vector at or before its first column.
  static constexpr int row_vectors = (static_cast<int>(geo.patch_w) + 3 + 3) / 4;
  static constexpr int vec_batch = 4;

  // The patch as aligned vectors: W a multiple of 4 and x aligned to 4 elements, so every row
  // starts on a vector.
  static __device__ __forceinline__ void stage_vectors(const conv_args& a, int n, int c0, int ih0, int iw0,
                                                       float* planes) {
    const int tid = static_cast<int>(threadIdx.x);
    const T* x = static_cast<const T*>(a.x);
    const int g0 = (iw0 >> 2) * 4;  // the vector at or before the patch's first column (iw0 may be < 0)
    constexpr int per_plane = static_cast<int>(geo.patch_h) * row_vectors;
    constexpr int total = BLOCK_C * per_plane;
    for (int first = tid; first < total; first += vec_batch * block_threads) {
      float v[vec_batch][4];
#pragma unroll
      for (int b = 0; b < vec_batch; ++b) {
        const int i = first + b * block_threads;
        const int cc = i / per_plane, at = i % per_plane, row = at / row_vectors, g = g0 + at % row_vectors * 4;
        const int c = c0 + cc, ih = ih0 + row;
#pragma unroll
        for (int j = 0; j < 4; ++j) v[b][j] = 0.f;
        if (i >= total || c >= a.c || ih < 0 || ih >= a.h || g + 3 < 0 || g >= a.w_) continue;
        const T* src = x + ((static_cast<long long>(n) * a.c + c) * a.h + ih) * a.w_ + g;
        if (g >= 0 && g + 3 < a.w_) {
          common::packed<T, 4> p;
          common::load_vec<4 * static_cast<int>(sizeof(T))>(src, p.w);
#pragma unroll
          for (int j = 0; j < 4; ++j) v[b][j] = p.get(j);
        } else {
#pragma unroll
          for (int j = 0; j < 4; ++j)
            if (g + j >= 0 && g + j < a.w_) v[b][j] = elem::to_float(common::load_elem(src + j));
        }
      }
#pragma unroll
      for (int b = 0; b < vec_batch; ++b) {
        const int i = first + b * block_threads;
        if (i >= total) break;
        const int cc = i / per_plane, at = i % per_plane, row = at / row_vectors;
        const int col0 = g0 + at % row_vectors * 4 - iw0;
        float* dst = planes + cc * plane_words + row * row_pitch;
#pragma unroll
        for (int j = 0; j < 4; ++j)
          if (col0 + j >= 0 && col0 + j < geo.patch_w) dst[col0 + j] = v[b][j];
      }
    }
  }

  static __device__ __forceinline__ void stage(const conv_args& a, int n, int c0, int ih0, int iw0, float* planes,
                                               float* tap_rows) {
    stage_taps(a, c0, tap_rows);
    constexpr unsigned long long vector_bytes = 4 * sizeof(T);
    if (a.w_ % 4 == 0 && reinterpret_cast<unsigned long long>(a.x) % vector_bytes == 0) {
      stage_vectors(a, n, c0, ih0, iw0, planes);
      return;
    }
    const int tid = static_cast<int>(threadIdx.x);
    const T* x = static_cast<const T*>(a.x);
    constexpr int total = BLOCK_C * plane_words;
    for (int first = tid; first < total; first += batch * block_threads) {
      float v[batch];
#pragma unroll
      for (int b = 0; b < batch; ++b) {
        const int i = first + b * block_threads;
        const int cc = i / plane_words, at = i % plane_words, row = at / row_pitch, col = at % row_pitch;
        const int c = c0 + cc, ih = ih0 + row, iw = iw0 + col;
        v[b] = 0.f;
        if (i < total && c < a.c && col < geo.patch_w && ih >= 0 && ih < a.h && iw >= 0 && iw < a.w_)
          v[b] = elem::to_float(
              common::load_elem(x + ((static_cast<long long>(n) * a.c + c) * a.h + ih) * a.w_ + iw));
      }
#pragma unroll
      for (int b = 0; b < batch; ++b)
        if (first + b * block_threads < total) planes[first + b * block_threads] = v[b];
    }
  }

  // The input row's multiply-adds into the output rows it feeds.
  static __device__ __forceinline__ void feed(const float* row, const float* tap_rows, int i, float (&acc)[PH][PW]) {
    float in[4 * loads];
#pragma unroll
    for (int l = 0; l < loads; ++l) {
      const float4 q = reinterpret_cast<const float4*>(row)[l];
      in[4 * l] = q.x;
      in[4 * l + 1] = q.y;
      in[4 * l + 2] = q.z;
      in[4 * l + 3] = q.w;
    }
#pragma unroll
    for (int o = 0; o < PH; ++o) {
      const int r = i - o * STRIDE;
      if (r < 0 || r >= R) continue;
      const float* tap = tap_rows + r * S;
#pragma unroll
      for (int s = 0; s < S; ++s) {
        const float t = tap[s];
#pragma unroll
        for (int j = 0; j < PW; ++j) acc[o][j] = fmaf(in[j * STRIDE + s], t, acc[o][j]);
      }
    }
  }

  // PW outputs of one row from `at` on: alpha * acc + beta * y, one vector store where the row
  // holds them all and they are aligned to it, else one by one.
  static __device__ __forceinline__ void store_row(const conv_args& a, T* at, int count, const float (&acc)[PW]) {
    float o[PW];
#pragma unroll
    for (int j = 0; j < PW; ++j) o[j] = a.alpha * acc[j];
    constexpr int bytes = PW * static_cast<int>(sizeof(T));
    if constexpr (bytes == 4 || bytes == 8 || bytes == 16) {
      if (count == PW && a.beta == 0.f && reinterpret_cast<unsigned long long>(at) % bytes == 0) {
        common::packed<T, PW> p;
        p.set(o);
        common::store_vec<bytes>(at, p.w);
        return;
      }
    }
#pragma unroll
    for (int j = 0; j < PW; ++j) {
      if (j >= count) break;
      float v = o[j];
      if (a.beta != 0.f) v = fmaf(a.beta, elem::to_float(common::load_elem_coherent(at + j)), v);
      common::store_elem(at + j, elem::from_float(v));
    }
  }

  static __device__ void run(const conv_args& a, void* smem) {
    float* planes = static_cast<float*>(smem);
    float* tap_rows = planes + BLOCK_C * plane_words;
    const int tid = static_cast<int>(threadIdx.x);
    const int tiles_w = (a.q + TILE_W - 1) / TILE_W;
    const int n = static_cast<int>(blockIdx.z), c0 = static_cast<int>(blockIdx.y) * BLOCK_C;
    const int oh0 = static_cast<int>(blockIdx.x) / tiles_w * TILE_H, ow0 = static_cast<int>(blockIdx.x) % tiles_w * TILE_W;
    stage(a, n, c0, oh0 * STRIDE - a.pad_h, ow0 * STRIDE - a.pad_w, planes, tap_rows);
    __syncthreads();

    const int cc = tid / plane_threads, rest = tid % plane_threads, rt = rest / segs, seg = rest % segs;
    const float* patch = planes + cc * plane_words + rt * PH * STRIDE * row_pitch + seg * PW * STRIDE;
    const float* own_taps = tap_rows + cc * taps_pitch;
    float acc[PH][PW];
#pragma unroll
    for (int o = 0; o < PH; ++o)
#pragma unroll
      for (int j = 0; j < PW; ++j) acc[o][j] = 0.f;
    constexpr int unrolled = R <= 7 ? in_rows : 1;
#pragma unroll (unrolled)
    for (int i = 0; i < in_rows; ++i) feed(patch + i * row_pitch, own_taps, i, acc);

    const int c = c0 + cc, ow = ow0 + seg * PW;
    if (c >= a.c || ow >= a.q) return;
    T* y = static_cast<T*>(a.y);
    const int count = a.q - ow < PW ? a.q - ow : PW;
#pragma unroll
    for (int o = 0; o < PH; ++o) {
      const int oh = oh0 + rt * PH + o;
      if (oh >= a.p) break;
      store_row(a, y + ((static_cast<long long>(n) * a.k + c) * a.p + oh) * a.q + ow, count, acc[o]);
    }
  }
};

}  // namespace cuop::kernels::conv
