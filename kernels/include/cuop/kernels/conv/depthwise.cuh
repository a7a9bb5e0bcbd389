// Conv family depthwise: groups == C == K (one filter per channel), NHWC or NCHW, f32 / f16 /
// bf16 in and out, f32 accumulation on CUDA cores, R x S filters fixed at compile time (odd sizes
// 3..31 are the ones swept), stride 1 or 2, any padding, dilation 1.
//
//   grid   x: ceil(P / TILE_H) * ceil(Q / TILE_W) output tiles, y: ceil(C / BLOCK_C) channel
//          groups, z: N images
//   block  c_threads x (TILE_H / PH) x (TILE_W / PW) threads, channel-thread fastest. A thread owns
//          a PH x PW patch of outputs (PH adjacent rows, PW adjacent columns) for CPT = VEC x CVECS
//          channels: CVECS groups of VEC adjacent channels, group k of channel-thread cv being
//          group cv + k * c_threads of the block (so that adjacent lanes read adjacent channels).
//          Its accumulators are acc[PH][PW][CPT] floats.
//   smem   filt   the block's filter as f32, [R * S][BLOCK_C] (tap-major), zero past C;
//          region one of, by phase:
//                 the filter as it lies in global memory, [BLOCK_C][R * S] of T (staging only:
//                   a coalesced copy, then transposed into filt);
//                 smem and smem_f32: the input patch of the tile with its halo, zero in the padding and
//                   past C: [(TILE_H - 1) * STRIDE + R][(TILE_W - 1) * STRIDE + S] pixels of
//                   BLOCK_C channels, as T (smem) or already converted to f32 (smem_f32);
//                 NCHW: the output tile as f32, [TILE_H * TILE_W][BLOCK_C + 4], so that the
//                   stores are coalesced along W.
//          Within a pixel, channels are in 16-byte chunks. When one group is larger than a chunk
//          (f16 / bf16 with VEC 8 staged as f32) its chunks are stored [part][group], so that the
//          lanes of a warp always read consecutive chunks (no bank conflicts when c_threads times
//          the bytes a lane reads is at least 128). NCHW pads every pixel by one chunk, so that
//          the staging writes (and output reads) of consecutive pixels fall in different banks.
//
// The compute loop is FMA-bound by design: inputs and taps are converted to float once (taps and,
// with smem_f32, inputs while staging; with direct or smem inputs when a thread loads them), never
// per multiply-add. A thread walks the (PH - 1) * STRIDE + R input rows of its patch; for each it
// loads the (PW - 1) * STRIDE + S input columns once (as they are first needed, S unrolled), and
// for each of its PH output rows that the input row feeds (tap row r = row - i * STRIDE in
// [0, R)) does S x PW x CPT multiply-adds with the taps of row r, read from shared memory as f32.
// Rows where every output row has a tap row run in a runtime loop; the few rows at both ends are
// unrolled so that which output rows they feed is known at compile time (no branches, no wasted
// multiply-adds), with a warp fence between them so that ptxas does not hoist their loads.
//
// Per input row a thread issues PH * S * PW * CPT FMAs against (PW - 1) * STRIDE + S input and
// PH * S tap reads of CPT channels, so shared memory (128 bytes a clock per SM, i.e. one register
// per lane a clock per warp) keeps up with the FMA pipes when pw is large (taps are reused pw
// times) and ph > 1 (inputs are reused by ph output rows); e.g. ph 4 x pw 8 x 4 channels issues
// 896 FMAs per 42 16-byte reads (7x7).
//
// With direct (NHWC only) inputs are read from global memory through L1, zero outside the
// image. Channels past C and outputs past P x Q are computed on zeros and never stored. Vector
// loads (16 bytes when staging, VEC elements otherwise) and vector stores of VEC elements need C a
// multiple of the vector and the tensor aligned to it: the kernel checks both at run time and
// otherwise takes element accesses. Host side: names, validity, shared memory and launch plans in
// kernels/src/conv/family.cpp (keep both in step).
//
// Accepted by nvcc and NVRTC alike: no host standard headers.
// size-limit: the CUDA-core algorithms (direct, smem, smem_f32) share one tile loop and its helpers; moving code out changes the family's source hash (stale results)
#pragma once

#include "cuop/kernels/common/elements.cuh"
#include "cuop/kernels/conv/args.cuh"
#include "cuop/kernels/conv/depthwise_algo.hpp"
#include "cuop/kernels/conv/depthwise_mma.cuh"
#include "cuop/kernels/conv/depthwise_plane.cuh"
#include "cuop/kernels/conv/depthwise_seg.cuh"

namespace cuop::kernels::conv {

namespace depthwise_detail {

using common::elem;

template <bool B, typename X, typename Y> struct pick { using type = X; };
template <typename X, typename Y> struct pick<false, X, Y> { using type = Y; };

// A vector of BYTES bytes, aligned to its size: one load or store instruction.
template <int BYTES> struct raw;
template <> struct raw<16> { using type = uint4; };
template <> struct raw<8> { using type = uint2; };
template <> struct raw<4> { using type = unsigned; };
template <> struct raw<2> { using type = unsigned short; };

__device__ __forceinline__ void words_of(const uint4& v, unsigned* w) { w[0] = v.x; w[1] = v.y; w[2] = v.z; w[3] = v.w; }
__device__ __forceinline__ void words_of(const uint2& v, unsigned* w) { w[0] = v.x; w[1] = v.y; }
__device__ __forceinline__ void words_of(unsigned v, unsigned* w) { w[0] = v; }
__device__ __forceinline__ void words_of(unsigned short v, unsigned* w) { w[0] = v; }
__device__ __forceinline__ void from_words(const unsigned* w, uint4& v) { v = make_uint4(w[0], w[1], w[2], w[3]); }
__device__ __forceinline__ void from_words(const unsigned* w, uint2& v) { v = make_uint2(w[0], w[1]); }
__device__ __forceinline__ void from_words(const unsigned* w, unsigned& v) { v = w[0]; }
__device__ __forceinline__ void from_words(const unsigned* w, unsigned short& v) { v = static_cast<unsigned short>(w[0]); }

template <typename T>
__device__ __forceinline__ unsigned load_bits(const T* p) {
  if constexpr (sizeof(T) == 4) return *reinterpret_cast<const unsigned*>(p);
  else return *reinterpret_cast<const unsigned short*>(p);
}

template <typename T>
__device__ __forceinline__ void store_bits(T* p, unsigned b) {
  if constexpr (sizeof(T) == 4) *reinterpret_cast<unsigned*>(p) = b;
  else *reinterpret_cast<unsigned short*>(p) = static_cast<unsigned short>(b);
}

// The two 16-bit elements of a word as floats (f16: two conversions; bf16: two bit operations).
template <typename T>
__device__ __forceinline__ void word_to_floats(unsigned w, float& lo, float& hi) {
  if constexpr (common::is_bf16<T>) {
    lo = __uint_as_float(w << 16);
    hi = __uint_as_float(w & 0xffff0000u);
  } else {
    const float2 f = __half22float2(*reinterpret_cast<const __half2*>(&w));
    lo = f.x;
    hi = f.y;
  }
}

// N elements of T (float included) at p, aligned to N * sizeof(T) bytes, as floats in out[0..N).
template <typename T, int N>
__device__ __forceinline__ void load_floats(const T* p, float* out) {
  if constexpr (sizeof(T) == 4) {
    if constexpr (N == 4) {
      const float4 v = *reinterpret_cast<const float4*>(p);
      out[0] = v.x; out[1] = v.y; out[2] = v.z; out[3] = v.w;
    } else if constexpr (N == 2) {
      const float2 v = *reinterpret_cast<const float2*>(p);
      out[0] = v.x; out[1] = v.y;
    } else {
      static_assert(N == 1, "1, 2 or 4 floats");
      out[0] = __uint_as_float(*reinterpret_cast<const unsigned*>(p));
    }
  } else {
    using V = typename raw<N * 2>::type;
    unsigned w[N >= 2 ? N / 2 : 1];
    words_of(*reinterpret_cast<const V*>(p), w);
    if constexpr (N == 1) {
      out[0] = elem<T>::to_float(w[0]);
    } else {
#pragma unroll
      for (int i = 0; i < N / 2; ++i) word_to_floats<T>(w[i], out[2 * i], out[2 * i + 1]);
    }
  }
}

// in[0..N) converted to T and stored at p, aligned to N * sizeof(T) bytes.
template <typename T, int N>
__device__ __forceinline__ void store_floats(T* p, const float* in) {
  if constexpr (sizeof(T) == 4) {
    if constexpr (N == 4) *reinterpret_cast<float4*>(p) = make_float4(in[0], in[1], in[2], in[3]);
    else if constexpr (N == 2) *reinterpret_cast<float2*>(p) = make_float2(in[0], in[1]);
    else *reinterpret_cast<float*>(p) = in[0];
  } else if constexpr (N == 1) {
    store_bits(p, elem<T>::from_float(in[0]));
  } else {
    using V = typename raw<N * 2>::type;
    unsigned w[N / 2];
#pragma unroll
    for (int i = 0; i < N / 2; ++i) w[i] = elem<T>::pack2(in[2 * i], in[2 * i + 1]);
    V v;
    from_words(w, v);
    *reinterpret_cast<V*>(p) = v;
  }
}

}  // namespace depthwise_detail

template <typename T, bool NHWC, int R, int S, int STRIDE, int VEC, int CVECS, int BLOCK_C,
          int TILE_H, int TILE_W, int PH, int PW, depthwise_algo ALGO>
struct depthwise {
  // Element type of the staged input patch.
  using xs_t = typename depthwise_detail::pick<ALGO == depthwise_algo::smem_f32, float, T>::type;
  template <typename U>
  using elem = common::elem<U>;

  static constexpr int tsize = static_cast<int>(sizeof(T));
  static constexpr int xsize = static_cast<int>(sizeof(xs_t));
  static constexpr int cpt = VEC * CVECS;            // channels per thread
  static constexpr int c_threads = BLOCK_C / cpt;    // threads across the block's channels
  static constexpr int groups = BLOCK_C / VEC;       // groups of VEC channels in the block
  static constexpr int rows_t = TILE_H / PH;         // threads down the tile
  static constexpr int segs = TILE_W / PW;           // threads across the tile
  static constexpr int block_threads = c_threads * rows_t * segs;
  static constexpr int in_rows = (PH - 1) * STRIDE + R;  // input rows of a thread's patch
  static constexpr int in_cols = (PW - 1) * STRIDE + S;  // input columns of a thread's patch
  static constexpr int patch_h = (TILE_H - 1) * STRIDE + R;
  static constexpr int patch_w = (TILE_W - 1) * STRIDE + S;
  static constexpr int gvec = 16 / tsize;            // elements of a 16-byte global access
  static constexpr int x_ec = 16 / xsize;            // patch elements per 16-byte chunk
  static constexpr int pix_stride = BLOCK_C + (NHWC ? 0 : x_ec);  // patch elements per pixel
  static constexpr int out_stride = BLOCK_C + 4;     // NCHW output tile: floats per pixel
  static constexpr int taps = R * S;
  static constexpr int filter_bytes = taps * BLOCK_C * 4;
  static constexpr int raw_filter_bytes = taps * BLOCK_C * tsize;
  static constexpr int patch_bytes = ALGO != depthwise_algo::direct ? patch_h * patch_w * pix_stride * xsize : 0;
  static constexpr int out_bytes = NHWC ? 0 : TILE_H * TILE_W * out_stride * 4;
  static constexpr int region_bytes =
      raw_filter_bytes > patch_bytes ? (raw_filter_bytes > out_bytes ? raw_filter_bytes : out_bytes)
                                     : (patch_bytes > out_bytes ? patch_bytes : out_bytes);
  // Dynamic shared memory of a launch (kernels/src/conv/family.cpp computes the same), and the
  // __launch_bounds__ minimum of blocks per SM: 1, all registers to one block (more spill).
  static constexpr int smem_bytes = filter_bytes + region_bytes;
  static constexpr int min_blocks = 1;

  static_assert(R >= 1 && S >= 1 && (STRIDE == 1 || STRIDE == 2), "filter >= 1, stride 1 or 2");
  static_assert(VEC * sizeof(T) == 2 || VEC * sizeof(T) == 4 || VEC * sizeof(T) == 8 ||
                    VEC * sizeof(T) == 16,
                "a vector is 2, 4, 8 or 16 bytes");
  static_assert(CVECS >= 1 && BLOCK_C % cpt == 0, "block_c a multiple of the channels per thread");
  static_assert(BLOCK_C * sizeof(T) % 16 == 0, "block_c a multiple of 16 bytes");
  static_assert(PH >= 1 && TILE_H % PH == 0, "tile_h a multiple of ph");
  static_assert(PW >= 1 && TILE_W % PW == 0, "tile_w a multiple of pw");
  static_assert(block_threads >= 32 && block_threads <= 1024, "32 to 1024 threads");
  static_assert(ALGO == depthwise_algo::direct || ALGO == depthwise_algo::smem || ALGO == depthwise_algo::smem_f32,
                "direct, smem or smem_f32 (mma, mma_tma, mma_seg and plane: the specializations below)");
  static_assert(NHWC || ALGO != depthwise_algo::direct, "NCHW reads its input through the staged patch");

  // Where channel cc of the block lies within a pixel of elements of ES bytes (see smem above).
  template <int ES>
  static constexpr int parts = VEC * ES > 16 ? VEC * ES / 16 : 1;  // 16-byte chunks of a group
  template <int ES>
  static __device__ __forceinline__ constexpr int offset(int cc) {
    if constexpr (parts<ES> > 1) {
      constexpr int ec = 16 / ES;
      return (((cc % VEC) / ec) * groups + cc / VEC) * ec + cc % ec;
    } else {
      return cc;
    }
  }
  // The first channel of the chunk at position m (inverse of offset for chunk starts).
  template <int ES>
  static __device__ __forceinline__ constexpr int chunk_channel(int m) {
    constexpr int ec = 16 / ES;
    if constexpr (parts<ES> > 1) return (m % groups) * VEC + (m / groups) * ec;
    else return m * ec;
  }

  struct tile_t {
    int n, c0, oh0, ow0;  // image, first channel, first output row and column
    int ih0, iw0;         // input row and column of patch element (0, 0)
  };

  static __device__ __forceinline__ long long x_index(const conv_args& a, int n, int c, int ih, int iw) {
    return NHWC ? ((static_cast<long long>(n) * a.h + ih) * a.w_ + iw) * a.c + c
                : ((static_cast<long long>(n) * a.c + c) * a.h + ih) * a.w_ + iw;
  }
  static __device__ __forceinline__ long long y_index(const conv_args& a, int n, int c, int oh, int ow) {
    return NHWC ? ((static_cast<long long>(n) * a.p + oh) * a.q + ow) * a.k + c
                : ((static_cast<long long>(n) * a.k + c) * a.p + oh) * a.q + ow;
  }

  // ---- staging ------------------------------------------------------------------------------

  // The filter of channels [c0, c0 + BLOCK_C) into filt as f32 [tap][channel], zero past C: a
  // coalesced copy of the contiguous [channel][tap] slice into `tmp`, then a transpose whose reads
  // (a tap of consecutive channels, R * S apart) and writes (consecutive channels) are bank-friendly.
  static __device__ __forceinline__ void stage_filter(const conv_args& a, int c0, float* filt, T* tmp) {
    const int tid = static_cast<int>(threadIdx.x);
    const int nc = a.c - c0 < BLOCK_C ? a.c - c0 : BLOCK_C;
    const int count = nc * taps;
    const T* w = static_cast<const T*>(a.w) + static_cast<long long>(c0) * taps;
    int done = 0;
    // c0 * sizeof(T) is a multiple of 16, so the slice is aligned when the filter is.
    if ((reinterpret_cast<unsigned long long>(w) & 15ull) == 0) {
      done = count / gvec * gvec;
#pragma unroll 4
      for (int v = tid; v < count / gvec; v += block_threads)
        reinterpret_cast<uint4*>(tmp)[v] = reinterpret_cast<const uint4*>(w)[v];
    }
    for (int i = done + tid; i < count; i += block_threads)
      depthwise_detail::store_bits(tmp + i, depthwise_detail::load_bits(w + i));
    __syncthreads();
#pragma unroll 4
    for (int i = tid; i < taps * BLOCK_C; i += block_threads) {
      const int cc = i % BLOCK_C, tap = i / BLOCK_C;
      filt[tap * BLOCK_C + offset<4>(cc)] =
          cc < nc ? elem<T>::to_float(depthwise_detail::load_bits(tmp + cc * taps + tap)) : 0.f;
    }
  }

  // The input patch into `patch`, zero in the padding and past C.
  static __device__ __forceinline__ void stage_patch(const conv_args& a, const tile_t& t, xs_t* patch) {
    const T* x = static_cast<const T*>(a.x);
    const int tid = static_cast<int>(threadIdx.x);
    if constexpr (NHWC) {
      // 16-byte vectors of channels fastest: a warp reads contiguous channels of a pixel, then the
      // next pixel; consecutive lanes write consecutive chunks.
      constexpr int cv = BLOCK_C / gvec;
      const bool vec_ok = a.c % gvec == 0 && (reinterpret_cast<unsigned long long>(x) & 15ull) == 0;
#pragma unroll 2
      for (int i = tid; i < patch_h * patch_w * cv; i += block_threads) {
        const int v = i % cv, pix = i / cv, col = pix % patch_w, row = pix / patch_w;
        const int ih = t.ih0 + row, iw = t.iw0 + col, c = t.c0 + v * gvec;
        unsigned w[4] = {0u, 0u, 0u, 0u};
        if (ih >= 0 && ih < a.h && iw >= 0 && iw < a.w_) {
          const T* src = x + x_index(a, t.n, c, ih, iw);
          if (vec_ok && c < a.c) {
            depthwise_detail::words_of(*reinterpret_cast<const uint4*>(src), w);
          } else {
#pragma unroll
            for (int e = 0; e < gvec; ++e)
              if (c + e < a.c) {
                const unsigned b = depthwise_detail::load_bits(src + e);
                if constexpr (sizeof(T) == 4) w[e] = b;
                else w[e / 2] |= b << (16 * (e % 2));
              }
          }
        }
        xs_t* dst = patch + pix * pix_stride;
        if constexpr (sizeof(xs_t) == sizeof(T)) {
          // Same type: one chunk, stored as loaded (parts<tsize> == 1: channels in order).
          *reinterpret_cast<uint4*>(dst + v * gvec) = make_uint4(w[0], w[1], w[2], w[3]);
        } else {
          // 16-bit input staged as f32: two chunks of four channels.
          float f[8];
#pragma unroll
          for (int q = 0; q < 4; ++q) depthwise_detail::word_to_floats<T>(w[q], f[2 * q], f[2 * q + 1]);
#pragma unroll
          for (int q = 0; q < 2; ++q)
            *reinterpret_cast<float4*>(dst + offset<4>(v * gvec + 4 * q)) =
                make_float4(f[4 * q], f[4 * q + 1], f[4 * q + 2], f[4 * q + 3]);
        }
      }
    } else {
      // Pixels fastest: each warp load reads contiguous pixels of one channel row; a thread
      // gathers one chunk of x_ec channels and writes it whole (padded pixels: no bank conflicts).
      constexpr int chunks = BLOCK_C / x_ec;
#pragma unroll 2
      for (int i = tid; i < patch_h * patch_w * chunks; i += block_threads) {
        const int pix = i % (patch_h * patch_w), m = i / (patch_h * patch_w);
        const int col = pix % patch_w, row = pix / patch_w;
        const int ih = t.ih0 + row, iw = t.iw0 + col, c = t.c0 + chunk_channel<xsize>(m);
        const bool inside = ih >= 0 && ih < a.h && iw >= 0 && iw < a.w_;
        const T* src = x + x_index(a, t.n, c, inside ? ih : 0, inside ? iw : 0);
        const long long plane = static_cast<long long>(a.h) * a.w_;
        xs_t* dst = patch + pix * pix_stride + m * x_ec;
        if constexpr (sizeof(xs_t) == 4) {
          float f[4];
#pragma unroll
          for (int e = 0; e < 4; ++e)
            f[e] = inside && c + e < a.c ? elem<T>::to_float(depthwise_detail::load_bits(src + e * plane)) : 0.f;
          *reinterpret_cast<float4*>(dst) = make_float4(f[0], f[1], f[2], f[3]);
        } else {
          unsigned w[4] = {0u, 0u, 0u, 0u};
#pragma unroll
          for (int e = 0; e < 8; ++e)
            if (inside && c + e < a.c) w[e / 2] |= depthwise_detail::load_bits(src + e * plane) << (16 * (e % 2));
          *reinterpret_cast<uint4*>(dst) = make_uint4(w[0], w[1], w[2], w[3]);
        }
      }
    }
  }

  // ---- compute ------------------------------------------------------------------------------

  // Inputs from the staged patch. `base` points at the thread's patch pixel (0, 0) and its first
  // channel; a column of the thread's patch is CPT floats.
  struct smem_source {
    const xs_t* base;
    const xs_t* row;
    __device__ __forceinline__ void set_row(int ir) { row = base + ir * (patch_w * pix_stride); }
    __device__ __forceinline__ void load(int col, float (&x)[cpt]) const {
      constexpr int pe = VEC / parts<xsize>;  // elements per read
#pragma unroll
      for (int k = 0; k < CVECS; ++k)
#pragma unroll
        for (int h = 0; h < parts<xsize>; ++h)
          depthwise_detail::load_floats<xs_t, pe>(
              row + col * pix_stride + offset<xsize>(k * c_threads * VEC + h * pe), &x[k * VEC + h * pe]);
    }
  };

  // Inputs from global memory through L1 (NHWC), zero outside the image and past C. VECOK: C is a
  // multiple of VEC and x is aligned to VEC elements. Columns [lo, hi) of the thread's patch lie
  // in the image (hi_row: 0 when the row does not).
  template <bool VECOK>
  struct global_source {
    const T* x;        // the thread's first channel of image n
    int c;             // the thread's first channel
    int ih0, iw0;      // input row and column of the thread's patch element (0, 0)
    int h, w, channels;
    int lo, hi;
    const T* row;
    int hi_row;
    __device__ __forceinline__ void init(const T* x_, int c_, int ih0_, int iw0_, const conv_args& a) {
      x = x_;
      c = c_;
      ih0 = ih0_;
      iw0 = iw0_;
      h = a.h;
      w = a.w_;
      channels = a.c;
      lo = iw0 < 0 ? -iw0 : 0;
      hi = a.w_ - iw0 < in_cols ? a.w_ - iw0 : in_cols;
      row = x;
      hi_row = 0;
    }
    __device__ __forceinline__ void set_row(int ir) {
      const int ih = ih0 + ir;
      const bool ok = ih >= 0 && ih < h;
      hi_row = ok ? hi : 0;
      row = x + (static_cast<long long>(ok ? ih : 0) * w + iw0) * channels;
    }
    __device__ __forceinline__ void load(int col, float (&out)[cpt]) const {
      const bool ok = col >= lo && col < hi_row;
      const T* p = row + col * channels;  // within one image row: 32-bit
#pragma unroll
      for (int k = 0; k < CVECS; ++k) {
        const int ck = c + k * c_threads * VEC;
        float* o = &out[k * VEC];
        if constexpr (VECOK) {
          if (ok && ck < channels) {
            depthwise_detail::load_floats<T, VEC>(p + k * c_threads * VEC, o);
          } else {
#pragma unroll
            for (int e = 0; e < VEC; ++e) o[e] = 0.f;
          }
        } else {
#pragma unroll
          for (int e = 0; e < VEC; ++e)
            o[e] = ok && ck + e < channels
                       ? elem<T>::to_float(depthwise_detail::load_bits(p + k * c_threads * VEC + e))
                       : 0.f;
        }
      }
    }
  };

  // The taps (f32) of one tap row and column for the thread's channels.
  static __device__ __forceinline__ void load_taps(const float* p, float (&w)[cpt]) {
    constexpr int pe = VEC / parts<4>;
#pragma unroll
    for (int k = 0; k < CVECS; ++k)
#pragma unroll
      for (int h = 0; h < parts<4>; ++h)
        depthwise_detail::load_floats<float, pe>(p + offset<4>(k * c_threads * VEC + h * pe), &w[k * VEC + h * pe]);
  }

  // Input row `ir` of the thread's patch into every output row it feeds. GUARD: some output rows
  // have no tap row here (the first and last (PH - 1) * STRIDE rows; ir is then a constant).
  template <bool GUARD, typename SRC>
  static __device__ __forceinline__ void row(SRC& src, const float* filt_t, int ir, float (&acc)[PH][PW][cpt]) {
    src.set_row(ir);
    bool feeds[PH];
    const float* wrow[PH];
#pragma unroll
    for (int i = 0; i < PH; ++i) {
      const int r = ir - i * STRIDE;
      feeds[i] = !GUARD || (r >= 0 && r < R);
      wrow[i] = filt_t + (feeds[i] ? r : 0) * (S * BLOCK_C);  // no pointer outside the filter
    }
    float x[in_cols][cpt];
#pragma unroll
    for (int col = 0; col < (PW - 1) * STRIDE; ++col) src.load(col, x[col]);
#pragma unroll
    for (int s = 0; s < S; ++s) {
      src.load(s + (PW - 1) * STRIDE, x[s + (PW - 1) * STRIDE]);
#pragma unroll
      for (int i = 0; i < PH; ++i) {
        if (!feeds[i]) continue;
        float w[cpt];
        load_taps(wrow[i] + s * BLOCK_C, w);
#pragma unroll
        for (int j = 0; j < PW; ++j)
#pragma unroll
          for (int e = 0; e < cpt; ++e) acc[i][j][e] = fmaf(x[j * STRIDE + s][e], w[e], acc[i][j][e]);
      }
    }
  }

  // A fence between unrolled rows: without it ptxas hoists the loads of later rows and runs out
  // of registers (bar.warp.sync; a NOP in SASS when the warp is whole).
  static __device__ __forceinline__ void row_fence() {
    if constexpr (block_threads % 32 == 0) __syncwarp();
    else __syncwarp(__activemask());
  }

  template <typename SRC>
  static __device__ __forceinline__ void compute(SRC& src, const float* filt_t, float (&acc)[PH][PW][cpt]) {
    constexpr int warm = (PH - 1) * STRIDE;  // rows [warm, R) feed every output row
    if constexpr (warm >= R) {
#pragma unroll
      for (int ir = 0; ir < in_rows; ++ir) {
        row<true>(src, filt_t, ir, acc);
        row_fence();
      }
    } else {
#pragma unroll
      for (int ir = 0; ir < warm; ++ir) {
        row<true>(src, filt_t, ir, acc);
        row_fence();
      }
#pragma unroll 1
      for (int ir = warm; ir < R; ++ir) row<false>(src, filt_t, ir, acc);
      // The rows after the loop take their taps through an offset NVVM cannot see, so that it
      // cannot rebuild their addresses from the loop's induction variables. At -O3 it did, one
      // tap row too far, in direct at ph 2 (31x31 at 64 and 128 threads, 5x5 and 7x7 at 64 to
      // 256): the last input row read tap row R, past the filter (docs/conv.md, "Limits").
      int zero = 0;
      asm("" : "+r"(zero));
      const float* filt_tail = filt_t + zero;
#pragma unroll
      for (int ir = R; ir < in_rows; ++ir) {
        row_fence();
        row<true>(src, filt_tail, ir, acc);
      }
    }
  }

  // ---- epilogue -----------------------------------------------------------------------------

  // NHWC: y = alpha * acc + beta * y straight from registers, VEC channels per store.
  static __device__ __forceinline__ void store_nhwc(const conv_args& a, const tile_t& t, int cv, int rt, int seg,
                                                    const float (&acc)[PH][PW][cpt]) {
    T* y = static_cast<T*>(a.y);
    const bool vec_ok = a.c % VEC == 0 && (reinterpret_cast<unsigned long long>(y) % (VEC * sizeof(T))) == 0;
#pragma unroll
    for (int i = 0; i < PH; ++i) {
      const int oh = t.oh0 + rt * PH + i;
      if (oh >= a.p) break;
#pragma unroll
      for (int j = 0; j < PW; ++j) {
        const int ow = t.ow0 + seg * PW + j;
        if (ow >= a.q) break;
#pragma unroll
        for (int k = 0; k < CVECS; ++k) {
          const int c = t.c0 + (cv + k * c_threads) * VEC;
          if (c >= a.c) break;
          T* dst = y + y_index(a, t.n, c, oh, ow);
          float v[VEC];
#pragma unroll
          for (int e = 0; e < VEC; ++e) v[e] = a.alpha * acc[i][j][k * VEC + e];
          if (vec_ok) {
            if (a.beta != 0.f) {
              float old[VEC];
              depthwise_detail::load_floats<T, VEC>(dst, old);
#pragma unroll
              for (int e = 0; e < VEC; ++e) v[e] = fmaf(a.beta, old[e], v[e]);
            }
            depthwise_detail::store_floats<T, VEC>(dst, v);
          } else {
#pragma unroll
            for (int e = 0; e < VEC; ++e) {
              if (c + e >= a.c) break;
              float o = v[e];
              if (a.beta != 0.f) o = fmaf(a.beta, elem<T>::to_float(depthwise_detail::load_bits(dst + e)), o);
              depthwise_detail::store_bits(dst + e, elem<T>::from_float(o));
            }
          }
        }
      }
    }
  }

  // NCHW: the tile goes through shared memory, [pixel][channel] as f32, then out along W.
  static __device__ __forceinline__ void store_nchw(const conv_args& a, const tile_t& t, int cv, int rt, int seg,
                                                    const float (&acc)[PH][PW][cpt], float* out) {
    constexpr int pe = VEC / parts<4>;
    __syncthreads();  // every thread is done with the patch
#pragma unroll
    for (int i = 0; i < PH; ++i)
#pragma unroll
      for (int j = 0; j < PW; ++j) {
        float* dst = out + ((rt * PH + i) * TILE_W + seg * PW + j) * out_stride + offset<4>(cv * VEC);
#pragma unroll
        for (int k = 0; k < CVECS; ++k)
#pragma unroll
          for (int h = 0; h < parts<4>; ++h) {
            const float* v = &acc[i][j][k * VEC + h * pe];
            float* d = dst + offset<4>(k * c_threads * VEC + h * pe);
            if constexpr (pe == 4) *reinterpret_cast<float4*>(d) = make_float4(v[0], v[1], v[2], v[3]);
            else if constexpr (pe == 2) *reinterpret_cast<float2*>(d) = make_float2(v[0], v[1]);
            else d[0] = v[0];
          }
      }
    __syncthreads();
    T* y = static_cast<T*>(a.y);
    constexpr int chunks = BLOCK_C / 4;
    for (int i = static_cast<int>(threadIdx.x); i < TILE_H * TILE_W * chunks; i += block_threads) {
      const int pix = i % (TILE_H * TILE_W), m = i / (TILE_H * TILE_W);
      const int oh = t.oh0 + pix / TILE_W, ow = t.ow0 + pix % TILE_W, c = t.c0 + chunk_channel<4>(m);
      if (oh >= a.p || ow >= a.q) continue;
      const float4 v = *reinterpret_cast<const float4*>(out + pix * out_stride + m * 4);
      const float f[4] = {v.x, v.y, v.z, v.w};
      T* dst = y + y_index(a, t.n, c, oh, ow);
      const long long plane = static_cast<long long>(a.p) * a.q;
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        if (c + e >= a.c) break;
        float o = a.alpha * f[e];
        if (a.beta != 0.f) o = fmaf(a.beta, elem<T>::to_float(depthwise_detail::load_bits(dst + e * plane)), o);
        depthwise_detail::store_bits(dst + e * plane, elem<T>::from_float(o));
      }
    }
  }

  static __device__ void run(const conv_args& a, void* smem) {
    float* filt = static_cast<float*>(smem);
    unsigned char* region = static_cast<unsigned char*>(smem) + filter_bytes;
    const int tid = static_cast<int>(threadIdx.x);
    const int tiles_w = (a.q + TILE_W - 1) / TILE_W;
    tile_t t;
    t.n = static_cast<int>(blockIdx.z);
    t.c0 = static_cast<int>(blockIdx.y) * BLOCK_C;
    t.oh0 = static_cast<int>(blockIdx.x) / tiles_w * TILE_H;
    t.ow0 = static_cast<int>(blockIdx.x) % tiles_w * TILE_W;
    t.ih0 = t.oh0 * STRIDE - a.pad_h;
    t.iw0 = t.ow0 * STRIDE - a.pad_w;

    stage_filter(a, t.c0, filt, reinterpret_cast<T*>(region));
    if constexpr (ALGO != depthwise_algo::direct) {
      __syncthreads();  // the raw filter copy in `region` is consumed
      stage_patch(a, t, reinterpret_cast<xs_t*>(region));
    }
    __syncthreads();

    const int cv = tid % c_threads, rest = tid / c_threads;
    const int seg = rest % segs, rt = rest / segs;  // thread column and row within the tile
    float acc[PH][PW][cpt];
#pragma unroll
    for (int i = 0; i < PH; ++i)
#pragma unroll
      for (int j = 0; j < PW; ++j)
#pragma unroll
        for (int e = 0; e < cpt; ++e) acc[i][j][e] = 0.f;

    const float* filt_t = filt + offset<4>(cv * VEC);
    if constexpr (ALGO != depthwise_algo::direct) {
      smem_source src;
      src.base = reinterpret_cast<const xs_t*>(region) +
                 (rt * PH * STRIDE * patch_w + seg * PW * STRIDE) * pix_stride + offset<xsize>(cv * VEC);
      src.row = src.base;
      compute(src, filt_t, acc);
    } else {
      const int c = t.c0 + cv * VEC;
      const int ih0 = t.ih0 + rt * PH * STRIDE, iw0 = t.iw0 + seg * PW * STRIDE;
      const T* x = static_cast<const T*>(a.x) + static_cast<long long>(t.n) * a.h * a.w_ * a.c + c;
      const bool vec_ok = a.c % VEC == 0 && (reinterpret_cast<unsigned long long>(a.x) % (VEC * sizeof(T))) == 0;
      if (vec_ok) {
        global_source<true> src;
        src.init(x, c, ih0, iw0, a);
        compute(src, filt_t, acc);
      } else {
        global_source<false> src;
        src.init(x, c, ih0, iw0, a);
        compute(src, filt_t, acc);
      }
    }

    if constexpr (NHWC) store_nhwc(a, t, cv, rt, seg, acc);
    else store_nchw(a, t, cv, rt, seg, acc, reinterpret_cast<float*>(region));
  }
};

// mma: tensor cores (depthwise_mma.cuh). CVECS is the channels per warp there; the vector is
// 16 bytes and ph, pw are 1 (kernels/src/conv/family.cpp checks the same).
template <typename T, bool NHWC, int R, int S, int STRIDE, int VEC, int CVECS, int BLOCK_C,
          int TILE_H, int TILE_W, int PH, int PW>
struct depthwise<T, NHWC, R, S, STRIDE, VEC, CVECS, BLOCK_C, TILE_H, TILE_W, PH, PW, depthwise_algo::mma>
    : depthwise_mma<T, R, S, BLOCK_C, TILE_H, TILE_W, CVECS> {
  static_assert(NHWC && STRIDE == 1, "mma is NHWC with stride 1");
  static_assert(VEC * sizeof(T) == 16 && PH == 1 && PW == 1, "mma: vec of 16 bytes, ph 1, pw 1");
};

// mma_tma: mma with the input patch brought in by one TMA tensor copy (depthwise_mma.cuh's
// run_tma; sm_90 and newer). Its entry takes a tma_input after conv_args (launch.hpp).
template <typename T, bool NHWC, int R, int S, int STRIDE, int VEC, int CVECS, int BLOCK_C,
          int TILE_H, int TILE_W, int PH, int PW>
struct depthwise<T, NHWC, R, S, STRIDE, VEC, CVECS, BLOCK_C, TILE_H, TILE_W, PH, PW, depthwise_algo::mma_tma>
    : depthwise_mma<T, R, S, BLOCK_C, TILE_H, TILE_W, CVECS> {
  using base = depthwise_mma<T, R, S, BLOCK_C, TILE_H, TILE_W, CVECS>;
  static_assert(NHWC && STRIDE == 1, "mma_tma is NHWC with stride 1");
  static_assert(VEC * sizeof(T) == 16 && PH == 1 && PW == 1, "mma_tma: vec of 16 bytes, ph 1, pw 1");
  static constexpr int smem_bytes = base::tma_smem_bytes;
  static constexpr int min_blocks = base::blocks_for(smem_bytes);
};

// mma_seg: tensor cores with each input row's A fragments kept across tap rows, persistent and
// double-buffered through TMA (depthwise_seg.cuh; sm_90 and newer). PH is the segment's rows; the
// block is 16 or 32 channels, 4 a warp (cvecs 4), vec 8, pw 1. Its entry takes a tma_input after
// conv_args.
template <typename T, bool NHWC, int R, int S, int STRIDE, int VEC, int CVECS, int BLOCK_C,
          int TILE_H, int TILE_W, int PH, int PW>
struct depthwise<T, NHWC, R, S, STRIDE, VEC, CVECS, BLOCK_C, TILE_H, TILE_W, PH, PW, depthwise_algo::mma_seg>
    : depthwise_seg<T, R, S, TILE_H, TILE_W, PH, BLOCK_C> {
  static_assert(NHWC && STRIDE == 1, "mma_seg is NHWC with stride 1");
  static_assert(VEC == 8 && CVECS == 4 && PW == 1, "mma_seg: vec 8, cvecs 4, pw 1");
};

// plane: NCHW on CUDA cores along each channel's plane (depthwise_plane.cuh). BLOCK_C is the
// channels of a block; vec and cvecs are 1 (kernels/src/conv/family.cpp checks the same).
template <typename T, bool NHWC, int R, int S, int STRIDE, int VEC, int CVECS, int BLOCK_C,
          int TILE_H, int TILE_W, int PH, int PW>
struct depthwise<T, NHWC, R, S, STRIDE, VEC, CVECS, BLOCK_C, TILE_H, TILE_W, PH, PW, depthwise_algo::plane>
    : depthwise_plane<T, R, S, STRIDE, BLOCK_C, TILE_H, TILE_W, PH, PW> {
  static_assert(!NHWC, "plane is NCHW");
  static_assert(VEC == 1 && CVECS == 1, "plane: vec 1, cvecs 1");
};

}  // namespace cuop::kernels::conv
