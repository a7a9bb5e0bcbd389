// Conv family depthwise, stage 3: the filter on tensor cores (mma.sync m16n8k16, f16 / bf16 in,
// f32 accumulation). NHWC, stride 1, dilation 1, any R x S (S in chunks of 8 taps).
//
// One filter row against a strip of input is a Toeplitz product. For a channel, tap row r and a
// chunk of 8 tap columns s0..s0+7, sixteen output rows (the MMA's M) by 8 adjacent output columns
// x0..x0+7 (its N) are
//     C[m][n] += sum_k A[m][k] * B[k][n],  A[m][k] = in[y + m + r][x0 + s0 + k]  (k < 16)
//                                          B[k][n] = w[r][s0 + k - n] when 0 <= k - n < 8, s0 + k - n < S
// so one MMA does 16 x 8 outputs times up to 8 taps. B depends only on the channel, tap row and
// chunk: lane (n, k0) holds taps d, d + 1 and d + 8, d + 9 of the chunk, d = k0 - n. The block
// keeps, per (channel, tap row, chunk), the nine tap pairs P[p] = (tap p, tap p + 1), p = -1..7
// (zero outside the chunk and the filter): b[0] = P[d] for d >= -1, b[1] = P[d + 8] for d <= -1,
// so a lane takes its fragment with one 32-bit load (two when d = -1 and the chunk has a tap 7).
// Building B from the raw filter instead (four halfword loads and their bounds tests a tap row)
// cost 12-17% of the MMA phase (docs/conv-h200.md). A is one ldmatrix.x4 whose sixteen row
// addresses are the sixteen input rows, shifted by r, so no im2col copy is ever made.
//
//   grid   as every depthwise stage (kernels/src/conv/family.cpp): x output tiles, y channel
//          groups of BLOCK_C, z images
//   block  BLOCK_C / CPW warps; warp w owns CPW channels of the block, each a plane of shared
//          memory it alone computes from and writes back to
//   smem   BLOCK_C planes, each the channel's input patch ((TILE_H + R - 1) rows of row_units
//          16-byte units, zero in the padding, past the image and past the patch) as T; then the
//          block's tap pairs, [BLOCK_C][R][chunks][9] words (zero past C). The output tile (alpha
//          and beta applied in f32, rounded to T once) replaces the patch's first TILE_H rows once
//          the warp is done with the channel, then the whole block stores NHWC.
//
// Per tap row and row group a warp loads each 16-byte unit of its 16 input rows once (ldmatrix,
// two units at a time) and feeds it to the two MMAs it belongs to (as k 0-7 of one column block
// and k 8-15 of the previous one), so shared memory reads (the bound of this kernel) are
// xblocks + chunks units instead of 2 x xblocks x chunks.
//
// The NHWC <-> per-channel transposes are 8x8 matrix moves. A warp's step covers four (unit,
// chunk) combinations of one row: lane t holds the 16-byte chunk (8 channels) of pixel t / 4 of
// combination t % 4, and one stmatrix.x4.trans (sm_90; the load) or ldmatrix.x4.trans (the store)
// moves the 512 bytes between those registers and 32 plane rows of 8 pixels, one per (combination,
// channel pair 2i, 2i + 1). A warp's task is one column of combinations over 4 to 8 consecutive
// rows, so its global and shared addresses advance by constant strides (index arithmetic per
// 16 bytes is what made a first version with a division per step 20% slower than the word
// writes it replaced: docs/conv-h200.md). sm_80 has no stmatrix: there a thread loads one chunk
// of two adjacent pixels and writes eight words (each the two pixels of one channel). Bank
// conflicts are designed out: a plane row is an odd number of 16-byte units (the eight rows of
// an ldmatrix phase fall in eight bank groups), and slot_of() places channels in planes whose
// stride, in units, makes the eight rows of each move (channels 8q + 2i, 8q + 2i + 1 of four
// chunks q, or of two chunks at two units) fall in eight bank groups too. block_c is 8, 16 or a
// multiple of 32, so that a move's four combinations are whole.
//
// Row groups of 16 output rows start at 0, 16, ... and the last one at TILE_H - 16, so a tile
// height that is not a multiple of 16 recomputes a few rows (identical values) rather than
// wasting a group. Channels past C and positions past P x Q are computed on zeros and not stored.
// 16-byte accesses need C a multiple of 8 and x and y 16-byte aligned; otherwise element
// accesses. Host side (validity, threads, shared memory): kernels/src/conv/family.cpp.
//
// Accepted by nvcc and NVRTC alike: no host standard headers.
#pragma once

#include "cuop/kernels/common/elements.cuh"
#include "cuop/kernels/common/mma_sync.cuh"
#include "cuop/kernels/conv/args.cuh"

namespace cuop::kernels::conv {

namespace depthwise_mma_detail {

// Words of a plane: `base` rounded up to 16-byte units, and the units to 4 modulo 8 (one chunk per
// pixel), 2 modulo 4 (two) or an odd number (more), as slot_of() needs (see above).
__host__ __device__ constexpr int plane_words(int base, int qc) {
  int units = (base + 3) / 4;
  while (qc == 1 ? units % 8 != 4 : qc == 2 ? units % 4 != 2 : units % 2 != 1) ++units;
  return units * 4;
}

// The plane slot of the block's channel c = 8q + j (chunk q, j 0..7). The eight rows of a
// transposing matrix are channels 8q + 2i + b (b 0..1) of four consecutive chunks (qc a multiple
// of 4), of two chunks at two adjacent units (qc 2), or of one chunk at four units (qc 1); with the
// plane stride of plane_words() their slots land in eight different bank groups. Other qc keep
// c (correct, with some conflicts).
__host__ __device__ constexpr int slot_of(int c, int qc) {
  const int q = c / 8, j = c % 8;
  if (qc == 1) return c;
  if (qc == 2) return 4 * (j / 2) + 2 * q + j % 2;
  if (qc % 4 == 0) return 8 * (j / 2 + 4 * (q / 4)) + 2 * (q % 4) + j % 2;
  return c;
}

// The 16-bit halves number `sel` (0 low, 1 high) of two words, as one word (first in the low half).
__device__ __forceinline__ unsigned halves(unsigned lo_word, unsigned hi_word, int sel) {
  return __byte_perm(lo_word, hi_word, sel ? 0x7632 : 0x5410);
}

// Matrix moves (sm_90, and the store on every target): a warp's step moves four (unit, chunk)
// combinations of one row, qcs = min(qc, 4) chunks of 4 / qcs adjacent units; a column is one
// such group, and a warp's task is one column over consecutive rows.
__host__ __device__ constexpr int move_columns(int units, int qc) {
  const int qcs = qc < 4 ? qc : 4, ups = 4 / qcs;
  return (units + ups - 1) / ups * (qc / qcs);
}
// Rows of a task (4 to 8): the fewest row steps for the busiest warp, then the fewest rounds.
__host__ __device__ constexpr int move_rows(int rows, int columns, int warps) {
  int best = 4, best_steps = 1 << 30;
  for (int u = 4; u <= 8; ++u) {
    const int tasks = columns * ((rows + u - 1) / u), steps = (tasks + warps - 1) / warps * u;
    if (steps <= best_steps) best = u, best_steps = steps;
  }
  return best;
}

}  // namespace depthwise_mma_detail

template <typename T, int R, int S, int BLOCK_C, int TILE_H, int TILE_W, int CPW>
struct depthwise_mma {
  static constexpr int chunks = (S + 7) / 8;                // 8-tap column chunks
  static constexpr int xblocks = TILE_W / 8;                // MMA column blocks of the tile
  static constexpr int row_groups = (TILE_H + 15) / 16;     // MMA row groups of the tile
  static constexpr int qc = BLOCK_C / 8;                    // 16-byte chunks of a pixel
  static constexpr int warps = BLOCK_C / CPW;
  static constexpr int block_threads = warps * 32;
  static constexpr int patch_h = TILE_H + R - 1;
  static constexpr int patch_w = TILE_W + S - 1;
  static constexpr int row_units = (xblocks + chunks) % 2 ? xblocks + chunks : xblocks + chunks + 1;
  static constexpr int row_words = row_units * 4;           // a word: one channel of two pixels
  static constexpr int plane_words = depthwise_mma_detail::plane_words(patch_h * row_words, qc);
  static constexpr int units = xblocks + chunks;            // units a row group reads per tap row
  static constexpr int filter_offset = BLOCK_C * plane_words * 4;
  static constexpr int pair_words = 9;                      // P[-1..7] of a (channel, tap row, chunk)
  static constexpr int tap_rows = BLOCK_C * R * chunks;     // (channel, tap row, chunk) of the block
  static constexpr int filter_bytes = (tap_rows * pair_words * 4 + 15) / 16 * 16;
  // Dynamic shared memory of a launch and the __launch_bounds__ minimum of blocks per SM: as many
  // as an sm_90 SM's 228 KiB hold, at most 4 (kernels/src/conv/family.cpp computes the same). One
  // block at a time leaves each block's load, MMA and store phases unoverlapped.
  static constexpr int smem_bytes = filter_offset + filter_bytes;
  static constexpr int min_blocks = 228 * 1024 / (smem_bytes + 1024) < 1   ? 1
                                    : 228 * 1024 / (smem_bytes + 1024) > 4 ? 4
                                                                           : 228 * 1024 / (smem_bytes + 1024);
  // stmatrix (sm_90 and later) moves the patch into the planes, 8x8 matrices at a time; sm_80
  // writes it word by word. ldmatrix moves the output tile back on every target.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  static constexpr bool by_stmatrix = false;
#else
  static constexpr bool by_stmatrix = true;
#endif
  static constexpr int qcs = qc < 4 ? qc : 4;               // chunks of a move's column
  static constexpr int ups = 4 / qcs;                       // units of a move's column
  static constexpr int load_columns = depthwise_mma_detail::move_columns(row_units, qc);
  static constexpr int load_rows = depthwise_mma_detail::move_rows(patch_h, load_columns, warps);
  static constexpr int store_columns = depthwise_mma_detail::move_columns(xblocks, qc);
  static constexpr int store_rows = depthwise_mma_detail::move_rows(TILE_H, store_columns, warps);
  static constexpr int unroll = 4;                          // sm_80: loads of two pixels in flight per thread

  static_assert(common::elem<T>::bits == 16, "tensor cores take f16 or bf16");
  static_assert(TILE_H >= 16 && TILE_W % 8 == 0, "tile_h >= 16, tile_w a multiple of 8");
  static_assert(BLOCK_C % 8 == 0 && BLOCK_C % CPW == 0, "block_c a multiple of 8 and of cpw");
  static_assert(qc == 1 || qc == 2 || qc % 4 == 0, "block_c 8, 16 or a multiple of 32 (whole matrix moves)");
  static_assert(block_threads >= 32 && block_threads <= 1024, "1 to 32 warps");

  template <typename U>
  using elem = common::elem<U>;
  using words8 = uint4;

  struct tile_t {
    int n, c0, oh0, ow0, ih0, iw0;
    bool vec_ok;
  };

  static __device__ __forceinline__ unsigned* plane(unsigned* planes, int slot) {
    return planes + slot * plane_words;
  }
  // The plane of the block's channel c.
  static __device__ __forceinline__ unsigned* channel_plane(unsigned* planes, int c) {
    return plane(planes, depthwise_mma_detail::slot_of(c, qc));
  }

  // Combination k (0..3) of a move's column `col` in rows of `units` units: its unit (clamped to
  // the last; `dup` when clamped: the lane repeats a live one's move) and its chunk.
  struct combination_t {
    int unit, chunk;
    bool dup;
  };
  static __device__ __forceinline__ combination_t combination(int col, int k, int units) {
    const int unit = col / (qc / qcs) * ups + k / qcs;
    return {unit < units ? unit : units - 1, col % (qc / qcs) * qcs + k % qcs, unit >= units};
  }
  // The shared-memory address of the plane row (row0, column col) that lane l gives a matrix move:
  // row l % 8 of matrix l / 8 is channel pair 2 (l / 8) of combination l % 8 / 2.
  static __device__ __forceinline__ unsigned move_row(unsigned* planes, int col, int row0, int units, int lane) {
    const combination_t m = combination(col, lane % 8 / 2, units);
    return common::smem_addr(channel_plane(planes, 8 * m.chunk + 2 * (lane / 8) + lane % 2)) +
           4u * (row0 * row_words) + 16u * m.unit;
  }

  // 8 channels from x[i] (channel c; zeros past C).
  static __device__ __forceinline__ words8 load_at(const conv_args& a, const tile_t& t, long long i, int c) {
    const unsigned short* x = static_cast<const unsigned short*>(a.x) + i;
    if (t.vec_ok) return *reinterpret_cast<const words8*>(x);
    unsigned w[4] = {0, 0, 0, 0};
#pragma unroll
    for (int e = 0; e < 8; ++e)
      if (c + e < a.c) w[e / 2] |= static_cast<unsigned>(x[e]) << (16 * (e % 2));
    return make_uint4(w[0], w[1], w[2], w[3]);
  }
  // 8 channels from c (zeros past C) of pixel (iy, ix) of image n, or zeros outside the image.
  static __device__ __forceinline__ words8 load_chunk(const conv_args& a, const tile_t& t, int iy, int ix, int c,
                                                      bool inside) {
    if (!inside || iy < 0 || iy >= a.h || ix < 0 || ix >= a.w_ || c >= a.c) return make_uint4(0, 0, 0, 0);
    return load_at(a, t, ((static_cast<long long>(t.n) * a.h + iy) * a.w_ + ix) * a.c + c, c);
  }

  static __device__ __forceinline__ void words_of(const words8& v, unsigned (&w)[4]) {
    w[0] = v.x; w[1] = v.y; w[2] = v.z; w[3] = v.w;
  }

  // The eight taps of tap row i (channel, tap row, chunk) of the block, zero past C and S.
  static __device__ __forceinline__ void gather_taps(const conv_args& a, const tile_t& t, int i,
                                                     unsigned short (&tv)[8]) {
    const int c_local = i / (R * chunks), r = i / chunks % R, s_lo = 8 * (i % chunks);
    const bool live = t.c0 + c_local < a.c;
    const unsigned short* w = static_cast<const unsigned short*>(a.w) +
                              (static_cast<long long>(t.c0 + c_local) * R + r) * S + s_lo;
#pragma unroll
    for (int k = 0; k < 8; ++k) tv[k] = live && s_lo + k < S ? w[k] : 0;
  }
  // Its nine tap pairs P[-1..7] (see the header comment).
  static __device__ __forceinline__ void write_pairs(unsigned* pairs, int i, const unsigned short (&tv)[8]) {
#pragma unroll
    for (int p = -1; p < 8; ++p)
      pairs[i * pair_words + p + 1] =
          (p >= 0 ? tv[p] : 0u) | (p + 1 < 8 ? static_cast<unsigned>(tv[p + 1]) : 0u) << 16;
  }

  // sm_80: one batch of the patch's transposes (unroll tasks a thread from `base`, a task one chunk
  // of two adjacent pixels written as eight words): every load first, then the shared-memory writes.
  static __device__ __forceinline__ void word_batch(const conv_args& a, const tile_t& t, unsigned* planes, int base) {
    constexpr int tasks = patch_h * row_words * qc;
    words8 px[unroll][2];
#pragma unroll
    for (int u = 0; u < unroll; ++u) {
      const int task = base + u * block_threads;
      const int q = task % qc, word = task / qc;
      const int row = word / row_words, col = 2 * (word % row_words);
#pragma unroll
      for (int e = 0; e < 2; ++e)
        px[u][e] = load_chunk(a, t, t.ih0 + row, t.iw0 + col + e, t.c0 + 8 * q, task < tasks && col + e < patch_w);
    }
#pragma unroll
    for (int u = 0; u < unroll; ++u) {
      const int task = base + u * block_threads;
      if (task >= tasks) break;
      const int q = task % qc, word = task / qc;
      unsigned w0[4], w1[4];
      words_of(px[u][0], w0);
      words_of(px[u][1], w1);
#pragma unroll
      for (int j = 0; j < 8; ++j)
        channel_plane(planes, 8 * q + j)[word] = depthwise_mma_detail::halves(w0[j / 2], w1[j / 2], j % 2);
    }
  }

  // sm_90: one warp task of the patch, column `task % load_columns` over load_rows rows: lane l
  // loads pixel l / 4 of combination l % 4 in each row (the addresses advance by one image row),
  // then one stmatrix.x4.trans a row writes the warp's 512 bytes into 32 plane rows.
  static __device__ __forceinline__ void move_batch(const conv_args& a, const tile_t& t, unsigned* planes, int task) {
    const int lane = static_cast<int>(threadIdx.x) % 32;
    const int col = task % load_columns, row0 = task / load_columns * load_rows;
    const combination_t m = combination(col, lane % 4, row_units);
    const int px = 8 * m.unit + lane / 4, ix = t.iw0 + px, c = t.c0 + 8 * m.chunk, iy0 = t.ih0 + row0;
    const bool col_live = px < patch_w && ix >= 0 && ix < a.w_ && c < a.c;
    const long long i0 = ((static_cast<long long>(t.n) * a.h + iy0) * a.w_ + ix) * a.c + c;
    const long long row_stride = static_cast<long long>(a.w_) * a.c;
    words8 v[load_rows];
#pragma unroll
    for (int u = 0; u < load_rows; ++u) {
      const bool live = col_live && row0 + u < patch_h && iy0 + u >= 0 && iy0 + u < a.h;
      v[u] = live ? load_at(a, t, i0 + u * row_stride, c) : make_uint4(0, 0, 0, 0);
    }
    const unsigned addr = move_row(planes, col, row0, row_units, lane);
#pragma unroll
    for (int u = 0; u < load_rows; ++u) {
      if (row0 + u >= patch_h) break;
      unsigned w[4];
      words_of(v[u], w);
      common::stmatrix_x4_trans(addr + 4u * (u * row_words), w);
    }
  }

  // The input patch, transposed into per-channel planes, and the block's tap pairs. A thread's
  // first tap row is loaded before its first batch of patch loads and written after it, so that
  // its loads share the batch's wait instead of adding one of their own.
  static __device__ void load_patch(const conv_args& a, const tile_t& t, unsigned* planes, unsigned short* filt) {
    const int tid = static_cast<int>(threadIdx.x);
    unsigned* pairs = reinterpret_cast<unsigned*>(filt);
    unsigned short tv[8];
    if (tid < tap_rows) gather_taps(a, t, tid, tv);
    if constexpr (by_stmatrix) {
      constexpr int tasks = load_columns * ((patch_h + load_rows - 1) / load_rows);
      for (int task = tid / 32; task < tasks; task += warps) {
        move_batch(a, t, planes, task);
        if (task == tid / 32 && tid < tap_rows) write_pairs(pairs, tid, tv);
      }
      if (tid / 32 >= tasks && tid < tap_rows) write_pairs(pairs, tid, tv);
    } else {
      for (int base = tid; base < patch_h * row_words * qc; base += block_threads * unroll) {
        word_batch(a, t, planes, base);
        if (base == tid && tid < tap_rows) write_pairs(pairs, tid, tv);
      }
    }
    for (int i = tid + block_threads; i < tap_rows; i += block_threads) {  // more tap rows than threads
      gather_taps(a, t, i, tv);
      write_pairs(pairs, i, tv);
    }
  }

  // The Toeplitz fragment of chunk ch of a tap row (its nine pairs at `pr`) for a lane whose
  // d = k0 - n_col: taps d, d + 1 and d + 8, d + 9 of the chunk.
  // (ch comes from an unrolled loop, so the test of a tap 7 folds away.)
  static __device__ __forceinline__ void fragment(const unsigned* pr, int ch, int d, unsigned (&b)[2]) {
    const unsigned v = pr[(d >= -1 ? d : d + 8) + 1];
    b[0] = d >= -1 ? v : 0u;
    b[1] = d <= -2 ? v : 0u;
    if (8 * ch + 7 < S && d == -1) b[1] = pr[8];  // the chunk has a tap 7: lane d = -1 needs P[7] too
  }

  // Computes the block's channel c_local and writes its output tile over its plane's first rows.
  static __device__ void compute_channel(const conv_args& a, const tile_t& t, unsigned* planes,
                                         const unsigned short* filt, int c_local) {
    const int lane = static_cast<int>(threadIdx.x) % 32;
    const unsigned* pc = reinterpret_cast<const unsigned*>(filt) + c_local * R * chunks * pair_words;
    const int n_col = lane / 4, k0 = 2 * (lane % 4), d = k0 - n_col;
    // ldmatrix.x4 at unit u: lanes 0-7 address rows 0-7 of unit u, 8-15 rows 8-15, 16-23 rows 0-7
    // of unit u + 1, 24-31 rows 8-15 (x2: the first two).
    const int a_row = (lane & 7) + ((lane >> 3) & 1) * 8, a_unit = lane >> 4;
    const unsigned base = common::smem_addr(channel_plane(planes, c_local)) + 4u * (a_row * row_words) + 16u * a_unit;

    float acc[row_groups][xblocks][4];
#pragma unroll
    for (int g = 0; g < row_groups; ++g)
#pragma unroll
      for (int xb = 0; xb < xblocks; ++xb)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[g][xb][e] = 0.f;

#pragma unroll 1
    for (int r = 0; r < R; ++r) {
      unsigned b[chunks][2];
#pragma unroll
      for (int ch = 0; ch < chunks; ++ch) fragment(pc + (r * chunks + ch) * pair_words, ch, d, b[ch]);
#pragma unroll
      for (int g = 0; g < row_groups; ++g) {
        const int row0 = 16 * g < TILE_H - 16 ? 16 * g : TILE_H - 16;
        const unsigned row_addr = base + 4u * ((row0 + r) * row_words);
        unsigned u[units + 1][2];  // unit k: rows 0-7 and 8-15 of columns 8k..8k+7
#pragma unroll
        for (int k = 0; k + 1 < units; k += 2) {
          unsigned four[4];
          common::ldmatrix_x4(four, row_addr + 16u * k);
          u[k][0] = four[0]; u[k][1] = four[1]; u[k + 1][0] = four[2]; u[k + 1][1] = four[3];
        }
        if constexpr (units % 2) common::ldmatrix_x2(u[units - 1], row_addr + 16u * (units - 1));
#pragma unroll
        for (int xb = 0; xb < xblocks; ++xb)
#pragma unroll
          for (int ch = 0; ch < chunks; ++ch) {
            const unsigned af[4] = {u[xb + ch][0], u[xb + ch][1], u[xb + ch + 1][0], u[xb + ch + 1][1]};
            common::mma_16816<T>(acc[g][xb], af, b[ch]);
          }
      }
    }

    __syncwarp();  // every lane's ldmatrix of this plane is done before it is overwritten
    unsigned* out = channel_plane(planes, c_local);
    if (a.beta == 0.f) {
#pragma unroll
      for (int g = 0; g < row_groups; ++g) {
        const int row0 = 16 * g < TILE_H - 16 ? 16 * g : TILE_H - 16;
#pragma unroll
        for (int xb = 0; xb < xblocks; ++xb)
#pragma unroll
          for (int h = 0; h < 2; ++h)
            out[(row0 + n_col + 8 * h) * row_words + xb * 4 + k0 / 2] =
                elem<T>::pack2(a.alpha * acc[g][xb][2 * h], a.alpha * acc[g][xb][2 * h + 1]);
      }
      return;
    }
    // beta != 0: alpha x conv + beta x y in f32, rounded once. y is read where the fragment
    // lies (8 elements a column block, a compiler fence between blocks: few registers).
    const int c = t.c0 + c_local;
    const unsigned short* y = static_cast<const unsigned short*>(a.y) +
                              ((static_cast<long long>(t.n) * a.p + t.oh0) * a.q + t.ow0) * a.c + c;
#pragma unroll
    for (int g = 0; g < row_groups; ++g) {
      const int row0 = 16 * g < TILE_H - 16 ? 16 * g : TILE_H - 16;
#pragma unroll
      for (int xb = 0; xb < xblocks; ++xb) {
        asm volatile("" ::: "memory");
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int yt = row0 + n_col + 8 * h, xt = xb * 8 + k0;
          float v[2];
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            v[e] = a.alpha * acc[g][xb][2 * h + e];
            if (c < a.c && t.oh0 + yt < a.p && t.ow0 + xt + e < a.q)
              v[e] = fmaf(a.beta, elem<T>::to_float(y[(yt * a.q + xt + e) * a.c]), v[e]);
          }
          out[yt * row_words + xt / 2] = elem<T>::pack2(v[0], v[1]);
        }
      }
    }
  }

  // 8 channels (the words w) to y[i], channel c (none past C).
  static __device__ __forceinline__ void store_at(const conv_args& a, const tile_t& t, long long i, int c,
                                                  const unsigned (&w)[4]) {
    unsigned short* y = static_cast<unsigned short*>(a.y) + i;
    if (t.vec_ok) {
      *reinterpret_cast<words8*>(y) = make_uint4(w[0], w[1], w[2], w[3]);
    } else {
#pragma unroll
      for (int e = 0; e < 8; ++e)
        if (c + e < a.c) y[e] = static_cast<unsigned short>(w[e / 2] >> (16 * (e % 2)));
    }
  }

  // The output tiles of every plane, transposed back to NHWC. A warp task is a move column over
  // store_rows rows: one ldmatrix.x4.trans a row, after which lane l holds 8 channels of pixel
  // l / 4 of combination l % 4, stored with the address advancing by one image row.
  static __device__ void store_tile(const conv_args& a, const tile_t& t, unsigned* planes) {
    constexpr int tasks = store_columns * ((TILE_H + store_rows - 1) / store_rows);
    const int lane = static_cast<int>(threadIdx.x) % 32;
    for (int task = static_cast<int>(threadIdx.x) / 32; task < tasks; task += warps) {
      const int col = task % store_columns, row0 = task / store_columns * store_rows;
      const combination_t m = combination(col, lane % 4, xblocks);
      const int ox = t.ow0 + 8 * m.unit + lane / 4, c = t.c0 + 8 * m.chunk, oy0 = t.oh0 + row0;
      const bool col_live = !m.dup && ox < a.q && c < a.c;
      const long long i0 = ((static_cast<long long>(t.n) * a.p + oy0) * a.q + ox) * a.c + c;
      const long long row_stride = static_cast<long long>(a.q) * a.c;
      const unsigned addr = move_row(planes, col, row0, xblocks, lane);
#pragma unroll
      for (int u = 0; u < store_rows; ++u) {
        if (row0 + u >= TILE_H) break;
        unsigned w[4];
        common::ldmatrix_x4_trans(w, addr + 4u * (u * row_words));
        if (col_live && oy0 + u < a.p) store_at(a, t, i0 + u * row_stride, c, w);
      }
    }
  }

  static __device__ void run(const conv_args& a, void* smem) {
    unsigned* planes = static_cast<unsigned*>(smem);
    const int tiles_w = (a.q + TILE_W - 1) / TILE_W;
    tile_t t;
    t.n = static_cast<int>(blockIdx.z);
    t.c0 = static_cast<int>(blockIdx.y) * BLOCK_C;
    t.oh0 = static_cast<int>(blockIdx.x) / tiles_w * TILE_H;
    t.ow0 = static_cast<int>(blockIdx.x) % tiles_w * TILE_W;
    t.ih0 = t.oh0 - a.pad_h;
    t.iw0 = t.ow0 - a.pad_w;
    t.vec_ok = a.c % 8 == 0 && reinterpret_cast<unsigned long long>(a.x) % 16 == 0 &&
               reinterpret_cast<unsigned long long>(a.y) % 16 == 0;

    unsigned short* filt = reinterpret_cast<unsigned short*>(static_cast<unsigned char*>(smem) + filter_offset);
    load_patch(a, t, planes, filt);
    __syncthreads();
    const int warp = static_cast<int>(threadIdx.x) / 32;
#pragma unroll 1
    for (int i = 0; i < CPW; ++i) compute_channel(a, t, planes, filt, warp * CPW + i);
    __syncthreads();
    store_tile(a, t, planes);
  }
};

}  // namespace cuop::kernels::conv
