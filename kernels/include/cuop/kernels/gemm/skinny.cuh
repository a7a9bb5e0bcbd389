// GEMM family skinny: decode-sized problems (M of 1 to 64) whose time is the time to read B once
// (N x K weights). CUDA cores, f32 accumulation; no tensor cores, no shared-memory staging of B.
//
//   grid   x: ceil(N / BLOCK_N) column tiles, y: ceil(M / M_TILE) row tiles, z: SPLIT_K slices of
//          K, each ceil(ceil(K / SPLIT_K) / 8) * 8 long (8-aligned, trailing ones may be empty)
//   block  THREADS threads (whole warps)
//
// Column-major B (B[n * ldb + k], K contiguous: the LLM weight layout). The block's W warps form
// G = min(BLOCK_N, W) column groups of W / G warps; a group owns NPT = BLOCK_N / G adjacent columns
// (NPT > 1 when BLOCK_N > W; several warps split a column's K range when BLOCK_N < W). Its
// KT = 32 * W / G threads walk K in steps of KT * K_CHUNK elements: in a step, thread t of the group
// loads V = K_CHUNK / 8 16-byte vectors of each of its NPT columns, vector c at
// k = step + (c * KT + t) * 8 (one warp instruction reads 512 contiguous bytes of a column), and
// the matching 16-byte vectors of its M_TILE rows of A (through L1: every warp of the block, and
// every block of the grid row, reads the same A). Each A value feeds NPT FMAs and each B value
// M_TILE FMAs, in f32.
//
// Row-major B (B[k * ldb + n], N contiguous). VN = BLOCK_N / 8 threads cover the block's columns,
// 8 each (one 16-byte vector); the KT = THREADS / VN threads of a column vector walk K in steps of
// KT * V rows: thread (t % VN, t / VN) loads rows k = step + (t / VN) * V + c, c < V, and reads its
// M_TILE A elements of each row (16-bit loads through L1). 8 * M_TILE accumulators per thread.
//
// Every B element is read exactly once, with ld.global.nc.L1::no_allocate and an L2 evict-first
// policy (A, C and the workspace stay in L2); all V * NPT loads of a step are issued before any is
// used, and a step's loads are issued while the previous step's FMAs run when the registers of
// two steps fit (prefetch).
//
// Reduction. The threads that share an output reduce through the warp with a reduce-scatter
// butterfly (each xor stage exchanges half of the values still held, so R values cost
// R/2 + R/4 + ... shuffles instead of 5 R, and leaves each lane with distinct outputs); when
// several warps share an output they add their partials in shared memory, in warp order
// (f32 [P][M_TILE * BLOCK_N], P = warps per column group (column-major) or warps per column
// vector (row-major)). The epilogue D = alpha * acc + beta * C (C read only when beta != 0) is
// applied exactly once per element, then converted to TOut; stores are predicated on M and N.
//
// Split-K (SPLIT_K > 1). Every block (empty slices too) stores its f32 partial tile to the
// workspace, fences, and counts itself in its tile's counter (atom.acq_rel.gpu); the last to arrive
// adds the partials in slice order (the sum does not depend on the arrival order), applies the
// epilogue and sets the counter back to 0. Partials are always fully written before they are read,
// so only counters need to start at zero: a workspace zeroed once stays valid for every later
// launch, of any problem or configuration. One launch at a time per workspace. Layout (bytes):
//   [0, skinny_split_counter_bytes)  u32 counter per output tile, tile = y * gridDim.x + x
//                                    (<= skinny_split_max_tiles tiles; the same region as the
//                                    mma family, so one workspace serves both)
//   then f32 partials[tiles][SPLIT_K][M_TILE * BLOCK_N], tile-major, outputs row-major in the tile
//   total = skinny_split_counter_bytes + tiles * SPLIT_K * M_TILE * BLOCK_N * 4
// SPLIT_K == 1 uses no workspace. kernels/src/gemm/skinny_plan.cpp plans the same sizes.
//
// Any M, N, K: columns past N re-read the last column and rows past M the last row (the main loop
// has no branches; those sums are never stored); the K tail goes one vector at a time, the vector
// across the end of K element by element with zero fill. The 16-byte path needs B (and,
// column-major, A) 16-byte aligned with ldb (and lda) a multiple of 8 elements; otherwise a uniform
// branch takes the same loops with 16-bit loads (correct, slower).
//
// Accepted by nvcc and NVRTC alike: no host standard headers.
// size-limit: one kernel and its device helpers; moving code out changes the family's source hash (stale results)
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "cuop/kernels/gemm/args.cuh"

namespace cuop::kernels::gemm {

inline constexpr int skinny_split_max_tiles = 16384;
inline constexpr long long skinny_split_counter_bytes = 4ll * skinny_split_max_tiles;

namespace skinny_detail {

template <typename T> inline constexpr bool is_bf16 = false;
template <> inline constexpr bool is_bf16<__nv_bfloat16> = true;
template <typename T> inline constexpr bool is_f16 = false;
template <> inline constexpr bool is_f16<__half> = true;
template <typename A, typename B> inline constexpr bool same = false;
template <typename A> inline constexpr bool same<A, A> = true;

__host__ __device__ constexpr int ceil_pow2(int v) {
  int p = 1;
  while (p < v) p *= 2;
  return p;
}
__host__ __device__ constexpr int log2_of(int v) {  // v a power of two
  int l = 0;
  while ((1 << l) < v) ++l;
  return l;
}
__host__ __device__ constexpr bool is_pow2(int v) { return v > 0 && (v & (v - 1)) == 0; }

// ---- loads ---------------------------------------------------------------------------------
// Not volatile: they are pure reads of data the kernel never writes, so the compiler may hoist
// and batch them freely.

// L2 cache policies are sm_80+; below (not a target, but a default nvcc build), plain streaming.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define CUOP_SKINNY_L2_HINTS 0
#else
#define CUOP_SKINNY_L2_HINTS 1
#endif

__device__ __forceinline__ unsigned long long evict_first_policy() {
  unsigned long long p = 0;
#if CUOP_SKINNY_L2_HINTS
  asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
#endif
  return p;
}

// B, 16 bytes: read once, kept out of L1, first to leave L2.
__device__ __forceinline__ void ld_stream16(const unsigned short* p, unsigned long long pol,
                                            unsigned (&w)[4]) {
#if CUOP_SKINNY_L2_HINTS
  asm("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
      : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3]) : "l"(p), "l"(pol));
#else
  (void)pol;
  asm("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
      : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3]) : "l"(p));
#endif
}
// A, 16 bytes: shared by all warps of the block, cached in L1.
__device__ __forceinline__ void ld_cached16(const unsigned short* p, unsigned (&w)[4]) {
  asm("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];"
      : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3]) : "l"(p));
}
// One 16-bit element (scalar paths), cached in L1: neighbouring lanes read the same lines.
__device__ __forceinline__ unsigned ld_cached2(const unsigned short* p) {
  unsigned short h;
  asm("ld.global.nc.u16 %0, [%1];" : "=h"(h) : "l"(p));
  return h;
}

// 8 consecutive 16-bit elements p[0..8) into w, of which the first `valid` are read and the rest
// are zero. VEC: p is 16-byte aligned, so 8 valid elements are one 16-byte load.
template <bool VEC, bool STREAM>
__device__ __forceinline__ void load8(const unsigned short* p, int valid, unsigned long long pol,
                                      unsigned (&w)[4]) {
  if (VEC && valid >= 8) {
    if constexpr (STREAM) ld_stream16(p, pol, w);
    else ld_cached16(p, w);
    return;
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const unsigned lo = 2 * i < valid ? ld_cached2(p + 2 * i) : 0u;
    const unsigned hi = 2 * i + 1 < valid ? ld_cached2(p + 2 * i + 1) : 0u;
    w[i] = lo | (hi << 16);
  }
}

// ---- conversions -----------------------------------------------------------------------------

// Two packed 16-bit elements (low half first) to floats.
template <typename T>
__device__ __forceinline__ float2 unpack2(unsigned w) {
  if constexpr (is_bf16<T>) {
    return make_float2(__uint_as_float(w << 16), __uint_as_float(w & 0xffff0000u));
  } else {
    __half2 h;
    *reinterpret_cast<unsigned*>(&h) = w;
    return __half22float2(h);
  }
}

template <typename T>
__device__ __forceinline__ void unpack8(const unsigned (&w)[4], float (&f)[8]) {
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 v = unpack2<T>(w[i]);
    f[2 * i] = v.x;
    f[2 * i + 1] = v.y;
  }
}

template <typename T>
__device__ __forceinline__ float unpack1(unsigned h) {
  if constexpr (is_bf16<T>) return __uint_as_float(h << 16);
  else return __half2float(__ushort_as_half(static_cast<unsigned short>(h)));
}

template <typename T> __device__ __forceinline__ float to_float(T v);
template <> __device__ __forceinline__ float to_float<float>(float v) { return v; }
template <> __device__ __forceinline__ float to_float<__half>(__half v) { return __half2float(v); }
template <> __device__ __forceinline__ float to_float<__nv_bfloat16>(__nv_bfloat16 v) {
  return __bfloat162float(v);
}

template <typename T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ float from_float<float>(float v) { return v; }
template <> __device__ __forceinline__ __half from_float<__half>(float v) {
  return __float2half_rn(v);
}
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}

// ---- split-K synchronization -------------------------------------------------------------------

__device__ __forceinline__ unsigned atom_add_acq_rel(unsigned* p, unsigned v) {
  unsigned old;
  asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
}
__device__ __forceinline__ void st_relaxed(unsigned* p, unsigned v) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}

// c ? a : b, kept in registers: a select between elements of an array may otherwise become a
// dynamically indexed local-memory access.
__device__ __forceinline__ float select(bool c, float a, float b) {
  float r;
  asm("{\n .reg .pred p;\n setp.ne.u32 p, %3, 0;\n selp.f32 %0, %1, %2, p;\n}"
      : "=f"(r) : "f"(a), "f"(b), "r"(static_cast<unsigned>(c)));
  return r;
}

// D[m][n] = alpha * v + beta * C[m][n]; C is read only when beta != 0.
template <typename TOut>
__device__ __forceinline__ void store_out(const gemm_args& a, long long m, long long n, float v) {
  float r = a.alpha * v;
  if (a.beta != 0.f) r = fmaf(a.beta, to_float(static_cast<const TOut*>(a.c)[m * a.ldc + n]), r);
  static_cast<TOut*>(a.d)[m * a.ldd + n] = from_float<TOut>(r);
}

// The split-K tail of skinny<>, once every thread of the block has stored its
// part of this slice's f32 partial tile (TILE_OUTPUTS values, row-major, BLOCK_N wide) at
// partials[tile][blockIdx.z] of the workspace (layout in the header comment). Publishes the slice
// and counts it; the last slice of the tile adds all of them in slice order and stores D. The
// barrier orders every thread's partial stores before thread 0's release (cumulative at gpu
// scope), as its acquire orders the last block's loads after every other slice's stores.
template <typename TOut, int SPLIT_K, int THREADS, int BLOCK_N, int TILE_OUTPUTS>
__device__ __forceinline__ void split_k_finish(const gemm_args& a, unsigned tile, long long m0,
                                               long long n0, unsigned& last_flag) {
  __syncthreads();
  unsigned* counter = static_cast<unsigned*>(a.workspace) + tile;
  if (threadIdx.x == 0) {
    __threadfence();
    const unsigned arrived = atom_add_acq_rel(counter, 1u);
    const bool last = arrived == SPLIT_K - 1;
    if (last) st_relaxed(counter, 0u);  // every slice has arrived
    last_flag = last ? 1u : 0u;
  }
  __syncthreads();
  if (last_flag == 0u) return;
  __threadfence();
  const float* all = reinterpret_cast<const float*>(static_cast<const char*>(a.workspace) +
                                                    skinny_split_counter_bytes) +
                     static_cast<long long>(tile) * SPLIT_K * TILE_OUTPUTS;
  for (int o = static_cast<int>(threadIdx.x); o < TILE_OUTPUTS; o += THREADS) {
    const long long m = m0 + o / BLOCK_N, n = n0 + o % BLOCK_N;
    if (m < a.m && n < a.n) {
      float s = 0.f;
#pragma unroll 4
      for (int z = 0; z < SPLIT_K; ++z) s += __ldcg(all + static_cast<long long>(z) * TILE_OUTPUTS + o);
      store_out<TOut>(a, m, n, s);
    }
  }
}

// ---- warp reduce-scatter ---------------------------------------------------------------------
// Sums v[0..N) (N a power of two) over the lanes that differ only in the BITS highest lane bits
// (xor masks 16, 8, ..., 32 >> BITS). Stage s splits the values still held in halves: the lane
// whose mask bit is set keeps the upper half, sends the lower one, and adds what its partner sent.
// Once one value is left, the remaining stages are a plain butterfly. Afterwards the lane holds
// held = max(1, N >> BITS) sums v[0..held), which are the sums of the original indices
// index(lane, r) below; lanes that differ only in unsplit bits hold the same sums.
template <int N, int BITS>
struct scatter {
  static_assert(is_pow2(N) && BITS >= 0 && BITS <= 5, "power-of-two values, up to 5 lane bits");
  static constexpr int split = log2_of(N) < BITS ? log2_of(N) : BITS;  // stages that halve
  static constexpr int held = N >> split;

  template <int S = 0>
  static __device__ __forceinline__ void reduce(float (&v)[N], int lane) {
    if constexpr (S < BITS) {
      constexpr int mask = 16 >> S;
      constexpr int count = N >> S;  // values still held (compile-time: fully unrolled)
      if constexpr (count >= 2) {
        const bool upper = (lane & mask) != 0;
#pragma unroll
        for (int r = 0; r < count / 2; ++r) {
          const float lo = v[r], hi = v[r + count / 2];
          const float send = select(upper, lo, hi), keep = select(upper, hi, lo);
          v[r] = keep + __shfl_xor_sync(0xffffffffu, send, mask);
        }
      } else {
        v[0] += __shfl_xor_sync(0xffffffffu, v[0], mask);
      }
      reduce<S + 1>(v, lane);
    }
  }
  // Original index of held value r of `lane`: the split lane bits (4 down to 5 - split) are its
  // high bits, r the low ones.
  static __device__ __forceinline__ int index(int lane, int r) {
    const int sel = split == 0 ? 0 : (lane >> (5 - split)) & ((1 << split) - 1);
    return sel * held + r;
  }
  // One lane per distinct set of sums writes them: the one whose unsplit reduced bits are zero.
  static __device__ __forceinline__ bool writer(int lane) {
    if constexpr (BITS == split) return true;
    else return ((lane >> (5 - BITS)) & ((1 << (BITS - split)) - 1)) == 0;
  }
};

}  // namespace skinny_detail

template <typename TIn, typename TOut, bool B_COL, int BLOCK_N, int THREADS, int M_TILE,
          int K_CHUNK, int SPLIT_K>
struct skinny {
  static_assert(skinny_detail::is_bf16<TIn> || skinny_detail::is_f16<TIn>, "inputs f16 or bf16");
  static_assert(skinny_detail::same<TOut, float> || skinny_detail::same<TOut, TIn>,
                "output f32 or the input type");
  static_assert(THREADS >= 32 && THREADS % 32 == 0 && THREADS <= 1024, "whole warps, <= 1024 threads");
  static_assert(M_TILE >= 1 && M_TILE <= 64, "m_tile 1..64");
  static_assert(K_CHUNK >= 8 && K_CHUNK % 8 == 0, "k_chunk a positive multiple of 8");
  static_assert(SPLIT_K >= 1, "split_k >= 1");
  static_assert(BLOCK_N >= 1, "block_n >= 1");

  static constexpr int block_threads = THREADS;
  static constexpr int warps = THREADS / 32;
  static constexpr int vecs = K_CHUNK / 8;  // 16-byte loads per thread, column and step

  // Column-major mapping.
  static constexpr int groups = BLOCK_N < warps ? BLOCK_N : warps;   // column groups
  static constexpr int group_warps = warps / groups;                 // warps sharing a column
  static constexpr int npt = BLOCK_N / groups;                       // columns per thread
  static_assert(!B_COL || BLOCK_N % warps == 0 || warps % BLOCK_N == 0,
                "column-major: block_n a multiple or a divisor of the warp count");
  // Row-major mapping.
  static constexpr int vn = BLOCK_N >= 8 ? BLOCK_N / 8 : 1;  // threads across the columns, 8 each
  static_assert(B_COL || (BLOCK_N % 8 == 0 && THREADS % vn == 0 && (32 % vn == 0 || vn % 32 == 0)),
                "row-major: block_n a multiple of 8, block_n / 8 dividing the threads and 32 or a "
                "multiple of 32");

  static constexpr int cols = B_COL ? npt : 8;                         // accumulator columns
  static constexpr int k_threads = B_COL ? 32 * group_warps : THREADS / vn;  // threads sharing them
  // K per step: column-major, K_CHUNK elements per thread; row-major, K_CHUNK / 8 rows per thread.
  static constexpr long long step_k = static_cast<long long>(k_threads) * (B_COL ? K_CHUNK : vecs);
  static constexpr int values = M_TILE * cols;
  static constexpr int values_pad = skinny_detail::ceil_pow2(values);
  static constexpr int lane_bits = B_COL ? 5 : (vn >= 32 ? 0 : skinny_detail::log2_of(32 / vn));
  static constexpr int producers = B_COL ? group_warps : (vn <= 32 ? warps : THREADS / vn);
  static constexpr int tile_outputs = M_TILE * BLOCK_N;
  static constexpr int smem_floats = producers > 1 ? producers * tile_outputs : 0;
  static_assert((smem_floats > 0 ? smem_floats : 1) * 4 + 4 <= 48 * 1024,
                "partials of the block exceed 48 KiB of static shared memory");
  // Registers of B in flight per step; a second step is loaded during the FMAs when both fit with
  // the accumulators in a 168-register budget (a fixed function of the template arguments).
  static constexpr int b_regs = B_COL ? npt * vecs * 4 : vecs * 4;
  static constexpr bool prefetch = 2 * b_regs + values + 40 <= 168;

  using scatter_t = skinny_detail::scatter<values_pad, lane_bits>;
  using u16 = unsigned short;

  struct tile_t {
    long long m0, n0;   // first row and column of the tile
    int rows;           // rows of A in the tile (1..M_TILE)
    int kb, ke;         // this block's K slice
  };

  // ---- column-major main loop ----------------------------------------------------------------

  // A whole step (every vector inside the slice), 16-byte loads.
  static __device__ __forceinline__ void col_load(u16 const* const (&bcol)[npt], int k0,
                                                  unsigned long long pol,
                                                  unsigned (&bw)[npt][vecs][4]) {
#pragma unroll
    for (int c = 0; c < vecs; ++c)
#pragma unroll
      for (int j = 0; j < npt; ++j) skinny_detail::ld_stream16(bcol[j] + k0 + c * k_threads * 8, pol, bw[j][c]);
  }

  static __device__ __forceinline__ void col_fma(const u16* arow, long long lda, int rows, int k0,
                                                 const unsigned (&bw)[npt][vecs][4],
                                                 float (&acc)[M_TILE][cols]) {
#pragma unroll
    for (int c = 0; c < vecs; ++c) {
      float bf[npt][8];
#pragma unroll
      for (int j = 0; j < npt; ++j) skinny_detail::unpack8<TIn>(bw[j][c], bf[j]);
      // Rows walked by pointer; rows past M re-read the last one (no branch, so the loads of a
      // step can be batched; those sums are never stored).
      const u16* ap = arow + k0 + c * k_threads * 8;
#pragma unroll
      for (int i = 0; i < M_TILE; ++i) {
        unsigned aw[4];
        skinny_detail::ld_cached16(ap, aw);
        fma8(aw, bf, acc[i]);
        if (i + 1 < M_TILE) ap += i + 1 < rows ? lda : 0;
      }
    }
  }

  static __device__ __forceinline__ void fma8(const unsigned (&aw)[4], const float (&bf)[npt][8],
                                              float (&acc_row)[cols]) {
    float af[8];
    skinny_detail::unpack8<TIn>(aw, af);
#pragma unroll
    for (int e = 0; e < 8; ++e)
#pragma unroll
      for (int j = 0; j < npt; ++j) acc_row[j] = fmaf(af[e], bf[j][e], acc_row[j]);
  }

  // One vector position at a time from k (this thread's) to the end of the slice: the tail of the
  // 16-byte path (the vector across the end of K is read element by element) and the whole of the
  // misaligned path. Few registers: it must not raise the kernel's count.
  template <bool VEC>
  static __device__ __forceinline__ void col_each(u16 const* const (&bcol)[npt], const u16* arow,
                                                  long long lda, int rows, int k, int ke,
                                                  unsigned long long pol,
                                                  float (&acc)[M_TILE][cols]) {
#pragma unroll 1
    for (; k < ke; k += k_threads * 8) {
      const int valid = ke - k < 8 ? ke - k : 8;
      float bf[npt][8];
#pragma unroll
      for (int j = 0; j < npt; ++j) {
        unsigned bw[4];
        skinny_detail::load8<VEC, true>(bcol[j] + k, valid, pol, bw);
        skinny_detail::unpack8<TIn>(bw, bf[j]);
      }
      const u16* ap = arow + k;
#pragma unroll
      for (int i = 0; i < M_TILE; ++i, ap += lda) {
        if (i < rows) {
          unsigned aw[4];
          skinny_detail::load8<VEC, false>(ap, valid, 0, aw);
          fma8(aw, bf, acc[i]);
        }
      }
    }
  }

  static __device__ __forceinline__ void col_loop(const gemm_args& a, const tile_t& t, int group,
                                                  int kt, float (&acc)[M_TILE][cols]) {
    const unsigned long long pol = skinny_detail::evict_first_policy();
    const u16* b = static_cast<const u16*>(a.b);
    u16 const* bcol[npt];
#pragma unroll
    for (int j = 0; j < npt; ++j) {
      long long n = t.n0 + static_cast<long long>(group) * npt + j;
      if (n > a.n - 1) n = a.n - 1;  // past N: re-read the last column, never stored
      bcol[j] = b + n * a.ldb;
    }
    const u16* arow = static_cast<const u16*>(a.a) + t.m0 * a.lda;
    const int kofs = kt * 8;
    const bool vec = ((reinterpret_cast<unsigned long long>(a.a) |
                       reinterpret_cast<unsigned long long>(a.b)) & 15) == 0 &&
                     (a.lda & 7) == 0 && (a.ldb & 7) == 0;
    if (!vec) {
      col_each<false>(bcol, arow, a.lda, t.rows, t.kb + kofs, t.ke, pol, acc);
      return;
    }
    int s = t.kb;
    if constexpr (prefetch) {
      unsigned cur[npt][vecs][4], nxt[npt][vecs][4];
      if (s + step_k <= t.ke) col_load(bcol, s + kofs, pol, cur);
      while (s + step_k <= t.ke) {
        const bool more = s + 2 * step_k <= t.ke;
        if (more) col_load(bcol, s + step_k + kofs, pol, nxt);
        col_fma(arow, a.lda, t.rows, s + kofs, cur, acc);
        s += step_k;
        if (!more) break;
        if (s + 2 * step_k <= t.ke) col_load(bcol, s + step_k + kofs, pol, cur);
        col_fma(arow, a.lda, t.rows, s + kofs, nxt, acc);
        s += step_k;
      }
    } else {
#pragma unroll 1
      for (; s + step_k <= t.ke; s += step_k) {
        unsigned bw[npt][vecs][4];
        col_load(bcol, s + kofs, pol, bw);
        col_fma(arow, a.lda, t.rows, s + kofs, bw, acc);
      }
    }
    col_each<true>(bcol, arow, a.lda, t.rows, s + kofs, t.ke, pol, acc);
  }

  // ---- row-major main loop -------------------------------------------------------------------

  static __device__ __forceinline__ void row_load(const u16* bptr, long long ldb, int k0,
                                                  unsigned long long pol, unsigned (&bw)[vecs][4]) {
#pragma unroll
    for (int c = 0; c < vecs; ++c) skinny_detail::ld_stream16(bptr + (k0 + c) * ldb, pol, bw[c]);
  }

  static __device__ __forceinline__ void row_fma1(const u16* ap, long long lda, int rows,
                                                  const unsigned (&bw)[4],
                                                  float (&acc)[M_TILE][cols]) {
    float bf[8];
    skinny_detail::unpack8<TIn>(bw, bf);
#pragma unroll
    for (int i = 0; i < M_TILE; ++i) {  // rows past M re-read the last one, never stored
      const float av = skinny_detail::unpack1<TIn>(skinny_detail::ld_cached2(ap));
#pragma unroll
      for (int e = 0; e < 8; ++e) acc[i][e] = fmaf(av, bf[e], acc[i][e]);
      if (i + 1 < M_TILE) ap += i + 1 < rows ? lda : 0;
    }
  }

  static __device__ __forceinline__ void row_fma(const u16* arow, long long lda, int rows, int k0,
                                                 const unsigned (&bw)[vecs][4],
                                                 float (&acc)[M_TILE][cols]) {
#pragma unroll
    for (int c = 0; c < vecs; ++c) row_fma1(arow + k0 + c, lda, rows, bw[c], acc);
  }

  // One row of B at a time from k (this thread's) to the end of the slice: the tail, the columns
  // across the end of N and the misaligned path.
  template <bool VEC>
  static __device__ __forceinline__ void row_each(const u16* bptr, long long ldb, int nvalid,
                                                  const u16* arow, long long lda, int rows, int k,
                                                  int ke, unsigned long long pol,
                                                  float (&acc)[M_TILE][cols]) {
#pragma unroll 1
    for (; k < ke; k += k_threads) {
      unsigned bw[4];
      skinny_detail::load8<VEC, true>(bptr + k * ldb, nvalid, pol, bw);
      row_fma1(arow + k, lda, rows, bw, acc);
    }
  }

  static __device__ __forceinline__ void row_loop(const gemm_args& a, const tile_t& t, int nv,
                                                  int kt, float (&acc)[M_TILE][cols]) {
    const unsigned long long pol = skinny_detail::evict_first_policy();
    long long n = t.n0 + static_cast<long long>(nv) * 8;
    const long long left = a.n - n;
    const int nvalid = left <= 0 ? 0 : (left < 8 ? static_cast<int>(left) : 8);
    if (nvalid == 0) return;  // no column of this thread is inside N
    const u16* bptr = static_cast<const u16*>(a.b) + n;
    const u16* arow = static_cast<const u16*>(a.a) + t.m0 * a.lda;
    const bool vec = (reinterpret_cast<unsigned long long>(a.b) & 15) == 0 && (a.ldb & 7) == 0;
    if (!vec || nvalid < 8) {
      if (vec) row_each<true>(bptr, a.ldb, nvalid, arow, a.lda, t.rows, t.kb + kt, t.ke, pol, acc);
      else row_each<false>(bptr, a.ldb, nvalid, arow, a.lda, t.rows, t.kb + kt, t.ke, pol, acc);
      return;
    }
    int s = t.kb;
    const int kofs = kt * vecs;
    if constexpr (prefetch) {
      unsigned cur[vecs][4], nxt[vecs][4];
      if (s + step_k <= t.ke) row_load(bptr, a.ldb, s + kofs, pol, cur);
      while (s + step_k <= t.ke) {
        const bool more = s + 2 * step_k <= t.ke;
        if (more) row_load(bptr, a.ldb, s + step_k + kofs, pol, nxt);
        row_fma(arow, a.lda, t.rows, s + kofs, cur, acc);
        s += step_k;
        if (!more) break;
        if (s + 2 * step_k <= t.ke) row_load(bptr, a.ldb, s + step_k + kofs, pol, cur);
        row_fma(arow, a.lda, t.rows, s + kofs, nxt, acc);
        s += step_k;
      }
    } else {
#pragma unroll 1
      for (; s + step_k <= t.ke; s += step_k) {
        unsigned bw[vecs][4];
        row_load(bptr, a.ldb, s + kofs, pol, bw);
        row_fma(arow, a.lda, t.rows, s + kofs, bw, acc);
      }
    }
    row_each<true>(bptr, a.ldb, nvalid, arow, a.lda, t.rows, s + kt, t.ke, pol, acc);
  }

  // ---- epilogue ------------------------------------------------------------------------------

  static __device__ __forceinline__ void store(const gemm_args& a, long long m, long long n, float v) {
    skinny_detail::store_out<TOut>(a, m, n, v);
  }

  // Output o (row-major in the tile) of this block's slice has the value v.
  static __device__ __forceinline__ void finish(const gemm_args& a, const tile_t& t, int o, float v,
                                                float* partials) {
    if constexpr (SPLIT_K == 1) {
      const long long m = t.m0 + o / BLOCK_N, n = t.n0 + o % BLOCK_N;
      if (m < a.m && n < a.n) store(a, m, n, v);
    } else {
      partials[o] = v;
    }
  }

  static __device__ void run(const gemm_args& a) {
    // #lizard forgives(length): tile, main loop, reduce-scatter and split-K epilogue share the kernel's registers
    __shared__ float red[smem_floats > 0 ? smem_floats : 1];
    __shared__ unsigned last_flag;
    const int tid = static_cast<int>(threadIdx.x);
    const int lane = tid & 31, warp = tid >> 5;

    tile_t t;
    t.m0 = static_cast<long long>(blockIdx.y) * M_TILE;
    t.n0 = static_cast<long long>(blockIdx.x) * BLOCK_N;
    const long long rows_left = a.m - t.m0;
    t.rows = rows_left < M_TILE ? static_cast<int>(rows_left) : M_TILE;
    if constexpr (SPLIT_K == 1) {
      t.kb = 0;
      t.ke = a.k;
    } else {
      const long long slice = ((static_cast<long long>(a.k) + SPLIT_K - 1) / SPLIT_K + 7) / 8 * 8;
      const long long kb = slice * blockIdx.z;
      t.kb = static_cast<int>(kb < a.k ? kb : a.k);
      t.ke = static_cast<int>(kb + slice < a.k ? kb + slice : a.k);
    }

    float acc[M_TILE][cols];
#pragma unroll
    for (int i = 0; i < M_TILE; ++i)
#pragma unroll
      for (int j = 0; j < cols; ++j) acc[i][j] = 0.f;

    // Which outputs this thread accumulates, and which partial of them it is.
    int col0;      // first accumulator column within the tile
    int producer;  // index of this warp among those sharing the outputs
    if constexpr (B_COL) {
      const int group = warp / group_warps, sub = warp % group_warps;
      col0 = group * npt;
      producer = sub;
      col_loop(a, t, group, sub * 32 + lane, acc);
    } else {
      const int nv = tid % vn, kt = tid / vn;
      col0 = nv * 8;
      producer = vn <= 32 ? warp : kt;
      row_loop(a, t, nv, kt, acc);
    }

    // Reduce over the lanes sharing the outputs; each writer lane then holds distinct sums.
    float v[values_pad];
#pragma unroll
    for (int i = 0; i < M_TILE; ++i)
#pragma unroll
      for (int j = 0; j < cols; ++j) v[i * cols + j] = acc[i][j];
#pragma unroll
    for (int r = values; r < values_pad; ++r) v[r] = 0.f;
    scatter_t::reduce(v, lane);

    const unsigned tile = blockIdx.y * gridDim.x + blockIdx.x;
    float* partials = nullptr;
    if constexpr (SPLIT_K > 1)
      partials = reinterpret_cast<float*>(static_cast<char*>(a.workspace) + skinny_split_counter_bytes) +
                 (static_cast<long long>(tile) * SPLIT_K + blockIdx.z) * tile_outputs;

    if (scatter_t::writer(lane)) {
#pragma unroll
      for (int r = 0; r < scatter_t::held; ++r) {
        const int idx = scatter_t::index(lane, r);
        if (idx < values) {
          const int o = (idx / cols) * BLOCK_N + col0 + idx % cols;
          if constexpr (producers == 1) finish(a, t, o, v[r], partials);
          else red[producer * tile_outputs + o] = v[r];
        }
      }
    }
    if constexpr (producers > 1) {
      __syncthreads();
      for (int o = tid; o < tile_outputs; o += THREADS) {
        float s = red[o];
#pragma unroll 4
        for (int p = 1; p < producers; ++p) s += red[p * tile_outputs + o];
        finish(a, t, o, s, partials);
      }
    }

    if constexpr (SPLIT_K > 1)
      skinny_detail::split_k_finish<TOut, SPLIT_K, THREADS, BLOCK_N, tile_outputs>(a, tile, t.m0, t.n0,
                                                                                   last_flag);
  }
};

}  // namespace cuop::kernels::gemm
