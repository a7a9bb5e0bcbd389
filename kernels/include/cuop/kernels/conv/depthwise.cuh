// Conv family depthwise: groups == C == K (one filter per channel), NHWC or NCHW, f32 / f16 /
// bf16 in and out, f32 accumulation, R x S filters fixed at compile time (odd sizes 3..31 are
// the ones swept), stride 1 or 2, any padding, dilation 1.
//
//   grid   x: ceil(P / TILE_H) * ceil(Q / TILE_W) output tiles, y: ceil(C / BLOCK_C) channel
//          groups, z: N images
//   block  (BLOCK_C / CPT) x TILE_H x (TILE_W / PW) threads, channel-thread fastest: a thread owns
//          CPT = VEC * CVECS adjacent channels of PW adjacent outputs of one output row
//   smem   the filter of the block's channels, transposed to [R * S][BLOCK_C] (tap-major, so a
//          thread reads its CPT channels of a tap as CVECS vectors); with STAGE, also the input
//          patch the tile reads, [(TILE_H - 1) * STRIDE + R][(TILE_W - 1) * STRIDE + S][BLOCK_C],
//          zero where it falls in the padding or past C
//
// Every output element costs R * S multiply-adds in f32; with STAGE and stride 1 the PW outputs of
// a thread share a sliding window of input vectors along S, so a tap reads one input vector
// instead of PW. Without STAGE (NHWC only) the inputs are read from global memory through L1,
// zero outside the image. Channels past C and outputs past P x Q are computed on zeros and never
// stored. Vector loads of x (NHWC) need C a multiple of VEC and x aligned to the vector; the
// kernel checks both and otherwise takes element loads (a uniform branch). Host side: names,
// validity and launch plans in kernels/src/conv/family.cpp.
//
// Accepted by nvcc and NVRTC alike: no host standard headers.
#pragma once

#include "cuop/kernels/common/elements.cuh"
#include "cuop/kernels/conv/args.cuh"

namespace cuop::kernels::conv {

namespace depthwise_detail {

using common::elem;
using common::packed;

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

}  // namespace depthwise_detail

template <typename T, bool NHWC, int R, int S, int STRIDE, int VEC, int CVECS, int BLOCK_C,
          int TILE_H, int TILE_W, int PW, bool STAGE>
struct depthwise {
  using vec_t = depthwise_detail::packed<T, VEC>;
  using elem_t = depthwise_detail::elem<T>;

  static constexpr int cpt = VEC * CVECS;           // channels per thread
  static constexpr int c_threads = BLOCK_C / cpt;   // threads across the block's channels
  static constexpr int segs = TILE_W / PW;          // thread segments across an output row
  static constexpr int block_threads = c_threads * TILE_H * segs;
  static constexpr int patch_h = (TILE_H - 1) * STRIDE + R;
  static constexpr int patch_w = (TILE_W - 1) * STRIDE + S;
  static constexpr int filter_elems = R * S * BLOCK_C;
  static constexpr int patch_elems = STAGE ? patch_h * patch_w * BLOCK_C : 0;
  // Dynamic shared memory of a launch (kernels/src/conv/family.cpp computes the same).
  static constexpr int smem_bytes = (filter_elems + patch_elems) * static_cast<int>(sizeof(T));

  static_assert(R >= 1 && S >= 1 && (STRIDE == 1 || STRIDE == 2), "filter >= 1, stride 1 or 2");
  static_assert(VEC * sizeof(T) == 2 || VEC * sizeof(T) == 4 || VEC * sizeof(T) == 8 ||
                    VEC * sizeof(T) == 16,
                "a vector is 2, 4, 8 or 16 bytes");
  static_assert(CVECS >= 1 && BLOCK_C % cpt == 0, "block_c a multiple of the channels per thread");
  static_assert(TILE_H >= 1 && PW >= 1 && TILE_W % PW == 0, "tile_w a multiple of pw");
  static_assert(block_threads >= 32 && block_threads <= 1024, "32 to 1024 threads");
  static_assert(NHWC || STAGE, "NCHW reads its input through the staged patch");

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

  // The filter of channels [c0, c0 + BLOCK_C) as [tap][channel]; zero past C.
  static __device__ __forceinline__ void stage_filter(const conv_args& a, int c0, T* filt) {
    const T* w = static_cast<const T*>(a.w);
    for (int i = static_cast<int>(threadIdx.x); i < filter_elems; i += block_threads) {
      const int cc = i % BLOCK_C, tap = i / BLOCK_C, c = c0 + cc;
      depthwise_detail::store_bits(filt + i, c < a.c ? depthwise_detail::load_bits(w + static_cast<long long>(c) * (R * S) + tap) : 0u);
    }
  }

  // The input patch as [row][col][channel]; zero in the padding and past C.
  static __device__ __forceinline__ void stage_patch(const conv_args& a, const tile_t& t, bool vec_ok,
                                                     T* patch) {
    const T* x = static_cast<const T*>(a.x);
    if constexpr (NHWC) {
      // Channel vectors fastest: a warp reads contiguous channels of one pixel, then the next.
      constexpr int cv = BLOCK_C / VEC;
      for (int i = static_cast<int>(threadIdx.x); i < patch_h * patch_w * cv; i += block_threads) {
        const int v = i % cv, pix = i / cv, col = pix % patch_w, row = pix / patch_w;
        const int ih = t.ih0 + row, iw = t.iw0 + col, c = t.c0 + v * VEC;
        vec_t val;
        val.clear();
        if (ih >= 0 && ih < a.h && iw >= 0 && iw < a.w_) {
          const T* src = x + x_index(a, t.n, c, ih, iw);
          if (vec_ok && c + VEC <= a.c) {
            val = *reinterpret_cast<const vec_t*>(src);
          } else {
#pragma unroll
            for (int e = 0; e < VEC; ++e)
              if (c + e < a.c) val.or_bits(e, depthwise_detail::load_bits(src + e));
          }
        }
        *reinterpret_cast<vec_t*>(patch + (row * patch_w + col) * BLOCK_C + v * VEC) = val;
      }
    } else {
      // Columns fastest: a warp reads contiguous pixels of one channel row.
      for (int i = static_cast<int>(threadIdx.x); i < patch_h * patch_w * BLOCK_C; i += block_threads) {
        const int col = i % patch_w, rest = i / patch_w, row = rest % patch_h, cc = rest / patch_h;
        const int ih = t.ih0 + row, iw = t.iw0 + col, c = t.c0 + cc;
        unsigned b = 0;
        if (c < a.c && ih >= 0 && ih < a.h && iw >= 0 && iw < a.w_)
          b = depthwise_detail::load_bits(x + x_index(a, t.n, c, ih, iw));
        depthwise_detail::store_bits(patch + (row * patch_w + col) * BLOCK_C + cc, b);
      }
    }
  }

  // CVECS vectors of CPT channels starting at p (shared memory, vector-aligned).
  static __device__ __forceinline__ void read_smem(const T* p, vec_t (&v)[CVECS]) {
#pragma unroll
    for (int i = 0; i < CVECS; ++i) v[i] = *reinterpret_cast<const vec_t*>(p + i * VEC);
  }

  static __device__ __forceinline__ void fma(const vec_t (&x)[CVECS], const vec_t (&w)[CVECS],
                                             float (&acc)[cpt]) {
#pragma unroll
    for (int i = 0; i < CVECS; ++i)
#pragma unroll
      for (int e = 0; e < VEC; ++e) acc[i * VEC + e] = fmaf(x[i].get(e), w[i].get(e), acc[i * VEC + e]);
  }

  // Input vectors of this thread's channels at input pixel (ih, iw) from global memory.
  static __device__ __forceinline__ void read_global(const conv_args& a, const tile_t& t, int cofs,
                                                     int ih, int iw, bool vec_ok, vec_t (&v)[CVECS]) {
    const T* x = static_cast<const T*>(a.x);
    const bool inside = ih >= 0 && ih < a.h && iw >= 0 && iw < a.w_;
#pragma unroll
    for (int i = 0; i < CVECS; ++i) {
      v[i].clear();
      const int c = t.c0 + cofs + i * VEC;
      if (!inside) continue;
      const T* src = x + x_index(a, t.n, c, ih, iw);
      if (vec_ok && c + VEC <= a.c) {
        v[i] = *reinterpret_cast<const vec_t*>(src);
      } else {
#pragma unroll
        for (int e = 0; e < VEC; ++e)
          if (c + e < a.c) v[i].or_bits(e, depthwise_detail::load_bits(src + e));
      }
    }
  }

  static __device__ void run(const conv_args& a, void* smem) {
    T* filt = static_cast<T*>(smem);
    T* patch = filt + filter_elems;
    const int tid = static_cast<int>(threadIdx.x);
    const int tiles_w = (a.q + TILE_W - 1) / TILE_W;
    tile_t t;
    t.n = static_cast<int>(blockIdx.z);
    t.c0 = static_cast<int>(blockIdx.y) * BLOCK_C;
    t.oh0 = static_cast<int>(blockIdx.x) / tiles_w * TILE_H;
    t.ow0 = static_cast<int>(blockIdx.x) % tiles_w * TILE_W;
    t.ih0 = t.oh0 * STRIDE - a.pad_h;
    t.iw0 = t.ow0 * STRIDE - a.pad_w;
    // 16-byte-friendly: channel vectors stay aligned when C is a multiple of VEC and x is aligned.
    const bool vec_ok = NHWC && a.c % VEC == 0 &&
                        (reinterpret_cast<unsigned long long>(a.x) % (VEC * sizeof(T))) == 0;

    stage_filter(a, t.c0, filt);
    if constexpr (STAGE) stage_patch(a, t, vec_ok, patch);
    __syncthreads();

    const int cv = tid % c_threads, rest = tid / c_threads;
    const int seg = rest % segs, oh = rest / segs;  // output row within the tile
    const int cofs = cv * cpt;                        // first channel within the block
    float acc[PW][cpt];
#pragma unroll
    for (int j = 0; j < PW; ++j)
#pragma unroll
      for (int e = 0; e < cpt; ++e) acc[j][e] = 0.f;

#pragma unroll 1
    for (int r = 0; r < R; ++r) {
      const int row = oh * STRIDE + r;  // patch row
      if constexpr (STAGE && STRIDE == 1) {
        // Sliding window: window[j] holds input column seg * PW + j + s.
        vec_t window[PW][CVECS];
        const T* base = patch + (row * patch_w + seg * PW) * BLOCK_C + cofs;
#pragma unroll
        for (int j = 0; j < PW; ++j) read_smem(base + j * BLOCK_C, window[j]);
#pragma unroll
        for (int s = 0; s < S; ++s) {
          vec_t w[CVECS];
          read_smem(filt + (r * S + s) * BLOCK_C + cofs, w);
#pragma unroll
          for (int j = 0; j < PW; ++j) fma(window[j], w, acc[j]);
          if (s + 1 < S) {
#pragma unroll
            for (int j = 0; j + 1 < PW; ++j)
#pragma unroll
              for (int i = 0; i < CVECS; ++i) window[j][i] = window[j + 1][i];
            read_smem(base + (PW + s) * BLOCK_C, window[PW - 1]);
          }
        }
      } else {
#pragma unroll
        for (int s = 0; s < S; ++s) {
          vec_t w[CVECS];
          read_smem(filt + (r * S + s) * BLOCK_C + cofs, w);
#pragma unroll
          for (int j = 0; j < PW; ++j) {
            const int col = (seg * PW + j) * STRIDE + s;  // patch column
            vec_t x[CVECS];
            if constexpr (STAGE) read_smem(patch + (row * patch_w + col) * BLOCK_C + cofs, x);
            else read_global(a, t, cofs, t.ih0 + row, t.iw0 + col, vec_ok, x);
            fma(x, w, acc[j]);
          }
        }
      }
    }

    // Epilogue: y = alpha * acc + beta * y, stored element by element (predicated on P, Q, C).
    T* y = static_cast<T*>(a.y);
    const int ohg = t.oh0 + oh;
    if (ohg >= a.p) return;
#pragma unroll
    for (int j = 0; j < PW; ++j) {
      const int owg = t.ow0 + seg * PW + j;
      if (owg >= a.q) continue;
#pragma unroll
      for (int e = 0; e < cpt; ++e) {
        const int c = t.c0 + cofs + e;
        if (c >= a.c) continue;
        T* dst = y + y_index(a, t.n, c, ohg, owg);
        float v = a.alpha * acc[j][e];
        if (a.beta != 0.f) v = fmaf(a.beta, elem_t::to_float(depthwise_detail::load_bits(dst)), v);
        depthwise_detail::store_bits(dst, elem_t::from_float(v));
      }
    }
  }
};

}  // namespace cuop::kernels::conv
