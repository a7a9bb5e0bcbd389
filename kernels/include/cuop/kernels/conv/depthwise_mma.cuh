// Conv family depthwise, mma: the filter on tensor cores (mma.sync m16n8k16 and m16n8k8,
// f16 / bf16 in, f32 accumulation). NHWC, stride 1, dilation 1, any R x S (S in chunks of 8 taps).
//
// One filter row against a strip of input is a Toeplitz product. For a channel, tap row r and a
// chunk of 8 tap columns s0..s0+7, sixteen output rows (the MMA's M) by 8 adjacent output columns
// x0..x0+7 (its N) are
//     C[m][n] += sum_j A[m][j] * B[j][n],  A[m][j] = in[y + m + r][x0 + s0 + j]  (j < 16)
//                                          B[j][n] = w[r][s0 + j - n] when 0 <= j - n < 8, s0 + j - n < S
// B depends only on the channel, tap row and chunk: lane (n, k0) holds taps d, d + 1 ("low", from
// input unit x0 + s0, the block's own) and d + 8, d + 9 ("high", from the next unit), d = k0 - n.
// The block keeps, per (channel, tap row, chunk), the nine tap pairs P[p] = (tap p, tap p + 1),
// p = -1..7 (zero outside the chunk and the filter): low = P[d] for d >= -1, high = P[d + 8] for
// d <= -1, so a lane takes both with one 32-bit load (two when d = -1 and the chunk has a tap 7).
// Building them from the raw filter in the loop instead (four halfword loads and their bounds tests
// a tap row) costs the MMA phase more than the table's loads do.
//
// Tap rows go in pairs: the MMA's k 0-7 are a 16-byte unit of input columns (rows y..y+15) at tap
// row r, and k 8-15 the same unit at tap row r + 1. One ldmatrix.x4 (lanes 0-15 address the
// sixteen rows from r, lanes 16-31 from r + 1; no im2col copy is ever made) is then the A
// operand of two m16n8k16: the unit's own column block against both rows' low taps, and the
// previous block against their high taps. Each unit is read once per tap row and row group
// (xblocks + chunks units, not 2 x xblocks x chunks), and no register moves pair units into the
// aligned quads an MMA takes, which pairing adjacent units of one tap row (the first version of
// this kernel) needed: two moves per MMA. An odd R's last tap row runs as m16n8k8 pairs: two per
// column block, one per unit.
//
//   grid   as every depthwise algorithm (kernels/src/conv/family.cpp): x output tiles, y channel
//          groups of BLOCK_C, z images
//   block  BLOCK_C / CPW warps; warp w owns CPW channels of the block, each a plane of shared
//          memory it alone computes from and writes back to
//   smem   BLOCK_C planes, each the channel's input patch ((TILE_H + R - 1) rows of row_units
//          16-byte units, zero in the padding, past the image and past the patch) as T; then the
//          block's tap pairs, [BLOCK_C][R][chunks][9] words (zero past C). The output tile (alpha
//          and beta applied in f32, rounded to T once) replaces the patch's first TILE_H rows once
//          the warp is done with the channel, then the whole block stores NHWC.
//
// The NHWC <-> per-channel transposes go through registers: a thread loads one 16-byte chunk (8
// channels) of two adjacent pixels and writes eight words (each the two pixels of one channel).
// Bank conflicts are designed out: a plane row is an odd number of 16-byte units (the eight rows
// of an ldmatrix phase fall in eight bank groups); channel 8q + j lives in plane slot j * QC + q
// (QC = BLOCK_C / 8 chunks per pixel) and the plane stride is padded to 32 / QC words modulo 32,
// so the QC chunks a warp moves at once land in disjoint banks.
//
// Row groups of 16 output rows start at 0, 16, ... and the last one at TILE_H - 16, so a tile
// height that is not a multiple of 16 recomputes a few rows (identical values) rather than
// wasting a group. Channels past C and positions past P x Q are computed on zeros and not stored.
// 16-byte accesses need C a multiple of 8 and x and y 16-byte aligned; otherwise element
// accesses. Host side (validity, threads, shared memory): kernels/src/conv/family.cpp.
//
// Accepted by nvcc and NVRTC alike: no host standard headers.
// size-limit: the tensor-core algorithms (mma, mma_tma) and their fragment helpers in one kernel; moving code out changes the family's source hash (stale results)
#pragma once

#include "cuop/kernels/common/elements.cuh"
#include "cuop/kernels/common/mma_sync.cuh"
#include "cuop/kernels/common/tma.cuh"
#include "cuop/kernels/conv/args.cuh"
#include "cuop/kernels/conv/depthwise_geometry.hpp"

namespace cuop::kernels::conv {

namespace depthwise_mma_detail {

// Words of a plane: `base` rounded up to 16 bytes and then to 32 / qc words modulo 32 (see above;
// one chunk per pixel needs no padding; qc other than 2 and 4 gets 4 words, a few 2-way conflicts).
__host__ __device__ constexpr int plane_words(int base, int qc) {
  int w = (base + 3) / 4 * 4;
  if (qc == 1) return w;
  const int target = qc == 2 ? 16 : qc == 4 ? 8 : 4;
  while (w % 32 != target) w += 4;
  return w;
}

// The 16-bit halves number `sel` (0 low, 1 high) of two words, as one word (first in the low half).
__device__ __forceinline__ unsigned halves(unsigned lo_word, unsigned hi_word, int sel) {
  return __byte_perm(lo_word, hi_word, sel ? 0x7632 : 0x5410);
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
  // as default_smem_per_sm holds, at most 4 (depthwise_geometry.hpp, as the planner). One
  // block at a time leaves each block's load, MMA and store phases unoverlapped.
  static constexpr int smem_bytes = filter_offset + filter_bytes;
  static __host__ __device__ constexpr int blocks_for(int smem) {
    return static_cast<int>(blocks_for_smem(smem, default_smem_per_sm, 4));
  }
  static constexpr int min_blocks = blocks_for(smem_bytes);
  static constexpr int unroll = 4;                          // transposes in flight per thread

  static_assert(common::elem<T>::bits == 16, "tensor cores take f16 or bf16");
  static_assert(TILE_H >= 16 && TILE_W % 8 == 0, "tile_h >= 16, tile_w a multiple of 8");
  static_assert(BLOCK_C % 8 == 0 && BLOCK_C % CPW == 0, "block_c a multiple of 8 and of cpw");
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

  // The first plane row of row group g: groups start 16 rows apart, the last at TILE_H - 16.
  static __host__ __device__ constexpr int group_row(int g) { return 16 * g < TILE_H - 16 ? 16 * g : TILE_H - 16; }

  // 8 channels from c (zeros past C) of pixel (iy, ix) of image n, or zeros outside the image.
  static __device__ __forceinline__ words8 load_chunk(const conv_args& a, const tile_t& t, int iy, int ix, int c,
                                                      bool inside) {
    words8 v = make_uint4(0, 0, 0, 0);
    if (!inside || iy < 0 || iy >= a.h || ix < 0 || ix >= a.w_ || c >= a.c) return v;
    const long long pix = (static_cast<long long>(t.n) * a.h + iy) * a.w_ + ix;
    const unsigned short* x = static_cast<const unsigned short*>(a.x) + pix * a.c + c;
    if (t.vec_ok) return *reinterpret_cast<const words8*>(x);
    unsigned w[4] = {0, 0, 0, 0};
#pragma unroll
    for (int e = 0; e < 8; ++e)
      if (c + e < a.c) w[e / 2] |= static_cast<unsigned>(x[e]) << (16 * (e % 2));
    return make_uint4(w[0], w[1], w[2], w[3]);
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

  // The patch's transposes, one task each: chunk q (8 channels) of the two pixels at patch row
  // `row`, columns col and col + 1, which plane word `word` of the chunk's 8 planes holds.
  static constexpr int patch_tasks = patch_h * row_words * qc;
  struct task_t {
    int q, word, row, col;
  };
  static __device__ __forceinline__ task_t task_of(int task) {
    const int q = task % qc, word = task / qc;
    return {q, word, word / row_words, 2 * (word % row_words)};
  }

  // A transpose task's stores: its two pixels' chunks as eight words, each the two pixels of one
  // channel.
  static __device__ __forceinline__ void write_task(unsigned* planes, const task_t& k, const words8 (&px)[2]) {
    unsigned w0[4], w1[4];
    words_of(px[0], w0);
    words_of(px[1], w1);
#pragma unroll
    for (int j = 0; j < 8; ++j)
      plane(planes, j * qc + k.q)[k.word] = depthwise_mma_detail::halves(w0[j / 2], w1[j / 2], j % 2);
  }

  // One batch of the patch's transposes (unroll tasks a thread from `base`): every load first,
  // then the shared-memory writes. With TAPS the batch also carries the thread's first tap row,
  // so that its loads share the batch's wait instead of adding one of their own.
  template <bool TAPS>
  static __device__ __forceinline__ void patch_batch(const conv_args& a, const tile_t& t, unsigned* planes,
                                                     unsigned* pairs, int base, int tid) {
    unsigned short tv[8];
    if (TAPS && tid < tap_rows) gather_taps(a, t, tid, tv);
    words8 px[unroll][2];
#pragma unroll
    for (int u = 0; u < unroll; ++u) {
      const int task = base + u * block_threads;
      const task_t k = task_of(task);
      const bool live = task < patch_tasks;
#pragma unroll
      for (int e = 0; e < 2; ++e)
        px[u][e] = load_chunk(a, t, t.ih0 + k.row, t.iw0 + k.col + e, t.c0 + 8 * k.q, live && k.col + e < patch_w);
    }
#pragma unroll
    for (int u = 0; u < unroll; ++u) {
      const int task = base + u * block_threads;
      if (task >= patch_tasks) break;
      write_task(planes, task_of(task), px[u]);
    }
    if (TAPS && tid < tap_rows) write_pairs(pairs, tid, tv);
  }

  // The input patch, transposed into per-channel planes, and the block's tap pairs (tid: the
  // thread's index among the block_threads that share the work).
  static __device__ void load_patch(const conv_args& a, const tile_t& t, unsigned* planes, unsigned short* filt,
                                    int tid) {
    unsigned* pairs = reinterpret_cast<unsigned*>(filt);
    patch_batch<true>(a, t, planes, pairs, tid, tid);
    for (int base = tid + block_threads * unroll; base < patch_tasks; base += block_threads * unroll)
      patch_batch<false>(a, t, planes, pairs, base, tid);
    for (int i = tid + block_threads; i < tap_rows; i += block_threads) {  // more tap rows than threads
      unsigned short tv[8];
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

  // One row group's accumulators times alpha (beta == 0), rounded to T once, over the 16 rows of
  // its plane `out` from row0 (once every lane is done reading those rows).
  static __device__ __forceinline__ void write_group(float alpha, unsigned* out, int row0,
                                                     const float (&acc)[xblocks][4]) {
    const int lane = static_cast<int>(threadIdx.x) % 32, n_col = lane / 4, k0 = 2 * (lane % 4);
#pragma unroll
    for (int xb = 0; xb < xblocks; ++xb)
#pragma unroll
      for (int h = 0; h < 2; ++h)
        out[(row0 + n_col + 8 * h) * row_words + xb * 4 + k0 / 2] =
            elem<T>::pack2(alpha * acc[xb][2 * h], alpha * acc[xb][2 * h + 1]);
  }
  // A channel's accumulators, every row group, over the first TILE_H rows of its plane.
  static __device__ __forceinline__ void write_scaled(float alpha, unsigned* out,
                                                      const float (&acc)[row_groups][xblocks][4]) {
#pragma unroll
    for (int g = 0; g < row_groups; ++g) write_group(alpha, out, group_row(g), acc[g]);
  }

  // Computes one channel (plane `slot`) and writes its output tile over the patch's first rows.
  static __device__ void compute_channel(const conv_args& a, const tile_t& t, unsigned* planes,
                                         const unsigned short* filt, int slot) {
    // #lizard forgives(length): the tap loop's fragment loads, MMAs and the output write share one channel's registers
    const int lane = static_cast<int>(threadIdx.x) % 32;
    const int c_local = 8 * (slot % qc) + slot / qc;
    const unsigned* pc = reinterpret_cast<const unsigned*>(filt) + c_local * R * chunks * pair_words;
    const int n_col = lane / 4, k0 = 2 * (lane % 4), d = k0 - n_col;
    const unsigned plane_addr = common::smem_addr(plane(planes, slot));

    float acc[row_groups][xblocks][4];
#pragma unroll
    for (int g = 0; g < row_groups; ++g)
#pragma unroll
      for (int xb = 0; xb < xblocks; ++xb)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[g][xb][e] = 0.f;

    // Tap rows in pairs. ldmatrix.x4 at unit u: lanes 0-15 address rows 0-15 of the unit from tap
    // row r (k 0-7 of rows g and g + 8), lanes 16-31 rows 0-15 from r + 1 (k 8-15).
    const unsigned pair_base = plane_addr + 4u * (((lane & 15) + (lane >> 4)) * row_words);
#pragma unroll 1
    for (int r = 0; r + 1 < R; r += 2) {
      unsigned lo[chunks][2], hi[chunks][2];  // per chunk: its taps in a unit's own block, in the previous one
#pragma unroll
      for (int ch = 0; ch < chunks; ++ch) {
        unsigned b0[2], b1[2];
        fragment(pc + (r * chunks + ch) * pair_words, ch, d, b0);
        fragment(pc + ((r + 1) * chunks + ch) * pair_words, ch, d, b1);
        lo[ch][0] = b0[0], lo[ch][1] = b1[0], hi[ch][0] = b0[1], hi[ch][1] = b1[1];
      }
#pragma unroll
      for (int g = 0; g < row_groups; ++g) {
        const unsigned row_addr = pair_base + 4u * ((group_row(g) + r) * row_words);
        unsigned q[units][4];
#pragma unroll
        for (int k = 0; k < units; ++k) common::ldmatrix_x4(q[k], row_addr + 16u * k);
#pragma unroll
        for (int ch = 0; ch < chunks; ++ch)
#pragma unroll
          for (int xb = 0; xb < xblocks; ++xb) common::mma_16816<T>(acc[g][xb], q[xb + ch], lo[ch]);
#pragma unroll
        for (int ch = 0; ch < chunks; ++ch)
#pragma unroll
          for (int xb = 0; xb < xblocks; ++xb) common::mma_16816<T>(acc[g][xb], q[xb + ch + 1], hi[ch]);
      }
    }
    if constexpr (R % 2) {  // the last tap row alone: each unit (rows 0-15) one m16n8k8 operand
      // ldmatrix.x4 at unit u: lanes 0-7 rows 0-7 of unit u, 8-15 rows 8-15, 16-31 the same of u + 1.
      const unsigned unit_base = plane_addr + 4u * ((lane & 15) * row_words) + 16u * (lane >> 4);
      unsigned b[chunks][2];
#pragma unroll
      for (int ch = 0; ch < chunks; ++ch) fragment(pc + ((R - 1) * chunks + ch) * pair_words, ch, d, b[ch]);
#pragma unroll
      for (int g = 0; g < row_groups; ++g) {
        const unsigned row_addr = unit_base + 4u * ((group_row(g) + R - 1) * row_words);
        unsigned u[units + 1][2];
#pragma unroll
        for (int k = 0; k + 1 < units; k += 2) {
          unsigned four[4];
          common::ldmatrix_x4(four, row_addr + 16u * k);
          u[k][0] = four[0], u[k][1] = four[1], u[k + 1][0] = four[2], u[k + 1][1] = four[3];
        }
        if constexpr (units % 2) common::ldmatrix_x2(u[units - 1], row_addr + 16u * (units - 1));
#pragma unroll
        for (int ch = 0; ch < chunks; ++ch)
#pragma unroll
          for (int xb = 0; xb < xblocks; ++xb) common::mma_1688<T>(acc[g][xb], u[xb + ch], b[ch][0]);
#pragma unroll
        for (int ch = 0; ch < chunks; ++ch)
#pragma unroll
          for (int xb = 0; xb < xblocks; ++xb) common::mma_1688<T>(acc[g][xb], u[xb + ch + 1], b[ch][1]);
      }
    }

    __syncwarp();  // every lane's ldmatrix of this plane is done before it is overwritten
    unsigned* out = plane(planes, slot);
    if (a.beta == 0.f) {
      write_scaled(a.alpha, out, acc);
      return;
    }
    // beta != 0: alpha x conv + beta x y in f32, rounded once. y is read where the fragment
    // lies (8 elements a column block, a compiler fence between blocks: few registers).
    const int c = t.c0 + c_local;
    const unsigned short* y = static_cast<const unsigned short*>(a.y) +
                              ((static_cast<long long>(t.n) * a.p + t.oh0) * a.q + t.ow0) * a.c + c;
#pragma unroll
    for (int g = 0; g < row_groups; ++g) {
      const int row0 = group_row(g);
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

  // 8 channels from c of output pixel (oy, ox).
  static __device__ __forceinline__ void store_chunk(const conv_args& a, const tile_t& t, int oy, int ox, int c,
                                                     const unsigned (&w)[4]) {
    const long long pix = (static_cast<long long>(t.n) * a.p + oy) * a.q + ox;
    unsigned short* y = static_cast<unsigned short*>(a.y) + pix * a.c + c;
    if (t.vec_ok) {
      *reinterpret_cast<words8*>(y) = make_uint4(w[0], w[1], w[2], w[3]);
    } else {
#pragma unroll
      for (int e = 0; e < 8; ++e)
        if (c + e < a.c) y[e] = static_cast<unsigned short>(w[e / 2] >> (16 * (e % 2)));
    }
  }

  // The output tiles of every plane, transposed back to NHWC (tid as in load_patch).
  static __device__ void store_tile(const conv_args& a, const tile_t& t, unsigned* planes, int tid) {
    constexpr int pairs = TILE_W / 2;
    constexpr int tasks = TILE_H * pairs * qc;
    for (int task = tid; task < tasks; task += block_threads) {
      const int q = task % qc, p = task / qc;
      const int y = p / pairs, x = 2 * (p % pairs);
      const int oy = t.oh0 + y, ox = t.ow0 + x, c = t.c0 + 8 * q;
      if (oy >= a.p || ox >= a.q || c >= a.c) continue;
      unsigned w[8];
#pragma unroll
      for (int j = 0; j < 8; ++j) w[j] = plane(planes, j * qc + q)[y * row_words + x / 2];
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        if (ox + e >= a.q) break;
        unsigned bits[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) bits[i] = depthwise_mma_detail::halves(w[2 * i], w[2 * i + 1], e);
        store_chunk(a, t, oy, ox + e, c, bits);
      }
    }
  }

  // The block's tile: x output tiles, y channel groups, z images (family.cpp's launch plan).
  static __device__ __forceinline__ tile_t tile_of(const conv_args& a) {
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
    return t;
  }

  // The MMAs of every channel of the block, then the block's NHWC stores.
  static __device__ __forceinline__ void compute_and_store(const conv_args& a, const tile_t& t, unsigned* planes,
                                                           const unsigned short* filt, int tid) {
#pragma unroll 1
    for (int i = 0; i < CPW; ++i) compute_channel(a, t, planes, filt, tid / 32 * CPW + i);
    __syncthreads();
    store_tile(a, t, planes, tid);
  }

  static __device__ void run(const conv_args& a, void* smem) {
    unsigned* planes = static_cast<unsigned*>(smem);
    const tile_t t = tile_of(a);
    unsigned short* filt = reinterpret_cast<unsigned short*>(static_cast<unsigned char*>(smem) + filter_offset);
    const int tid = static_cast<int>(threadIdx.x);
    load_patch(a, t, planes, filt, tid);
    __syncthreads();
    compute_and_store(a, t, planes, filt, tid);
  }

  // ---- mma_tma: the patch through one TMA copy ---------------------------------------------------
  // The tile's raw patch (BLOCK_C channels x patch_w x patch_h of NHWC x; the tensor map fills
  // zeros outside the image and past C) lands in one tensor copy where the planes will be (it is
  // smaller). The threads gather the taps while it is in flight, then each moves its share of the
  // raw patch into registers, a barrier, and writes it out as planes (the transposes of mma,
  // from shared memory instead of global). No global load of x goes through the threads. Then
  // mma's MMAs and stores. What it saves is the threads' load latency, so it pays on tall
  // patches of few channels and ties mma elsewhere; the sweep decides per layer.
  // Shared memory: mma's, then the copy's mbarrier at the next 128 bytes.
  static constexpr int raw_row_bytes = patch_w * BLOCK_C * 2;
  static constexpr int raw_bytes = patch_h * raw_row_bytes;
  static constexpr int tma_per_thread = (patch_tasks + block_threads - 1) / block_threads;  // <= 16: family.cpp
  static constexpr int tma_barrier_offset = (smem_bytes + 127) / 128 * 128;
  static constexpr int tma_smem_bytes = tma_barrier_offset + 16;

  // The TMA copy on sm_90 and newer with a valid map. Otherwise (x not readable through TMA, or
  // an older target) the threads copy the raw patch in with 16-byte loads (element loads where x
  // is not aligned), zero outside the image and past C, and the rest is the same: one path for
  // the transposes and the MMAs, and few registers in the fallback (mma's batched loads here
  // made ptxas spill at three blocks per SM).
  static __device__ void run_tma(const conv_args& a, const tma_input& in, void* smem) {
    static_assert(raw_bytes <= filter_offset, "the raw patch fits where the planes go");
    unsigned char* bytes = static_cast<unsigned char*>(smem);
    const tile_t t = tile_of(a);
    const int tid = static_cast<int>(threadIdx.x);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    const bool tma = in.valid != 0;
#else
    constexpr bool tma = false;
#endif
    const unsigned bar = common::smem_addr(bytes + tma_barrier_offset);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (tma && tid == 0) {
      common::mbarrier_init(bar);
      common::mbarrier_init_fence();
      common::tma_load_4d(common::smem_addr(bytes), &in, t.c0, t.iw0, t.ih0, t.n, bar, raw_bytes);
    }
#endif
    unsigned* pairs = reinterpret_cast<unsigned*>(bytes + filter_offset);
    for (int i = tid; i < tap_rows; i += block_threads) {
      unsigned short tv[8];
      gather_taps(a, t, i, tv);
      write_pairs(pairs, i, tv);
    }
    if (!tma)
      for (int i = tid; i < patch_h * patch_w * qc; i += block_threads) {
        const int q = i % qc, pix = i / qc;
        *reinterpret_cast<words8*>(bytes + pix * (BLOCK_C * 2) + 16 * q) =
            load_chunk(a, t, t.ih0 + pix / patch_w, t.iw0 + pix % patch_w, t.c0 + 8 * q, true);
      }
    __syncthreads();  // the barrier is initialized before anyone waits on it (or the patch is in)
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (tma) common::mbarrier_wait(bar, 0);
#endif
    // A valid map implies 16-byte accesses everywhere (make_tma_input): that path is compiled
    // with them known.
    if (tma) {
      tile_t v = t;
      v.vec_ok = true;
      transpose_and_compute(a, v, bytes, pairs, tid);
    } else {
      transpose_and_compute(a, t, bytes, pairs, tid);
    }
  }

  // mma_tma after the raw patch is in: each thread's share of it into registers (a task: chunk q
  // of the two pixels of plane word `word`, as mma's transposes), a barrier, the planes, the
  // MMAs and the stores.
  static __device__ __forceinline__ void transpose_and_compute(const conv_args& a, const tile_t& t,
                                                               unsigned char* bytes, const unsigned* pairs, int tid) {
    unsigned* planes = reinterpret_cast<unsigned*>(bytes);
    words8 px[tma_per_thread][2];
#pragma unroll
    for (int u = 0; u < tma_per_thread; ++u) {
      const int task = tid + u * block_threads;
      // task_of(task), spelled out: through the struct NVVM orders this loop differently (its SASS
      // changes), and the mma_tma kernels measured and swept are this code's.
      const int q = task % qc, word = task / qc;
      const int row = word / row_words, col = 2 * (word % row_words);
      const int first = qc == 4 ? word & 1 : 0;  // the order of a warp's two loads: no bank conflict
      auto chunk = [&](int e) {
        return task < patch_tasks && col + e < patch_w
                   ? *reinterpret_cast<const words8*>(bytes + (row * patch_w + col + e) * (BLOCK_C * 2) + 16 * q)
                   : make_uint4(0, 0, 0, 0);
      };
      const words8 one = chunk(first), other = chunk(first ^ 1);  // selects, not a dynamic index
      px[u][0] = first ? other : one;
      px[u][1] = first ? one : other;
    }
    __syncthreads();  // the raw patch is all in registers
#pragma unroll
    for (int u = 0; u < tma_per_thread; ++u) {
      const int task = tid + u * block_threads;
      if (task >= patch_tasks) break;
      write_task(planes, task_of(task), px[u]);
    }
    __syncthreads();
    compute_and_store(a, t, planes, reinterpret_cast<const unsigned short*>(pairs), tid);
  }
};

}  // namespace cuop::kernels::conv
