// Conv family depthwise, mma_seg: tensor cores with each input row's A fragments kept in registers
// across tap rows (f16 / bf16 in, f32 accumulation). NHWC, stride 1, R and S up to 7, sm_90 (TMA in
// and out: C a multiple of 8, x and y 16-byte aligned; plan_launch refuses other C, launch() other
// pointers, and conv2d() stages misaligned tensors through aligned buffers).
//
// One filter row against a strip of input is a Toeplitz product (depthwise_mma.cuh). There the MMA's
// 16 rows are 16 adjacent output rows, so an input row is read and paired into A registers once
// for every tap row that meets it. Here MMA row m is a *segment*: L output rows of one 8-column
// tile, and the j-th MMA of a tile computes row j of every segment. Tap row r of output row j reads
// input row i = j + r of the segment, so one input row's A registers feed every (j, r) with
// j + r = i: up to min(L, R) MMAs a channel. K is 16 input columns of one tap row (x0 .. x0 + 15,
// taps s = k - n < 8), N the tile's 8 output columns. B of a (channel, tap row) is two registers a
// lane with exactly one nonzero: P[d] in b0 when d = 2t - g >= -1, else P[d + 8] in b1, where
// P[p] = (tap p, tap p + 1) (zero outside the filter).
//
// A lane (g, t) holds slots g and g + 8: the same segment, column tiles 2c and 2c + 1, so its A
// registers are the pixel pairs at x0 + 2t, x0 + 8 + 2t (slot g's k 8-15 and slot g + 8's k 0-7)
// and x0 + 16 + 2t of the input row. Each warp owns one quad (4 channels) of a slot set; one pair of
// 8-byte reads and four byte permutes make a pixel pair's A registers of all four. The patch is the
// raw NHWC box of the block's BLOCK_C channels (pixels of 32 or 64 bytes, swizzled by that span, an
// odd row pitch): a warp's 8-byte reads of one quad meet 2-way bank conflicts, the least for one
// quarter or eighth of each pixel. With L even every segment starts at an even pixel phase and only
// half the banks would be met, so a lane of an odd segment reads its pairs' two pixels in the other
// order.
//
// BLOCK_C 32 moves each pixel's 64 bytes in one L2 request where 16 channels take two of 32: with
// 16 channels the copies are bound by the L2's tag lookups rather than its bandwidth, and 32
// channels halve them (the copy floors of docs/conv-h200.md, lab/conv/dw_seg.cu).
//
//   grid   persistent: block b takes tiles b, b + gridDim.x, ... (kernels/src/conv/family.cpp sizes
//          it), a tile u being (channel group u % groups, output tile, image), so that blocks that
//          run together read whole pixels; with gridDim.x a multiple of the groups a block keeps
//          its channel group and builds its tap pairs once
//   block  BLOCK_C / 4 x sets warps; a slot set is `span` segments x 2 cpairs column tiles
//          (span x cpairs = 8)
//   smem   two boxes (each (TILE_H + R - 1) x (TILE_W + 7) pixels, then one zeroed pixel: the last
//          tile's column TILE_W + 7 meets only zero taps), the tap pairs [BLOCK_C][R][9] words, the
//          raw taps [BLOCK_C][R][S], two mbarriers
//
// The next tile's box loads by one TMA copy into the other buffer while this tile computes; the
// output (alpha and beta applied in f32, rounded to T once) goes into this tile's box once every
// warp is done reading it, and out by one TMA store (outside the tensor: clipped, as the copy
// zero-fills). There is no path without TMA in this kernel: with one, even one never taken, ptxas
// gives the TMA loop's MMAs a fragment copy each. How the A fragment's middle pair reaches its two
// registers (compute) and 32-bit shared addresses throughout keep NVRTC's build (the tuner's) as
// clean as nvcc's (the library's): no spills, and no fragment copy before the MMAs (the SASS of
// sm_90a, both compilers; tests/unit/conv_targets_test.cpp checks the spills), where NVRTC's build
// otherwise spilled and copied the fragment before every MMA.
//
// Accepted by nvcc and NVRTC alike: no host standard headers.
#pragma once

#include "cuop/kernels/common/elements.cuh"
#include "cuop/kernels/common/mma_sync.cuh"
#include "cuop/kernels/common/tma.cuh"
#include "cuop/kernels/conv/args.cuh"
#include "cuop/kernels/conv/depthwise_geometry.hpp"

namespace cuop::kernels::conv {

template <typename T, int R, int S, int TILE_H, int TILE_W, int L, int BLOCK_C = 16>
struct depthwise_seg {
  // The geometry the host planner computes too (depthwise_geometry.hpp).
  static constexpr seg_geometry geo = seg_geometry_of(R, S, TILE_H, TILE_W, L, BLOCK_C);
  static constexpr int block_c = BLOCK_C, quads = block_c / 4;
  static constexpr int segs = static_cast<int>(geo.segs), ctiles = static_cast<int>(geo.ctiles);
  static constexpr int span = static_cast<int>(geo.span);      // segments of a slot set
  static constexpr int cpairs = static_cast<int>(geo.cpairs);  // column-tile pairs of a slot set
  static constexpr int sets = static_cast<int>(geo.sets);
  static constexpr int warps = static_cast<int>(geo.warps), block_threads = static_cast<int>(geo.block_threads);
  static constexpr int box_h = static_cast<int>(geo.box_h), box_w = static_cast<int>(geo.box_w);
  static constexpr int pix = static_cast<int>(geo.pix);  // bytes of a box pixel (the swizzle span)
  static constexpr int box_bytes = static_cast<int>(geo.box_bytes);
  static constexpr int buf_bytes = static_cast<int>(geo.buf_bytes);
  static constexpr int pair_words = static_cast<int>(seg_pair_words);
  static constexpr int pairs_offset = static_cast<int>(geo.pairs_offset);
  static constexpr int raw_offset = static_cast<int>(geo.raw_offset);
  static constexpr int bar_offset = static_cast<int>(geo.bar_offset);
  static constexpr int smem_bytes = static_cast<int>(geo.smem_bytes);
  // Blocks per SM for __launch_bounds__: as the planner's persistent grid where the device's
  // shared memory per SM is not known.
  static constexpr int min_blocks = static_cast<int>(seg_min_blocks(geo, L, default_smem_per_sm));

  static_assert(common::elem<T>::bits == 16, "tensor cores take f16 or bf16");
  static_assert(BLOCK_C == 16 || BLOCK_C == 32, "16 or 32 channels a block (32- or 64-byte pixels)");
  static_assert(R >= 1 && R <= 7 && S >= 1 && S <= 7, "filters up to 7x7 (K reaches 8 + S - 1 <= 16 columns)");
  static_assert(L >= 1 && L <= 7 && TILE_H % L == 0, "segments of 1..7 rows that tile tile_h");
  static_assert(TILE_W % 8 == 0 && sets > 0,
                "slot sets of 1, 2, 4 or 8 segments x 16, 8, 4 or 2 column tiles (tile_w a multiple of 8)");
  static_assert(TILE_W * pix % (8 * pix) == 0, "output rows keep the swizzle phase (tile_w a multiple of 8)");

  template <typename U>
  using elem = common::elem<U>;

  // SWIZZLE_32B / SWIZZLE_64B: the 16-byte chunk's bits (4, or 4-5) ^= bits 7 (-8) of the offset
  // (the box is 1024-byte aligned); the pattern repeats every 8 pixels.
  static __device__ __forceinline__ unsigned swz(unsigned lin) {
    return lin ^ ((lin >> 3) & (block_c == 16 ? 16u : 48u));
  }

  struct tile_t {
    int n, c0, oh0, ow0;
  };
  static __device__ __forceinline__ tile_t tile_of(const conv_args& a, int u, int groups) {
    const int tiles_w = (a.q + TILE_W - 1) / TILE_W, tiles = tiles_w * ((a.p + TILE_H - 1) / TILE_H);
    const int sp = u / groups % tiles;
    return {u / (groups * tiles), u % groups * block_c, sp / tiles_w * TILE_H, sp % tiles_w * TILE_W};
  }

  // The tap pairs of channel group c0 (raw taps through shared memory: one batch of loads).
  static __device__ void build_pairs(const conv_args& a, int c0, unsigned char* smem, int tid) {
    unsigned short* raw = reinterpret_cast<unsigned short*>(smem + raw_offset);
    const unsigned short* w = static_cast<const unsigned short*>(a.w);
    constexpr int taps = block_c * R * S, per_thread = (taps + block_threads - 1) / block_threads;
    unsigned short v[per_thread];
#pragma unroll
    for (int k = 0; k < per_thread; ++k) {
      const int i = tid + k * block_threads, c = c0 + i / (R * S);
      v[k] = i < taps && c < a.c ? w[static_cast<long long>(c0) * R * S + i] : 0;
    }
#pragma unroll
    for (int k = 0; k < per_thread; ++k)
      if (tid + k * block_threads < taps) raw[tid + k * block_threads] = v[k];
    __syncthreads();
    unsigned* pairs = reinterpret_cast<unsigned*>(smem + pairs_offset);
    for (int e = tid; e < block_c * R * pair_words; e += block_threads) {
      const int p = e % pair_words - 1;
      const unsigned short* tv = raw + e / pair_words * S;
      pairs[e] = (p >= 0 && p < S ? tv[p] : 0u) | (p + 1 < S ? static_cast<unsigned>(tv[p + 1]) : 0u) << 16;
    }
    __syncthreads();
  }

  // A tile's MMAs: rows row0 .. row0 + L - 1 of the lane's segment, the 4 channels of its quad.
  // Input row i's words and taps are loaded one row ahead; the loads and MMAs are volatile asm, so
  // that this order (the next row's loads, then this row's math) holds. box and pc (the lane's tap
  // pairs) are shared-memory addresses: 32-bit arithmetic (NVRTC kept generic 64-bit addresses
  // otherwise, and its build spilled where nvcc's did not). swap: the lane reads
  // pixel p + 1 of each pair first (odd segments of an even L).
  static __device__ __forceinline__ void compute(unsigned box, int row0, int a_col, int quad, unsigned pc,
                                                 bool low, bool swap, float (&acc)[4][L][4]) {
#pragma unroll
    for (int ch = 0; ch < 4; ++ch)
#pragma unroll
      for (int j = 0; j < L; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[ch][j][e] = 0.f;
    // The channel's halves of pixels (p, p + 1), whichever was read first.
    const unsigned sel_even = swap ? 0x1054u : 0x5410u, sel_odd = swap ? 0x3276u : 0x7632u;
    const int first = swap ? 1 : 0;
    unsigned b[4][R][2];
    unsigned w[2][3][2][2], bn[2][4];
    auto load_row = [&](int i, unsigned (&dst)[3][2][2], unsigned (&bdst)[4]) {
      const int a = (row0 + i) * box_w + a_col;
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        // pixel a + (e ^ first) + 8k: 8 pixels further is 8 pix bytes further, in the same swizzle phase
        const unsigned addr = box + swz(static_cast<unsigned>((a + (e ^ first)) * pix + 8 * quad));
#pragma unroll
        for (int k = 0; k < 3; ++k)
          asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];"
                       : "=r"(dst[k][e][0]), "=r"(dst[k][e][1])
                       : "r"(addr + 8u * pix * k));
      }
      if (i < R)
#pragma unroll
        for (int ch = 0; ch < 4; ++ch)
          asm volatile("ld.shared.u32 %0, [%1];" : "=r"(bdst[ch]) : "r"(pc + 4u * ((ch * R + i) * pair_words)));
    };
    load_row(0, w[0], bn[0]);
#pragma unroll
    for (int i = 0; i < L + R - 1; ++i) {
      if (i + 1 < L + R - 1) load_row(i + 1, w[(i + 1) % 2], bn[(i + 1) % 2]);
      const auto& wc = w[i % 2];
#pragma unroll
      for (int ch = 0; ch < 4; ++ch) {
        if (i < R) {
          b[ch][i][0] = low ? bn[i % 2][ch] : 0u;
          b[ch][i][1] = low ? 0u : bn[i % 2][ch];
        }
        // The channel's halves of pixels (p, p + 1) for the three pairs: its A fragment.
        const unsigned sel = ch % 2 ? sel_odd : sel_even;
        const unsigned p0 = __byte_perm(wc[0][0][ch / 2], wc[0][1][ch / 2], sel);
        const unsigned p1 = __byte_perm(wc[1][0][ch / 2], wc[1][1][ch / 2], sel);
        const unsigned p2 = __byte_perm(wc[2][0][ch / 2], wc[2][1][ch / 2], sel);
        // The middle pair serves both slots. At L <= 4 it is made twice (the operands swapped with
        // the selector: the same value, not merged): copied, ptxas copied the whole fragment
        // before every MMA. At L > 4 a copy is what lets both nvcc and NVRTC fit 255 registers.
        const unsigned p1b = L <= 4 ? __byte_perm(wc[1][1][ch / 2], wc[1][0][ch / 2], sel ^ 0x4444u) : p1;
        const unsigned af[4] = {p0, p1, p1b, p2};
#pragma unroll
        for (int j = 0; j < L; ++j) {
          const int r = i - j;
          if (r >= 0 && r < R) {
            const unsigned bf[2] = {b[ch][r][0], b[ch][r][1]};
            common::mma_16816<T>(acc[ch][j], af, bf);
          }
        }
      }
    }
  }

  // The lane's outputs into the staging tile `out` (TILE_H x TILE_W pixels, swizzled NHWC): per
  // output row j, pixels col + 8h + e (h the slot, e = 0, 1) of its quad's 4 channels, 8 bytes. The
  // order of e alternates with g's parity so that a quarter warp's two rows meet different banks.
  // alpha and beta in f32 when they are not 1 and 0 (y read where it lies, inside the output).
  // Rows and slots are whole swizzle periods (8 pixels) apart, so two swizzled addresses a lane
  // serve every store (computed per store, ptxas kept them all and spilled them).
  static __device__ __forceinline__ void epilogue(const conv_args& a, const tile_t& t, unsigned out, int row0,
                                                  int col, int quad, int g, const float (&acc)[4][L][4]) {
    const bool odd = g & 1, plain = a.alpha == 1.f && a.beta == 0.f;
    const unsigned short* y = static_cast<const unsigned short*>(a.y);
    const unsigned lane_px = static_cast<unsigned>(row0 * TILE_W + col);
    const unsigned at[2] = {out + swz((lane_px + (odd ? 1u : 0u)) * pix + 8u * quad),
                            out + swz((lane_px + (odd ? 0u : 1u)) * pix + 8u * quad)};
#pragma unroll
    for (int j = 0; j < L; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        unsigned lo[2], hi[2];  // pixel e's channels 0-1 and 2-3
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          float v[4] = {acc[0][j][2 * h + e], acc[1][j][2 * h + e], acc[2][j][2 * h + e], acc[3][j][2 * h + e]};
          if (!plain) {
            const int oy = t.oh0 + row0 + j, ox = t.ow0 + col + 8 * h + e;
            const bool inside = oy < a.p && ox < a.q;
            const long long base = ((static_cast<long long>(t.n) * a.p + oy) * a.q + ox) * a.c;
#pragma unroll
            for (int ch = 0; ch < 4; ++ch) {
              const int c = t.c0 + 4 * quad + ch;
              v[ch] *= a.alpha;
              if (a.beta != 0.f && inside && c < a.c) v[ch] = fmaf(a.beta, elem<T>::to_float(y[base + c]), v[ch]);
            }
          }
          lo[e] = elem<T>::pack2(v[0], v[1]);
          hi[e] = elem<T>::pack2(v[2], v[3]);
        }
#pragma unroll
        for (int es = 0; es < 2; ++es) {
          const bool second = odd != (es == 1);  // this store's pixel is e = 1
          asm volatile("st.shared.v2.u32 [%0], {%1, %2};" ::"r"(at[es] + static_cast<unsigned>((j * TILE_W + 8 * h) * pix)),
                       "r"(second ? lo[1] : lo[0]), "r"(second ? hi[1] : hi[0])
                       : "memory");
        }
      }
  }

  // A lane's place: its quad, the first output row and column of its segment, its tap pairs (a
  // shared-memory address in the block's shared memory at `base`), whether its nonzero B register
  // is b0, whether it reads its pixel pairs swapped, and its group g (lane / 4).
  struct lane_t {
    int quad, row0, col, g;
    unsigned pc;
    bool low, swap;
  };
  static __device__ __forceinline__ lane_t lane_of(unsigned base, int tid) {
    const int lane = tid % 32, warp = tid / 32;
    const int quad = warp % quads, set = warp / quads;
    const int sg = set % (segs / span), cg = set / (segs / span);
    const int g = lane / 4, t = lane % 4;
    const int seg = sg * span + g % span, ct0 = 2 * (cg * cpairs + g / span);
    const int d = 2 * t - g, o = d >= -1 ? d : d + 8;
    return {quad, seg * L, ct0 * 8 + 2 * t, g, base + pairs_offset + 4u * ((4 * quad) * R * pair_words + o + 1), d >= -1,
            L % 2 == 0 && (seg & 1)};
  }

  static __device__ void run_seg(const conv_args& a, const tma_input& in, void* smem_v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    unsigned char* smem = static_cast<unsigned char*>(smem_v);
    const unsigned base = common::smem_addr(smem);
    // The swizzle phases assume a 1024-byte aligned box; the launcher never starts it without maps.
    if ((base & 1023u) || !in.valid) __trap();
    const int tid = static_cast<int>(threadIdx.x);
    const int groups = (a.c + block_c - 1) / block_c;
    const int total = groups * ((a.p + TILE_H - 1) / TILE_H) * ((a.q + TILE_W - 1) / TILE_W) * a.n;
    const int stride = static_cast<int>(gridDim.x);
    const unsigned bar0 = base + bar_offset;
    const lane_t ln = lane_of(base, tid);

    auto issue = [&](int u, int s) {  // tile u's box into buffer s (thread 0)
      const tile_t nt = tile_of(a, u, groups);
      common::tma_load_4d(base + s * buf_bytes, in.map, nt.c0, nt.ow0 - a.pad_w, nt.oh0 - a.pad_h, nt.n, bar0 + 8 * s,
                          box_bytes);
    };
    if (tid < 2 * pix / 16)  // the slack pixel past each box
      reinterpret_cast<uint4*>(smem + (tid / (pix / 16)) * buf_bytes + box_bytes)[tid % (pix / 16)] = make_uint4(0, 0, 0, 0);
    if (tid == 0) {
      common::mbarrier_init(bar0);
      common::mbarrier_init(bar0 + 8);
      common::mbarrier_init_fence();
      if (static_cast<int>(blockIdx.x) < total) issue(static_cast<int>(blockIdx.x), 0);
    }
    __syncthreads();
    int k = 0, group = -1;
    for (int u = static_cast<int>(blockIdx.x); u < total; u += stride, ++k) {
      const int s = k & 1;
      const tile_t tl = tile_of(a, u, groups);
      if (u % groups != group) {  // block-uniform: the first tile, or the grid not a multiple of the groups
        group = u % groups;
        __syncthreads();  // every warp is done with the last group's pairs
        build_pairs(a, tl.c0, smem, tid);
      }
      // The next tile's box, once the last store has read the other buffer. (Issuing each block's
      // second box only after its first has landed gains nothing: lab/JOURNAL.md.)
      if (tid == 0 && u + stride < total) {
        common::tma_store_wait_read();
        issue(u + stride, s ^ 1);
      }
      common::mbarrier_wait(bar0 + 8 * s, static_cast<unsigned>((k >> 1) & 1));
      float acc[4][L][4];
      compute(base + s * buf_bytes, ln.row0, ln.col, ln.quad, ln.pc, ln.low, ln.swap, acc);
      __syncthreads();  // every warp is done reading the box: the output tile goes there
      epilogue(a, tl, base + s * buf_bytes, ln.row0, ln.col, ln.quad, ln.g, acc);
      common::fence_proxy_async();
      __syncthreads();
      if (tid == 0) common::tma_store_4d(in.map_y, tl.c0, tl.ow0, tl.oh0, tl.n, base + s * buf_bytes);
    }
    if (tid == 0) common::tma_store_wait_read();
#else
    (void)a, (void)in, (void)smem_v;
    __trap();  // sm_90 and newer (check_target refuses older targets)
#endif
  }
};

}  // namespace cuop::kernels::conv
