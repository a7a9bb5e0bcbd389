// Device probe: depthwise 7x7 f16 NHWC on tensor cores with the A fragments kept in registers
// across tap rows, against stage 3 on the same inputs. Usage, on the GPU machine: bash
// ci/gpu/probes/dw_slots.sh [CONFIG], CONFIG a name as run_slots prints it to run that one alone.
//
// Stage 3 and the earlier probes load a fragment of input rows for every (tap row, output row
// group): each input row is read and paired into A registers once per tap row that meets it. Here
// the MMA's 16 rows ("slots") are not 16 adjacent output rows: slot s is a segment of L output rows
// of one 8-column tile, and the m-th MMA of a pass computes row j of every segment. Tap row r of
// output row j then reads input row i = j + r of the segment, so one input row's A registers feed
// every (j, r) with j + r = i: up to min(T, 7) MMAs a channel, where the earlier kernels fed one.
// K is 16 input columns of one tap row (x0 .. x0 + 15, taps s = k - n), N the tile's 8 columns,
// and the Toeplitz B of each (channel, tap row) stays in registers (2 a lane; exactly one nonzero).
//
// A lane (g, t) holds slots g and g + 8: the same segment, column tiles 2c and 2c + 1, so its A
// registers are the pixel pairs at x0 + 2t, x0 + 8 + 2t (twice: slot g's k 8-15 and slot g + 8's
// k 0-7) and x0 + 16 + 2t of the input row. The raw NHWC patch comes in by one TMA copy (32-byte
// swizzle, odd row pitch: a warp's LDS.64 of one channel quad meet 2-way bank conflicts, the least
// for 8-byte reads of a quarter of each pixel); each warp owns one quad (4 channels) of the block's
// 16, one pair of LDS.64 and 4 byte permutes make one pixel pair's A registers of all 4 channels.
// Passes of T rows of each segment keep the accumulators at 16 T registers a lane. The output goes
// through a swizzled NHWC staging tile and one TMA store.
#include "cuop/kernels/common/mma_sync.cuh"
#include "depthwise_probe.hpp"
#include "probe_tma.hpp"

namespace {

namespace cm = cuop::kernels::common;
constexpr int R = 7, PAD = 3;

template <int CB, int TH, int TW, int L, int T, int MINB>
struct slots {
  static constexpr int quads = CB / 4;
  static constexpr int segs = TH / L, ctiles = TW / 8;
  static constexpr int S = segs < 8 ? segs : 8;           // segments a slot set spans
  static constexpr int cpairs = 8 / S;                     // column-tile pairs a slot set spans
  static constexpr int sets = (segs / S) * (ctiles / (2 * cpairs));
  static constexpr int warps = quads * sets, threads = warps * 32, min_blocks = MINB;
  static constexpr int ph = TH + R - 1;
  // Row pitch: odd. K reaches column x0 + 15 of a tile; the last tile's columns TW + 6 and TW + 7
  // meet only zero taps, the first is the row's last pixel, the other the next row's first (one
  // zeroed slack pixel past the box): finite values, no extra column loaded.
  static constexpr int pw = TW + 7;
  static constexpr int pix = CB * 2;
  static constexpr int in_bytes = ph * pw * pix;
  static constexpr int out_offset = (in_bytes + pix + 1023) / 1024 * 1024;
  static constexpr int out_bytes = TH * TW * pix;
  static constexpr int pairs_offset = out_offset + out_bytes;
  static constexpr int pair_words = 9;                     // P[-1..7] of a (channel, tap row): (tap p, tap p + 1)
  static constexpr int raw_offset = out_offset;             // the raw taps, in the staging tile until the epilogue
  static constexpr int bar_offset = pairs_offset + CB * R * pair_words * 4;
  static_assert(CB * R * R * 2 <= out_bytes, "the raw taps fit in the staging tile");
  static constexpr int smem_bytes = bar_offset + 16;       // the block's shared memory starts 1024-aligned
  static_assert(CB == 16, "32-byte pixels: the swizzle below is SWIZZLE_32B's");
  static_assert(TH % L == 0 && segs % S == 0 && 8 % S == 0 && ctiles % (2 * cpairs) == 0, "slot sets tile the block");
  // Odd L puts the two rows of a quarter warp in alternate bank halves (2-way conflicts); even L
  // is allowed for heights without an odd divisor (4-way).

  // SWIZZLE_32B: 16-byte chunk bit 4 ^= bit 7 of the offset.
  static __device__ __forceinline__ unsigned swz(unsigned lin) { return lin ^ ((lin >> 3) & 16u); }

  static __device__ __forceinline__ void mma(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }

  // One pass: rows j0 .. j0 + TP - 1 of the lane's segment, every channel of its quad.
  template <int J0, int TP>
  static __device__ __forceinline__ void compute(const unsigned char* box, int row0, int a_col, int quad,
                                                 const unsigned* pc, bool low, float (&acc)[4][TP][4]) {
    unsigned b[4][R][2];
#pragma unroll
    for (int ch = 0; ch < 4; ++ch)
#pragma unroll
      for (int j = 0; j < TP; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[ch][j][e] = 0.f;
    // Row i's 6 words pairs (k, e) and its taps are loaded one row ahead: the loads, permutes and
    // MMAs are volatile asm, so that this order (next row's loads, then this row's math) holds.
    unsigned w[2][3][2][2], bn[2][4];
    auto load_row = [&](int i, unsigned (&dst)[3][2][2], unsigned (&bdst)[4]) {
      const int a = (row0 + J0 + i) * pw + a_col;
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const unsigned addr = cm::smem_addr(box) + swz(static_cast<unsigned>((a + e) * pix + 8 * quad));
#pragma unroll
        for (int k = 0; k < 3; ++k)
          asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(dst[k][e][0]), "=r"(dst[k][e][1]) : "r"(addr + 256u * k));
      }
      if (i < R)
#pragma unroll
        for (int ch = 0; ch < 4; ++ch)
          asm volatile("ld.shared.u32 %0, [%1];" : "=r"(bdst[ch]) : "r"(cm::smem_addr(pc + (ch * R + i) * pair_words)));
    };
    load_row(0, w[0], bn[0]);
#pragma unroll
    for (int i = 0; i < TP + R - 1; ++i) {
      if (i + 1 < TP + R - 1) load_row(i + 1, w[(i + 1) % 2], bn[(i + 1) % 2]);
      const auto& wc = w[i % 2];
#pragma unroll
      for (int ch = 0; ch < 4; ++ch) {
        if (i < R) {
          b[ch][i][0] = low ? bn[i % 2][ch] : 0u;
          b[ch][i][1] = low ? 0u : bn[i % 2][ch];
        }
        const unsigned sel = ch % 2 ? 0x7632 : 0x5410;
        const unsigned p0 = __byte_perm(wc[0][0][ch / 2], wc[0][1][ch / 2], sel);
        const unsigned p1 = __byte_perm(wc[1][0][ch / 2], wc[1][1][ch / 2], sel);
        const unsigned p2 = __byte_perm(wc[2][0][ch / 2], wc[2][1][ch / 2], sel);
        const unsigned af[4] = {p0, p1, p1, p2};
#pragma unroll
        for (int j = 0; j < TP; ++j) {
          const int r = i - j;
          if (r >= 0 && r < R) mma(acc[ch][j], af, b[ch][r][0], b[ch][r][1]);
        }
      }
    }
  }

  // compute for one channel pair of the quad (HALF 0: channels 0-1, 1: 2-3): half the accumulators
  // and taps of compute, each input row read again for the other pair (LDS.32 of the pair's word).
  template <int J0, int TP, int HALF>
  static __device__ __forceinline__ void compute_pair(const unsigned char* box, int row0, int a_col, int quad,
                                                      const unsigned* pc, bool low, float (&acc)[2][TP][4]) {
    unsigned b[2][R][2];
#pragma unroll
    for (int ch = 0; ch < 2; ++ch)
#pragma unroll
      for (int j = 0; j < TP; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[ch][j][e] = 0.f;
    unsigned w[2][3][2], bn[2][2];
    auto load_row = [&](int i, unsigned (&dst)[3][2], unsigned (&bdst)[2]) {
      const int a = (row0 + J0 + i) * pw + a_col;
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const unsigned addr = cm::smem_addr(box) + swz(static_cast<unsigned>((a + e) * pix + 8 * quad + 4 * HALF));
#pragma unroll
        for (int k = 0; k < 3; ++k) asm volatile("ld.shared.u32 %0, [%1];" : "=r"(dst[k][e]) : "r"(addr + 256u * k));
      }
      if (i < R)
#pragma unroll
        for (int ch = 0; ch < 2; ++ch)
          asm volatile("ld.shared.u32 %0, [%1];" : "=r"(bdst[ch]) : "r"(cm::smem_addr(pc + ((2 * HALF + ch) * R + i) * pair_words)));
    };
    load_row(0, w[0], bn[0]);
#pragma unroll
    for (int i = 0; i < TP + R - 1; ++i) {
      if (i + 1 < TP + R - 1) load_row(i + 1, w[(i + 1) % 2], bn[(i + 1) % 2]);
      const auto& wc = w[i % 2];
#pragma unroll
      for (int ch = 0; ch < 2; ++ch) {
        if (i < R) {
          b[ch][i][0] = low ? bn[i % 2][ch] : 0u;
          b[ch][i][1] = low ? 0u : bn[i % 2][ch];
        }
        const unsigned sel = ch ? 0x7632 : 0x5410;
        const unsigned p0 = __byte_perm(wc[0][0], wc[0][1], sel);
        const unsigned p1 = __byte_perm(wc[1][0], wc[1][1], sel);
        const unsigned p2 = __byte_perm(wc[2][0], wc[2][1], sel);
        const unsigned af[4] = {p0, p1, p1, p2};
#pragma unroll
        for (int j = 0; j < TP; ++j) {
          const int r = i - j;
          if (r >= 0 && r < R) mma(acc[ch][j], af, b[ch][r][0], b[ch][r][1]);
        }
      }
    }
  }
  // The same with the pair a run-time value (one code path for the warps of both pairs).
  template <int J0, int TP>
  static __device__ __forceinline__ void compute_pair_rt(const unsigned char* box, int row0, int a_col, int quad, int half,
                                                         const unsigned* pc, bool low, float (&acc)[2][TP][4]) {
    compute_pair<J0, TP, 0>(box + 4 * half, row0, a_col, quad, pc + 2 * half * R * pair_words, low, acc);
  }
  // Its epilogue: 4 bytes (the pair's two channels) a pixel.
  template <int TP, int HALF>
  static __device__ __forceinline__ void epilogue_pair(unsigned char* out, int out_row0, int o_col, int quad,
                                                       const float (&acc)[2][TP][4]) {
#pragma unroll
    for (int j = 0; j < TP; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const __half2 v = __floats2half2_rn(acc[0][j][2 * h + e], acc[1][j][2 * h + e]);
          const unsigned off = static_cast<unsigned>(((out_row0 + j) * TW + o_col + 8 * h + e) * pix + 8 * quad + 4 * HALF);
          *reinterpret_cast<unsigned*>(out + swz(off)) = *reinterpret_cast<const unsigned*>(&v);
        }
  }

  // compute without the pinned order (plain loads and MMAs the compiler schedules), B from a table of
  // ready (b0, b1) pairs: bt[(channel * R + r) * 16 + d + 8], no selects.
  template <int J0, int TP, bool BLOAD = false>
  static __device__ __forceinline__ void compute_plain(const unsigned char* box, int row0, int a_col, int quad,
                                                       const uint2* bt, float (&acc)[4][TP][4]) {
    uint2 b[4][R];
#pragma unroll
    for (int ch = 0; ch < 4; ++ch)
#pragma unroll
      for (int j = 0; j < TP; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[ch][j][e] = 0.f;
#pragma unroll
    for (int i = 0; i < TP + R - 1; ++i) {
      const int a = (row0 + J0 + i) * pw + a_col;
      unsigned w[3][2][2];
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const unsigned char* addr = box + swz(static_cast<unsigned>((a + e) * pix + 8 * quad));
#pragma unroll
        for (int k = 0; k < 3; ++k) {
          const uint2 v = *reinterpret_cast<const uint2*>(addr + 256 * k);
          w[k][e][0] = v.x;
          w[k][e][1] = v.y;
        }
      }
#pragma unroll
      for (int ch = 0; ch < 4; ++ch) {
        if (!BLOAD && i < R) b[ch][i] = bt[(ch * R + i) * 16];
        const unsigned sel = ch % 2 ? 0x7632 : 0x5410;
        const unsigned p0 = __byte_perm(w[0][0][ch / 2], w[0][1][ch / 2], sel);
        const unsigned p1 = __byte_perm(w[1][0][ch / 2], w[1][1][ch / 2], sel);
        const unsigned p2 = __byte_perm(w[2][0][ch / 2], w[2][1][ch / 2], sel);
        const unsigned af[4] = {p0, p1, p1, p2};
#pragma unroll
        for (int j = 0; j < TP; ++j) {
          const int r = i - j;
          if (r >= 0 && r < R) {
            if constexpr (BLOAD) {
              unsigned b0, b1;  // the taps at each MMA, from shared memory: no registers held for them
              asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(b0), "=r"(b1) : "r"(cm::smem_addr(bt + (ch * R + r) * 16)));
              mma_plain(acc[ch][j], af, b0, b1);
            } else {
              mma_plain(acc[ch][j], af, b[ch][r].x, b[ch][r].y);
            }
          }
        }
      }
    }
  }

  static __device__ __forceinline__ void mma_plain(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }

  template <int J0, int TP>
  static __device__ __forceinline__ void epilogue(unsigned char* out, int out_row0, int o_col, int quad, int g,
                                                  const float (&acc)[4][TP][4]) {
    // Epilogue: lane (g, t) has, per output row j, pixels o_col + 8h + e (h = 0, 1 the two slots,
    // e = 0, 1) of all 4 channels: 8 bytes each. Rows of the staging tile meet the same banks; the
    // order of e alternates with g's parity so that a quarter warp's two rows do not (2-way, not 4).
    const bool odd = g & 1;
#pragma unroll
    for (int j = 0; j < TP; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        unsigned lo[2], hi[2];  // pixel e's channels 0-1 and 2-3
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const __half2 l = __floats2half2_rn(acc[0][j][2 * h + e], acc[1][j][2 * h + e]);
          const __half2 u = __floats2half2_rn(acc[2][j][2 * h + e], acc[3][j][2 * h + e]);
          lo[e] = *reinterpret_cast<const unsigned*>(&l);
          hi[e] = *reinterpret_cast<const unsigned*>(&u);
        }
#pragma unroll
        for (int es = 0; es < 2; ++es) {
          const bool second = odd != (es == 1);  // this store's pixel is e = 1
          const unsigned off = static_cast<unsigned>(((out_row0 + J0 + j) * TW + o_col + 8 * h + second) * pix + 8 * quad);
          *reinterpret_cast<uint2*>(out + swz(off)) = make_uint2(second ? lo[1] : lo[0], second ? hi[1] : hi[0]);
        }
      }
  }

  template <int J0, int TP>
  static __device__ __forceinline__ void pass(const unsigned char* box, unsigned char* out, int row0, int a_col, int o_col,
                                              int quad, int g, const unsigned* pc, bool low) {
    float acc[4][TP][4];
    compute<J0, TP>(box, row0, a_col, quad, pc, low, acc);
    epilogue<J0, TP>(out, row0, o_col, quad, g, acc);
  }

  // MODE 1: load only, 2: compute and store on an unloaded patch, 3: everything.
  template <int MODE>
  static __device__ void run(const CUtensorMap* xmap, const CUtensorMap* ymap, const __half* w, int c, int q_out) {
    extern __shared__ __align__(1024) unsigned char smem[];
    if (cm::smem_addr(smem) & 1023u) __trap();  // the swizzle phases below assume it
    const int tid = static_cast<int>(threadIdx.x), lane = tid % 32, warp = tid / 32;
    const int tiles_w = (q_out + TW - 1) / TW;
    const int n = static_cast<int>(blockIdx.z), c0 = static_cast<int>(blockIdx.y) * CB;
    const int oh0 = static_cast<int>(blockIdx.x) / tiles_w * TH, ow0 = static_cast<int>(blockIdx.x) % tiles_w * TW;
    const unsigned box = cm::smem_addr(smem), out = box + out_offset, bar = box + bar_offset;
    if (tid == 0) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
      asm volatile("fence.mbarrier_init.release.cluster;\n fence.proxy.async.shared::cta;" ::: "memory");
      if (MODE & 1) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(in_bytes) : "memory");
        asm volatile(
            "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6];"
            ::"r"(box), "l"(reinterpret_cast<unsigned long long>(xmap)), "r"(c0), "r"(ow0 - PAD), "r"(oh0 - PAD), "r"(n),
            "r"(bar)
            : "memory");
      }
    }
    if (tid < pix / 16) reinterpret_cast<uint4*>(smem + in_bytes)[tid] = make_uint4(0, 0, 0, 0);  // the slack pixel
    // The lane's role: quad, slot set, segment and column tiles.
    const int quad = warp % quads, set = warp / quads;
    const int sg = set % (segs / S), cg = set / (segs / S);
    const int g = lane / 4, t = lane % 4;
    const int seg = sg * S + g % S, ct0 = 2 * (cg * cpairs + g / S);
    // The block's taps (CB x R x R halves in a row of w) in one batch of 16-byte loads, all in
    // flight at once, into shared memory past the pair table; then the tap pairs P[-1..7] of each
    // (channel, tap row), zero outside the filter and past C; the raw taps are dead before any
    // warp's epilogue (a barrier comes between). (A loop of dependent loads per pair
    // here made every block wait for L2 eight times in a row.)
    unsigned* pairs = reinterpret_cast<unsigned*>(smem + pairs_offset);
    unsigned short* raw = reinterpret_cast<unsigned short*>(smem + raw_offset);
    {
      constexpr int pieces = CB * R * R * 2 / 16;
      static_assert(pieces <= threads, "one 16-byte piece of taps a thread");
      const int live = (c - c0 < CB ? c - c0 : CB) * R * R * 2 / 16;  // C % 8 == 0 here
      if (tid < pieces)
        reinterpret_cast<uint4*>(raw)[tid] =
            tid < live ? reinterpret_cast<const uint4*>(w + static_cast<long long>(c0) * R * R)[tid] : make_uint4(0, 0, 0, 0);
    }
    __syncthreads();
    for (int e = tid; e < CB * R * pair_words; e += threads) {
      const int p = e % pair_words - 1, row = e / pair_words;
      const unsigned short* tv = raw + row * R;
      pairs[e] = (p >= 0 && p < R ? tv[p] : 0u) | (p + 1 < R ? static_cast<unsigned>(tv[p + 1]) : 0u) << 16;
    }
    // B of a (channel, tap row): lane (g, t) holds k = 2t, 2t + 1 (b0) and 2t + 8, 2t + 9 (b1) of
    // column n = g, taps k - n; with d = 2t - g exactly one is nonzero: P[d] in b0 (d >= -1) or
    // P[d + 8] in b1.
    const int d = 2 * t - g, o = d >= -1 ? d : d + 8;
    const unsigned* pc = pairs + (4 * quad) * R * pair_words + o + 1;
    __syncthreads();  // the barrier is initialized before anyone waits on it
    if (MODE & 1)
      for (unsigned done = 0; !done;)
        asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n selp.u32 %0, 1, 0, p;\n}"
                     : "=r"(done) : "r"(bar) : "memory");
    if (!(MODE & 2)) return;
    const int row0 = seg * L, a_col = ct0 * 8 + 2 * t, o_col = ct0 * 8 + 2 * t;
    pass<0, (T < L ? T : L)>(smem, smem + out_offset, row0, a_col, o_col, quad, g, pc, d >= -1);
    if constexpr (T < L) pass<T, (2 * T < L ? T : L - T)>(smem, smem + out_offset, row0, a_col, o_col, quad, g, pc, d >= -1);
    if constexpr (2 * T < L) pass<2 * T, L - 2 * T>(smem, smem + out_offset, row0, a_col, o_col, quad, g, pc, d >= -1);
    static_assert(3 * T >= L, "at most three passes");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (tid == 0) {
      asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group [%0, {%1, %2, %3, %4}], [%5];" ::"l"(
                       reinterpret_cast<unsigned long long>(ymap)),
                   "r"(c0), "r"(ow0), "r"(oh0), "r"(n), "r"(out)
                   : "memory");
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
  }
};

// Persistent and double-buffered (one pass, T = L): block b takes tiles b, b + gridDim.x, ..., the
// channel group the fastest index (blocks running together read whole pixels: a contiguous range
// of tiles a block, tried first, was 7-27% slower); with gridDim.x a multiple of the groups a
// block keeps its group and builds its tap pairs once. The next tile's box (TMA) loads into the
// other buffer while this tile computes, and the output goes out through this tile's box once
// every warp is done reading it.
template <int CB, int TH, int TW, int L, int MINB, bool PLAIN, bool SPLIT = false, bool BLOAD = false, bool CW2 = false>
struct persist : slots<CB, TH, TW, L, L, MINB> {
  using B = slots<CB, TH, TW, L, L, MINB>;
  using B::in_bytes, B::pix, B::quads, B::segs, B::S, B::cpairs, B::pair_words;
  // CW2: a warp computes one channel pair (compute_pair), twice the warps of a block.
  static constexpr int warps = CW2 ? 2 * B::warps : B::warps, threads = 32 * warps;
  static constexpr int buf_bytes = (in_bytes + pix + 1023) / 1024 * 1024;  // box + slack pixel
  static constexpr int pairs_offset = 2 * buf_bytes;
  static constexpr int raw_bytes = CB * R * R * 2;
  static constexpr int table_bytes = PLAIN ? CB * R * 16 * 8 : CB * R * pair_words * 4;
  static constexpr int raw_offset = pairs_offset + table_bytes;
  static constexpr int bar_offset = (raw_offset + 2 * raw_bytes + 15) / 16 * 16;
  static constexpr int smem_bytes = bar_offset + 16;
  static_assert(TH * TW * pix <= in_bytes, "the output tile fits in the box");

  static __device__ __forceinline__ void tile_of(int u, int tiles_w, int tiles, int groups, int& n, int& c0, int& oh0,
                                                 int& ow0) {
    const int cg = u % groups, sp = u / groups % tiles;
    n = u / (groups * tiles);
    c0 = cg * CB;
    oh0 = sp / tiles_w * TH;
    ow0 = sp % tiles_w * TW;
  }

  static __device__ void run(const CUtensorMap* xmap, const CUtensorMap* ymap, const __half* w, int c, int q_out, int p_out,
                             int n_img) {
    extern __shared__ __align__(1024) unsigned char smem[];
    if (cm::smem_addr(smem) & 1023u) __trap();
    const int tid = static_cast<int>(threadIdx.x), lane = tid % 32, warp = tid / 32;
    const int tiles_w = (q_out + TW - 1) / TW, tiles = tiles_w * ((p_out + TH - 1) / TH), groups = (c + CB - 1) / CB;
    const int total = tiles * groups * n_img, stride = static_cast<int>(gridDim.x);
    auto group_of = [&](int u) { return u % groups; };
    const unsigned base = cm::smem_addr(smem), bar0 = base + bar_offset;
    unsigned* pairs = reinterpret_cast<unsigned*>(smem + pairs_offset);
    // Issue tile u's loads into buffer s: the box by TMA (thread 0), the taps by cp.async.
    auto issue = [&](int u, int s, bool taps, int tslot) {
      int n, c0, oh0, ow0;
      tile_of(u, tiles_w, tiles, groups, n, c0, oh0, ow0);
      if (tid == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar0 + 8 * s), "r"(in_bytes) : "memory");
        asm volatile(
            "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6];"
            ::"r"(base + s * buf_bytes), "l"(reinterpret_cast<unsigned long long>(xmap)), "r"(c0), "r"(ow0 - PAD),
            "r"(oh0 - PAD), "r"(n), "r"(bar0 + 8 * s)
            : "memory");
      }
      constexpr int pieces = raw_bytes / 16;
      static_assert(pieces <= threads, "one 16-byte piece of taps a thread");
      if (taps && tid < pieces) {
        const int live = (c - c0 < CB ? c - c0 : CB) * R * R * 2 / 16;
        const void* src = reinterpret_cast<const uint4*>(w + static_cast<long long>(c0) * R * R) + (tid < live ? tid : 0);
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(base + raw_offset + tslot * raw_bytes + 16 * tid),
                     "l"(src), "r"(tid < live ? 16 : 0)
                     : "memory");
      }
      asm volatile("cp.async.commit_group;" ::: "memory");
    };
    const int u0 = static_cast<int>(blockIdx.x);
    if (tid == 0) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar0));
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar0 + 8));
      asm volatile("fence.mbarrier_init.release.cluster;\n fence.proxy.async.shared::cta;" ::: "memory");
    }
    if (tid < 2 * pix / 16)  // the slack pixel past each box
      reinterpret_cast<uint4*>(smem + (tid / (pix / 16)) * buf_bytes + in_bytes)[tid % (pix / 16)] = make_uint4(0, 0, 0, 0);
    __syncthreads();
    if (u0 < total) issue(u0, 0, true, 0);

    const int wq = CW2 ? 2 * quads : quads;  // warps across the block's channels
    const int quad = (warp % wq) / (CW2 ? 2 : 1), half = CW2 ? warp % 2 : 0, set = warp / wq;
    const int sg = set % (segs / S), cg = set / (segs / S);
    const int g = lane / 4, t = lane % 4;
    const int seg = sg * S + g % S, ct0 = 2 * (cg * cpairs + g / S);
    const int d = 2 * t - g, o = d >= -1 ? d : d + 8;
    const unsigned* pc = pairs + (4 * quad) * R * pair_words + o + 1;
    const int row0 = seg * L, col = ct0 * 8 + 2 * t;
    int k = 0, taps_slot = 0;  // the raw-taps buffer of the current group
    for (int u = u0; u < total; u += stride, ++k) {
      const int s = k & 1;
      const bool new_group = u == u0 || group_of(u) != group_of(u - stride);
      asm volatile("cp.async.wait_all;" ::: "memory");
      __syncthreads();  // this tile's taps are in; every warp is done with the last tile (its pairs, its box)
      if (new_group) {
        if (u != u0) taps_slot ^= 1;
        const unsigned short* raw = reinterpret_cast<const unsigned short*>(smem + raw_offset + taps_slot * raw_bytes);
        if constexpr (PLAIN) {
          // (b0, b1) of each (channel, tap row, d = -8..7): (P[o], 0) for d >= -1, (0, P[o]) below,
          // o = d or d + 8, P[o] = (tap o, tap o + 1).
          for (int e = tid; e < CB * R * 16; e += threads) {
            const int dd = e % 16 - 8, o = dd >= -1 ? dd : dd + 8;
            const unsigned short* tv = raw + e / 16 * R;
            const unsigned v = (o >= 0 && o < R ? tv[o] : 0u) | (o + 1 < R ? static_cast<unsigned>(tv[o + 1]) : 0u) << 16;
            reinterpret_cast<uint2*>(pairs)[e] = dd >= -1 ? make_uint2(v, 0u) : make_uint2(0u, v);
          }
        } else {
          for (int e = tid; e < CB * R * pair_words; e += threads) {
            const int p = e % pair_words - 1;
            const unsigned short* tv = raw + e / pair_words * R;
            pairs[e] = (p >= 0 && p < R ? tv[p] : 0u) | (p + 1 < R ? static_cast<unsigned>(tv[p + 1]) : 0u) << 16;
          }
        }
      }
      if (u + stride < total) {
        if (tid == 0) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");  // the last store has read the other box
        issue(u + stride, s ^ 1, group_of(u + stride) != group_of(u), taps_slot ^ 1);
      }
      __syncthreads();  // the pairs are built
      for (unsigned done = 0; !done;)
        asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
                     : "=r"(done) : "r"(bar0 + 8 * s), "r"((k >> 1) & 1) : "memory");
      unsigned char* box = smem + s * buf_bytes;
      if constexpr (CW2) {
        float acc[2][L][4];
        B::template compute_pair_rt<0, L>(box, row0, col, quad, half, pc, d >= -1, acc);
        __syncthreads();  // every warp is done reading the box: the output goes there
        B::template epilogue_pair<L, 0>(box + 4 * half, row0, col, quad, acc);
      } else if constexpr (SPLIT) {
        // Channels 0-1, staged in registers as packed halves (14 words), then 2-3; the box is read
        // by both before any output goes there.
        float acc[2][L][4];
        B::template compute_pair<0, L, 0>(box, row0, col, quad, pc, d >= -1, acc);
        unsigned keep[L][4];
#pragma unroll
        for (int j = 0; j < L; ++j)
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const __half2 v = __floats2half2_rn(acc[0][j][e], acc[1][j][e]);
            keep[j][e] = *reinterpret_cast<const unsigned*>(&v);
          }
        B::template compute_pair<0, L, 1>(box, row0, col, quad, pc, d >= -1, acc);
        __syncthreads();
        const bool odd = g & 1;
#pragma unroll
        for (int j = 0; j < L; ++j)
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            unsigned hi[2];
#pragma unroll
            for (int e = 0; e < 2; ++e) {
              const __half2 v = __floats2half2_rn(acc[0][j][2 * h + e], acc[1][j][2 * h + e]);
              hi[e] = *reinterpret_cast<const unsigned*>(&v);
            }
#pragma unroll
            for (int es = 0; es < 2; ++es) {
              const bool second = odd != (es == 1);
              const unsigned off = static_cast<unsigned>(((row0 + j) * TW + col + 8 * h + second) * pix + 8 * quad);
              *reinterpret_cast<uint2*>(box + B::swz(off)) =
                  make_uint2(second ? keep[j][2 * h + 1] : keep[j][2 * h], second ? hi[1] : hi[0]);
            }
          }
      } else {
        float acc[4][L][4];
        if constexpr (PLAIN)
          B::template compute_plain<0, L, BLOAD>(box, row0, col, quad, reinterpret_cast<const uint2*>(pairs) + (4 * quad) * R * 16 + d + 8, acc);
        else
          B::template compute<0, L>(box, row0, col, quad, pc, d >= -1, acc);
        __syncthreads();  // every warp is done reading the box: the output goes there
        B::template epilogue<0, L>(box, row0, col, quad, g, acc);
      }
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      __syncthreads();
      if (tid == 0) {
        int n, c0, oh0, ow0;
        tile_of(u, tiles_w, tiles, groups, n, c0, oh0, ow0);
        asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group [%0, {%1, %2, %3, %4}], [%5];" ::"l"(
                         reinterpret_cast<unsigned long long>(ymap)),
                     "r"(c0), "r"(ow0), "r"(oh0), "r"(n), "r"(base + s * buf_bytes)
                     : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      }
    }
    if (tid == 0) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  }
};

// Persistent, double-buffered, two passes (T rows, then L - T, of each segment): the accumulators
// of one pass only (T = 4: 64 registers, not 112). Pass 0's output goes through a staging tile
// (TMA-stored while pass 1 computes), pass 1's through the box once every warp is done reading it.
// The next tile's box is issued after pass 0's MMAs, when the stores that read that buffer are
// long issued (the wait for them is then short).
template <int CB, int TH, int TW, int L, int T, int MINB>
struct persist2 : slots<CB, TH, TW, L, T, MINB> {
  using B = slots<CB, TH, TW, L, T, MINB>;
  using B::in_bytes, B::pix, B::quads, B::segs, B::S, B::cpairs, B::threads, B::pair_words;
  static constexpr int P1 = L - T;
  static_assert(T < L && P1 <= T, "two passes");
  static constexpr int buf_bytes = (in_bytes + pix + 1023) / 1024 * 1024;  // box + slack pixel
  static constexpr int stage_offset = 2 * buf_bytes;
  static constexpr int stage_bytes = (segs * T * TW * pix + 1023) / 1024 * 1024;
  static constexpr int pairs_offset = stage_offset + stage_bytes;
  static constexpr int raw_bytes = CB * R * R * 2;
  static constexpr int raw_offset = pairs_offset + CB * R * pair_words * 4;
  static constexpr int bar_offset = (raw_offset + 2 * raw_bytes + 15) / 16 * 16;
  static constexpr int smem_bytes = bar_offset + 16;
  static_assert(TW * pix % 1024 == 0, "a staged segment starts in the same swizzle phase");

  static __device__ __forceinline__ void tile_of(int u, int tiles_w, int tiles, int groups, int& n, int& c0, int& oh0,
                                                 int& ow0) {
    const int cg = u % groups, sp = u / groups % tiles;
    n = u / (groups * tiles);
    c0 = cg * CB;
    oh0 = sp / tiles_w * TH;
    ow0 = sp % tiles_w * TW;
  }

  static __device__ __forceinline__ void barrier_wait(unsigned bar, unsigned parity) {
    for (unsigned done = 0; !done;)
      asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
                   : "=r"(done) : "r"(bar), "r"(parity) : "memory");
  }
  // Each segment's rows of a pass from `src` (segs x rows x TW pixels), one TMA store a segment.
  static __device__ __forceinline__ void store_pass(const CUtensorMap* map, unsigned src, int rows, int first, int c0,
                                                    int ow0, int oh0, int n) {
#pragma unroll 1
    for (int sg = 0; sg < segs; ++sg)
      asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group [%0, {%1, %2, %3, %4}], [%5];" ::"l"(
                       reinterpret_cast<unsigned long long>(map)),
                   "r"(c0), "r"(ow0), "r"(oh0 + sg * L + first), "r"(n), "r"(src + sg * rows * TW * pix)
                   : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  }

  static __device__ void run(const CUtensorMap* xmap, const CUtensorMap* ymap0, const CUtensorMap* ymap1, const __half* w,
                             int c, int q_out, int p_out, int n_img) {
    extern __shared__ __align__(1024) unsigned char smem[];
    if (cm::smem_addr(smem) & 1023u) __trap();
    const int tid = static_cast<int>(threadIdx.x), lane = tid % 32, warp = tid / 32;
    const int tiles_w = (q_out + TW - 1) / TW, tiles = tiles_w * ((p_out + TH - 1) / TH), groups = (c + CB - 1) / CB;
    const int total = tiles * groups * n_img, stride = static_cast<int>(gridDim.x);
    const unsigned base = cm::smem_addr(smem), bar0 = base + bar_offset;
    unsigned* pairs = reinterpret_cast<unsigned*>(smem + pairs_offset);
    auto issue = [&](int u, int s, bool taps, int tslot) {
      int n, c0, oh0, ow0;
      tile_of(u, tiles_w, tiles, groups, n, c0, oh0, ow0);
      if (tid == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar0 + 8 * s), "r"(in_bytes) : "memory");
        asm volatile(
            "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6];"
            ::"r"(base + s * buf_bytes), "l"(reinterpret_cast<unsigned long long>(xmap)), "r"(c0), "r"(ow0 - PAD),
            "r"(oh0 - PAD), "r"(n), "r"(bar0 + 8 * s)
            : "memory");
      }
      constexpr int pieces = raw_bytes / 16;
      static_assert(pieces <= threads, "one 16-byte piece of taps a thread");
      if (taps && tid < pieces) {
        const int live = (c - c0 < CB ? c - c0 : CB) * R * R * 2 / 16;
        const void* src = reinterpret_cast<const uint4*>(w + static_cast<long long>(c0) * R * R) + (tid < live ? tid : 0);
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(base + raw_offset + tslot * raw_bytes + 16 * tid),
                     "l"(src), "r"(tid < live ? 16 : 0)
                     : "memory");
      }
      asm volatile("cp.async.commit_group;" ::: "memory");
    };
    const int u0 = static_cast<int>(blockIdx.x);
    if (tid == 0) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar0));
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar0 + 8));
      asm volatile("fence.mbarrier_init.release.cluster;\n fence.proxy.async.shared::cta;" ::: "memory");
    }
    if (tid < 2 * pix / 16)  // the slack pixel past each box
      reinterpret_cast<uint4*>(smem + (tid / (pix / 16)) * buf_bytes + in_bytes)[tid % (pix / 16)] = make_uint4(0, 0, 0, 0);
    __syncthreads();
    if (u0 < total) issue(u0, 0, true, 0);

    const int quad = warp % quads, set = warp / quads;
    const int sg = set % (segs / S), cg = set / (segs / S);
    const int g = lane / 4, t = lane % 4;
    const int seg = sg * S + g % S, ct0 = 2 * (cg * cpairs + g / S);
    const int d = 2 * t - g, o = d >= -1 ? d : d + 8;
    const unsigned* pc = pairs + (4 * quad) * R * pair_words + o + 1;
    const int row0 = seg * L, col = ct0 * 8 + 2 * t;
    int k = 0, taps_slot = 0;
    for (int u = u0; u < total; u += stride, ++k) {
      const int s = k & 1;
      const bool new_group = u == u0 || u % groups != (u - stride) % groups;
      asm volatile("cp.async.wait_all;" ::: "memory");
      __syncthreads();  // this tile's taps are in; every warp is done with the last tile
      if (new_group) {
        if (u != u0) taps_slot ^= 1;
        const unsigned short* raw = reinterpret_cast<const unsigned short*>(smem + raw_offset + taps_slot * raw_bytes);
        for (int e = tid; e < CB * R * pair_words; e += threads) {
          const int p = e % pair_words - 1;
          const unsigned short* tv = raw + e / pair_words * R;
          pairs[e] = (p >= 0 && p < R ? tv[p] : 0u) | (p + 1 < R ? static_cast<unsigned>(tv[p + 1]) : 0u) << 16;
        }
        __syncthreads();
      }
      barrier_wait(bar0 + 8 * s, (k >> 1) & 1);
      unsigned char* box = smem + s * buf_bytes;
      {
        float acc[4][T][4];
        B::template compute<0, T>(box, row0, col, quad, pc, d >= -1, acc);
        // The last tile's stores have read the staging tile and the other box (issued a pass ago):
        // the next tile's box may load, and this pass's output may be staged.
        if (tid == 0) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
        __syncthreads();
        if (u + stride < total) issue(u + stride, s ^ 1, (u + stride) % groups != u % groups, taps_slot ^ 1);
        B::template epilogue<0, T>(smem + stage_offset, seg * T, col, quad, g, acc);
      }
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      __syncthreads();
      int n, c0, oh0, ow0;
      tile_of(u, tiles_w, tiles, groups, n, c0, oh0, ow0);
      if (tid == 0) store_pass(ymap0, base + stage_offset, T, 0, c0, ow0, oh0, n);
      {
        float acc[4][P1][4];
        B::template compute<T, P1>(box, row0, col, quad, pc, d >= -1, acc);
        __syncthreads();  // every warp is done reading the box: pass 1's output goes there
        B::template epilogue<0, P1>(box, seg * P1, col, quad, g, acc);
      }
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      __syncthreads();
      if (tid == 0) store_pass(ymap1, base + s * buf_bytes, P1, T, c0, ow0, oh0, n);
    }
    if (tid == 0) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  }
};

template <typename K>
__global__ void __launch_bounds__(K::threads, K::min_blocks) persist2_entry(const __grid_constant__ CUtensorMap xmap,
                                                                              const __grid_constant__ CUtensorMap ymap0,
                                                                              const __grid_constant__ CUtensorMap ymap1,
                                                                              const __half* w, int c, int q, int p, int n) {
  K::run(&xmap, &ymap0, &ymap1, w, c, q, p, n);
}

template <typename K>
__global__ void __launch_bounds__(K::threads, K::min_blocks) persist_entry(const __grid_constant__ CUtensorMap xmap,
                                                                             const __grid_constant__ CUtensorMap ymap,
                                                                             const __half* w, int c, int q, int p, int n) {
  K::run(&xmap, &ymap, w, c, q, p, n);
}

template <typename K, int MODE>
__global__ void __launch_bounds__(K::threads, K::min_blocks) slots_entry(const __grid_constant__ CUtensorMap xmap,
                                                                           const __grid_constant__ CUtensorMap ymap,
                                                                           const __half* w, int c, int q) {
  K::template run<MODE>(&xmap, &ymap, w, c, q);
}

void* g_ref = nullptr;
const char* g_only = nullptr;

const char* need_4x(const layer& l) {
  return &l == &l512 ? "27.2" : &l == &l256 ? "15.05" : &l == &l128 ? "24.0" : "42.7";
}

template <int CB, int TH, int TW, int L, int T, int MINB>
void run_slots(const layer& l, const buffers& b, const std::vector<unsigned char>& ref) {
  using K = slots<CB, TH, TW, L, T, MINB>;
  char name[64];
  std::snprintf(name, sizeof name, "c%d_t%dx%d_l%d_p%d_minb%d", CB, TH, TW, L, T, MINB);
  if (g_only && std::strcmp(g_only, name) != 0) return;
  CUtensorMap xm, ym;
  if (!probe::encode_nhwc(&xm, b.x, l, CB, K::pw, K::ph, CU_TENSOR_MAP_SWIZZLE_32B) ||
      !probe::encode_nhwc(&ym, b.y, l, CB, TW, TH, CU_TENSOR_MAP_SWIZZLE_32B))
    return;
  const void* kernel = reinterpret_cast<const void*>(&slots_entry<K, 3>);
  const void* parts[2] = {reinterpret_cast<const void*>(&slots_entry<K, 1>), reinterpret_cast<const void*>(&slots_entry<K, 2>)};
  const int tiles = ((l.hw + TH - 1) / TH) * ((l.hw + TW - 1) / TW);
  const dim3 grid(tiles, (l.c + CB - 1) / CB, l.n);
  const __half* w = static_cast<const __half*>(b.w);
  int c = l.c, q = l.hw;
  void* params[] = {&xm, &ym, &w, &c, &q};
  cudaFuncAttributes attr{};
  cudaFuncGetAttributes(&attr, kernel);
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, K::smem_bytes);
  int per_sm = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, K::threads, K::smem_bytes);
  const float us = probe::median_us(
      [&] { cudaLaunchKernel(kernel, grid, dim3(K::threads), params, K::smem_bytes, nullptr); }, b.flush, g_only ? 1 : 30);
  float part_us[2] = {0, 0};
  for (int m = 0; m < 2 && !g_only; ++m) {
    cudaFuncSetAttribute(parts[m], cudaFuncAttributeMaxDynamicSharedMemorySize, K::smem_bytes);
    part_us[m] = probe::median_us(
        [&] { cudaLaunchKernel(parts[m], grid, dim3(K::threads), params, K::smem_bytes, nullptr); }, b.flush, 30);
  }
  const cudaError_t err = cudaDeviceSynchronize();
  cudaMemset(b.y, 0xff, static_cast<std::size_t>(l.n) * l.hw * l.hw * l.c * 2);
  cudaLaunchKernel(kernel, grid, dim3(K::threads), params, K::smem_bytes, nullptr);
  cudaDeviceSynchronize();
  const ulp_report rep = compare_ulps(download(b.y, ref.size()), ref);
  std::printf("| %s | slots %s | %d regs, %d B local | %d x %d warps | %.1f (load %.1f, compute+store %.1f) | %s | %s, %lld differ, max %d ulps |\n", l.name,
              name, attr.numRegs, static_cast<int>(attr.localSizeBytes), per_sm, K::warps, us, part_us[0], part_us[1], need_4x(l),
              err != cudaSuccess ? cudaGetErrorString(err) : "ok", rep.differing, rep.max_ulps);
}

template <int CB, int TH, int TW, int L, int MINB, bool PLAIN = false, bool SPLIT = false, bool BLOAD = false, bool CW2 = false>
void run_persist(const layer& l, const buffers& b, const std::vector<unsigned char>& ref) {
  using K = persist<CB, TH, TW, L, MINB, PLAIN, SPLIT, BLOAD, CW2>;
  char name[80];
  std::snprintf(name, sizeof name, "persist_c%d_t%dx%d_l%d_minb%d%s%s%s%s", CB, TH, TW, L, MINB, PLAIN ? "_plain" : "", SPLIT ? "_split" : "",
                BLOAD ? "_bload" : "", CW2 ? "_cw2" : "");
  if (g_only && std::strcmp(g_only, name) != 0) return;
  CUtensorMap xm, ym;
  if (!probe::encode_nhwc(&xm, b.x, l, CB, K::pw, K::ph, CU_TENSOR_MAP_SWIZZLE_32B) ||
      !probe::encode_nhwc(&ym, b.y, l, CB, TW, TH, CU_TENSOR_MAP_SWIZZLE_32B))
    return;
  const void* kernel = reinterpret_cast<const void*>(&persist_entry<K>);
  cudaFuncAttributes attr{};
  cudaFuncGetAttributes(&attr, kernel);
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, K::smem_bytes);
  int per_sm = 0, sms = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, K::threads, K::smem_bytes);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const int total = ((l.hw + TH - 1) / TH) * ((l.hw + TW - 1) / TW) * ((l.c + CB - 1) / CB) * l.n;
  const int groups = (l.c + CB - 1) / CB, slots_n = per_sm * sms;
  const int grid = std::min(total, slots_n >= groups ? slots_n / groups * groups : slots_n);  // a multiple of the groups
  const __half* w = static_cast<const __half*>(b.w);
  int c = l.c, q = l.hw, p = l.hw, n = l.n;
  void* params[] = {&xm, &ym, &w, &c, &q, &p, &n};
  const float us = probe::median_us(
      [&] { cudaLaunchKernel(kernel, dim3(grid), dim3(K::threads), params, K::smem_bytes, nullptr); }, b.flush, g_only ? 1 : 30);
  const cudaError_t err = cudaDeviceSynchronize();
  cudaMemset(b.y, 0xff, static_cast<std::size_t>(l.n) * l.hw * l.hw * l.c * 2);
  cudaLaunchKernel(kernel, dim3(grid), dim3(K::threads), params, K::smem_bytes, nullptr);
  cudaDeviceSynchronize();
  const ulp_report rep = compare_ulps(download(b.y, ref.size()), ref);
  std::printf("| %s | %s | %d regs, %d B local | %d x %d warps, %d blocks | %.1f | %s | %s, %lld differ, max %d ulps |\n", l.name,
              name, attr.numRegs, static_cast<int>(attr.localSizeBytes), per_sm, K::warps, grid, us, need_4x(l),
              err != cudaSuccess ? cudaGetErrorString(err) : "ok", rep.differing, rep.max_ulps);
}

template <int CB, int TH, int TW, int L, int T, int MINB>
void run_persist2(const layer& l, const buffers& b, const std::vector<unsigned char>& ref) {
  using K = persist2<CB, TH, TW, L, T, MINB>;
  char name[64];
  std::snprintf(name, sizeof name, "persist2_c%d_t%dx%d_l%d_p%d_minb%d", CB, TH, TW, L, T, MINB);
  if (g_only && std::strcmp(g_only, name) != 0) return;
  CUtensorMap xm, ym0, ym1;
  if (!probe::encode_nhwc(&xm, b.x, l, CB, K::pw, K::ph, CU_TENSOR_MAP_SWIZZLE_32B) ||
      !probe::encode_nhwc(&ym0, b.y, l, CB, TW, T, CU_TENSOR_MAP_SWIZZLE_32B) ||
      !probe::encode_nhwc(&ym1, b.y, l, CB, TW, L - T, CU_TENSOR_MAP_SWIZZLE_32B))
    return;
  const void* kernel = reinterpret_cast<const void*>(&persist2_entry<K>);
  cudaFuncAttributes attr{};
  cudaFuncGetAttributes(&attr, kernel);
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, K::smem_bytes);
  int per_sm = 0, sms = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, K::threads, K::smem_bytes);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const int total = ((l.hw + TH - 1) / TH) * ((l.hw + TW - 1) / TW) * ((l.c + CB - 1) / CB) * l.n;
  const int groups = (l.c + CB - 1) / CB, slots_n = per_sm * sms;
  const int grid = std::min(total, slots_n >= groups ? slots_n / groups * groups : slots_n);
  const __half* w = static_cast<const __half*>(b.w);
  int c = l.c, q = l.hw, p = l.hw, n = l.n;
  void* params[] = {&xm, &ym0, &ym1, &w, &c, &q, &p, &n};
  const float us = probe::median_us(
      [&] { cudaLaunchKernel(kernel, dim3(grid), dim3(K::threads), params, K::smem_bytes, nullptr); }, b.flush, g_only ? 1 : 30);
  const cudaError_t err = cudaDeviceSynchronize();
  cudaMemset(b.y, 0xff, static_cast<std::size_t>(l.n) * l.hw * l.hw * l.c * 2);
  cudaLaunchKernel(kernel, dim3(grid), dim3(K::threads), params, K::smem_bytes, nullptr);
  cudaDeviceSynchronize();
  const ulp_report rep = compare_ulps(download(b.y, ref.size()), ref);
  std::printf("| %s | %s | %d regs, %d B local | %d x %d warps, %d blocks | %.1f | %s | %s, %lld differ, max %d ulps |\n", l.name,
              name, attr.numRegs, static_cast<int>(attr.localSizeBytes), per_sm, K::warps, grid, us, need_4x(l),
              err != cudaSuccess ? cudaGetErrorString(err) : "ok", rep.differing, rep.max_ulps);
}

template <typename K>
void run_stage3(const layer& l, const buffers& b, const char* name, const std::vector<unsigned char>& ref) {
  if (g_only) return;
  const void* kernel = reinterpret_cast<const void*>(&entry<K>);
  const ulp_report rep = compare_ulps(output_of<K>(kernel, l, b), ref);
  std::printf("| %s | %s | | %d warps | %.1f | %s | %lld differ, max %d ulps |\n", l.name, name, K::warps,
              time_us<K>(kernel, l, b, 30), need_4x(l), rep.differing, rep.max_ulps);
}

}  // namespace

// The configurations timed, per layer (run_slots<CB, TH, TW, L, T, MINB>); -D overrides them.
#ifndef SLOTS_28
#define SLOTS_28 \
  run_slots<16, 28, 32, 7, 4, 3>(l, b, ref); \
  run_persist<16, 28, 32, 7, 2>(l, b, ref); \
  run_persist<16, 28, 32, 7, 2, true, false, true>(l, b, ref); \
  run_persist<16, 28, 32, 7, 2, false, false, false, true>(l, b, ref);
#endif
#ifndef SLOTS_56
#define SLOTS_56 \
  run_slots<16, 28, 32, 7, 4, 3>(l, b, ref); \
  run_persist<16, 28, 32, 7, 2>(l, b, ref); \
  run_persist<16, 28, 32, 7, 2, true, false, true>(l, b, ref); \
  run_persist<16, 28, 32, 7, 2, false, false, false, true>(l, b, ref);
#endif

#ifndef SLOTS_384
#define SLOTS_384 \
  run_persist<16, 16, 32, 4, 3>(l, b, ref); \
  run_persist<16, 16, 32, 4, 2, false, false, false, true>(l, b, ref); \
  run_persist<16, 32, 16, 4, 2, false, false, false, true>(l, b, ref);
#endif

int main(int argc, char** argv) {
  if (argc > 1) g_only = argv[1];
  const probe::l2_flush flush(256ull << 20);
  const buffers b = make_buffers(flush);
  cudaMalloc(&g_ref, probe_bytes);
  randomize(b);
  std::printf("| layer | kernel | registers | resident | us | 4x torch needs | output against the f32 reference |\n");
  std::printf("| --- | --- | --- | --- | ---: | ---: | --- |\n");
  for (int rep = 0; rep < (g_only ? 1 : 2); ++rep) {
    {
      const layer& l = l512;
      const auto ref = reference_of(l, b, g_ref);
      run_stage3<stage3<7, 32, 28, 32, 4>>(l, b, "stage 3 c32_t28x32 (dispatched)", ref);
      SLOTS_28
    }
    {
      const layer& l = l256;
      const auto ref = reference_of(l, b, g_ref);
      run_stage3<stage3<7, 32, 28, 32, 4>>(l, b, "stage 3 c32_t28x32 (dispatched)", ref);
      SLOTS_28
    }
    {
      const layer& l = l128;
      const auto ref = reference_of(l, b, g_ref);
      run_stage3<stage3<7, 64, 16, 56, 4>>(l, b, "stage 3 c64_t16x56 (dispatched)", ref);
      SLOTS_56
    }
    {
      const layer& l = l384;
      const auto ref = reference_of(l, b, g_ref);
      run_stage3<stage3<7, 32, 16, 32, 4>>(l, b, "stage 3 c32_t16x32 (stage 4 is dispatched here, 44.5)", ref);
      SLOTS_384
    }
  }
  return 0;
}
