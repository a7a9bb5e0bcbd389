// Device probe: depthwise 7x7 f16 NHWC on tensor cores with no per-channel planes, against stage
// 3 on the same inputs. Usage, on the GPU machine: bash ci/gpu/probes/dw_direct.sh [CONFIG], CONFIG
// a name as run_direct prints it ("c16_t16x32_xb2_minb4_p0") to run that one alone, once (for ncu).
//
// Stage 3 transposes the NHWC patch into per-channel planes so that ldmatrix can feed the
// Toeplitz MMAs, and transposes the output back: two extra passes through shared memory plus the
// registers that stage them. Here the raw NHWC patch comes in by one TMA copy (swizzled by the
// block's pixel size, 32, 64 or 128 bytes, so that the reads below are conflict-free) and a lane
// reads whole 16-byte chunks (8 channels of one pixel) with LDS.128. The MMA's C fragment holds,
// per pixel, all 8 channels of the warp's chunk: packed to f16 they are the pixel's 16 output
// bytes, stored to a swizzled NHWC tile that one TMA store writes back. Each warp owns one 16-byte
// chunk, one 16-row group and XB column blocks of 8. Four ways to make the A fragments (PAIRS):
//   0  the pixels a lane reads are those of its A fragment (rows g, g + 8, columns 2t, 2t + 1), so
//      one byte permute per register makes the fragments of all 8 channels at once; per tap row
//      and unit of 8 input columns, 4 LDS.128 and 16 permutes feed 16 m16n8k8 (per channel, the
//      unit against its own column block's taps and against the previous block's);
//   1  tap rows r and r + 1 as the two K halves of one m16n8k16 (stage 3's pairs): 8 LDS.128 and
//      32 permutes feed 16 m16n8k16;
//   2  two channels in one m16n8k8, k = 4 input columns x 2 channels, n = 4 output columns x the
//      same 2 channels, B block-diagonal: a pixel's word is an A register as it lies, no permutes,
//      but 3 MMAs per 4 output columns (1.5 times PAIRS 0's) and a register move per A register
//      (rows g and g + 8 come from different loads; an MMA takes them as an aligned pair);
//   3  as 0 with 4 channels a warp (half the accumulators, twice the warps), read with LDS.64 from
//      half-chunk planes that the block first copies out of the box (compute_half).
// Findings: docs/conv-h200.md, "Tensor cores without per-channel planes".
#include "cuop/kernels/common/mma_sync.cuh"
#include "depthwise_probe.hpp"
#include "probe_tma.hpp"

// The configurations timed, per layer (run_direct<CB, TH, TW, XB, MINB, PAIRS = 0>); -D overrides them.
#ifndef DIRECT_512
#define DIRECT_512 \
  run_direct<16, 16, 32, 2, 4>(l, b, ref); \
  run_direct<32, 16, 32, 4, 2, 1>(l, b, ref); \
  run_direct<16, 16, 32, 2, 4, 2>(l, b, ref); \
  run_direct<32, 16, 32, 2, 2, 2>(l, b, ref); \
  run_direct<32, 16, 32, 4, 2, 2>(l, b, ref); \
  run_direct<16, 28, 32, 2, 2, 2>(l, b, ref); \
  run_direct<16, 16, 32, 4, 3, 3>(l, b, ref); \
  run_direct<16, 16, 32, 2, 3, 3>(l, b, ref); \
  run_direct<32, 16, 32, 4, 2, 3>(l, b, ref); \
  run_direct<16, 28, 32, 4, 2, 3>(l, b, ref);
#endif
#ifndef DIRECT_256
#define DIRECT_256 DIRECT_512
#endif
#ifndef DIRECT_128
#define DIRECT_128 \
  run_direct<16, 16, 56, 2, 2>(l, b, ref); \
  run_direct<16, 16, 56, 4, 2, 1>(l, b, ref); \
  run_direct<16, 16, 56, 2, 2, 2>(l, b, ref); \
  run_direct<16, 16, 56, 4, 2, 2>(l, b, ref); \
  run_direct<32, 16, 56, 2, 1, 2>(l, b, ref); \
  run_direct<16, 16, 56, 4, 2, 3>(l, b, ref); \
  run_direct<32, 16, 56, 4, 1, 3>(l, b, ref);
#endif
#ifndef DIRECT_384
#define DIRECT_384 \
  run_direct<16, 16, 64, 2, 2>(l, b, ref); \
  run_direct<16, 16, 64, 2, 2, 2>(l, b, ref); \
  run_direct<16, 16, 64, 4, 2, 2>(l, b, ref); \
  run_direct<32, 16, 64, 2, 1, 2>(l, b, ref); \
  run_direct<16, 16, 64, 4, 2, 3>(l, b, ref);
#endif

namespace {

namespace cm = cuop::kernels::common;
constexpr int R = 7, PAD = 3;

template <int CB, int TH, int TW, int XB, int MINB, int PAIRS>
struct direct {
  static constexpr int qc = CB / 8;                      // 16-byte chunks of a pixel
  static constexpr int wc = PAIRS == 3 ? 2 * qc : qc;    // warps across channels (8 channels each; 4 at PAIRS 3)
  static constexpr int min_blocks = MINB;
  static constexpr int xblocks = TW / 8;
  static constexpr int colw = (xblocks + XB - 1) / XB;   // warps across the tile's columns
  static constexpr int groups = (TH + 15) / 16;
  static constexpr int warps = wc * colw * groups;
  static constexpr int threads = warps * 32;
  static constexpr int ph = TH + R - 1;
  // Patch width: odd (TW is a multiple of 8) for conflict-free rows, the column past TW + 5 only
  // meeting zero taps; PAIRS 2 reads rows two apart in a phase and wants pw = 2 mod 4 instead.
  static constexpr int pw = PAIRS == 2 ? TW + 6 : TW + 7;
  static constexpr int pix = CB * 2;                     // bytes of a pixel in the box
  static constexpr int swz_mask = pix == 128 ? 7 : pix == 64 ? 3 : 1;
  static constexpr int in_bytes = ph * pw * pix;
  static constexpr int slack = 8 * pix;                  // the last row's unit past the box: zeros
  static constexpr int pairs_offset = (in_bytes + slack + 127) / 128 * 128;
  static constexpr int pair_words = 9;
  static_assert(CB * R * pair_words * 4 % 16 == 0 && CB * R * 112 % 16 == 0, "the raw taps start 16-byte aligned");
  // The tap table: PAIRS 0/1 the pairs P[-1..7] of each (channel, tap row); PAIRS 2 the B words of
  // each (chunk, channel pair, tap row, s0, b) (see compute_cp).
  static constexpr int table_bytes = PAIRS == 2 ? CB * R * 112 : CB * R * pair_words * 4;
  static constexpr int bar_offset = (pairs_offset + table_bytes + CB * R * R * 2 + 15) / 16 * 16;
  // PAIRS 3: the patch again as half-chunk planes (4 channels, 8 bytes a pixel) of pwh pixels a
  // row, pwh >= TW + 8 and 1 or 9 modulo 16 (with the row order sigma below: conflict-free LDS.64).
  static constexpr int pwh_of(int w) { return w % 16 == 1 || w % 16 == 9 ? w : pwh_of(w + 1); }
  static constexpr int pwh = pwh_of(TW + 8);
  static constexpr int half_offset = (bar_offset + 8 + 127) / 128 * 128;
  static constexpr int half_bytes = PAIRS == 3 ? 2 * qc * ph * pwh * 8 : 0;
  static constexpr int smem_bytes = half_offset + half_bytes + 1024;  // + alignment of the box
  static_assert(TH * TW * pix <= in_bytes, "the output tile fits where the patch was");
  static_assert(pix == 32 || pix == 64 || pix == 128, "CB 16, 32 or 64");

  static __device__ __forceinline__ unsigned swz(unsigned lin) { return lin ^ (((lin >> 7) & swz_mask) << 4); }
  static __host__ __device__ constexpr int group_row(int g) { return 16 * g < TH - 16 ? 16 * g : TH - 16; }

  // PAIRS 2: two channels in one MMA, no byte permutes. m16n8k8 with k = (4 input columns) x
  // (channel 2i, 2i + 1) and n = (4 output columns) x (the same two channels): a lane's A register is
  // one word of a pixel as it lies in the patch (channels 2i, 2i + 1 of column kc = lane % 4), B is
  // block-diagonal in the channel (tap s = 4G + kc - xn of channel 2i + b, b = n % 2, xn = n / 2),
  // and C holds, per pixel, the two channels' outputs side by side. Output columns 4j..4j + 3 take
  // input groups j, j + 1, j + 2 (G = 0..2): 3 MMAs a group, channel pair and tap row. M row m is
  // output row sigma(m) = 2 (m % 4) + m / 4 (+ 8), so that the two rows a phase of LDS.128 meets
  // are two apart (2 pw = 4 mod 8 pixels): conflict-free with the swizzle.
  static __device__ __forceinline__ void compute_cp(unsigned box, const unsigned* table, float alpha, int warp, int lane) {
    const int q = warp % qc, cw = warp / qc % colw, g = warp / (qc * colw);
    const int row0 = group_row(g), xw = cw * XB * 8;
    const int gl = lane / 4, kc = lane % 4, sig = 2 * (gl % 4) + gl / 4;
    const int xn = gl / 2, bsel = gl % 2, s0 = kc - xn;
    constexpr int jg = 2 * XB;                                 // output groups of the warp
    constexpr bool full = xblocks % XB == 0;                  // every warp has all jg groups: no runtime guards
    const int live_groups = full ? jg : 2 * (xblocks - cw * XB) < jg ? 2 * (xblocks - cw * XB) : jg;
    float acc[4][jg][4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < jg; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.f;
    const unsigned tbase = cm::smem_addr(table) + 16u * (((q * 4) * R * 7 + (s0 + 3)) * 2 + bsel);
#pragma unroll 1
    for (int r = 0; r < R; ++r) {
      unsigned bt[4][4];
#pragma unroll
      for (int i = 0; i < 4; ++i)
        asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(bt[i][0]), "=r"(bt[i][1]), "=r"(bt[i][2]), "=r"(bt[i][3])
                     : "r"(tbase + 16u * ((i * R + r) * 14)));
      const int pa = (row0 + r + sig) * pw + xw + kc;
      // Groups g = 2h + parity: parity picks the swizzle phase, h moves 8 pixels (the same phase).
      unsigned addr[2][2];
#pragma unroll
      for (int par = 0; par < 2; ++par) {
        addr[0][par] = box + swz((pa + 4 * par) * pix + 16 * q);
        addr[1][par] = box + swz((pa + 8 * pw + 4 * par) * pix + 16 * q);
      }
#pragma unroll
      for (int gi = 0; gi < jg + 2; ++gi) {
        if (!full && gi >= live_groups + 2) break;
        const unsigned off = static_cast<unsigned>((gi / 2) * 8 * pix);
        unsigned w0[4], w1[4];
        asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(w0[0]), "=r"(w0[1]), "=r"(w0[2]), "=r"(w0[3]) : "r"(addr[0][gi % 2] + off));
        asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(w1[0]), "=r"(w1[1]), "=r"(w1[2]), "=r"(w1[3]) : "r"(addr[1][gi % 2] + off));
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          const unsigned a[2] = {w0[i], w1[i]};
#pragma unroll
          for (int gg = 0; gg < 3; ++gg) {
            const int j = gi - gg;
            if (j >= 0 && j < jg && (full || j < live_groups)) cm::mma_1688<__half>(acc[i][j], a, bt[i][gg]);
          }
        }
      }
    }
    __syncthreads();  // every warp is done with the patch: the output tile goes where it was
#pragma unroll
    for (int j = 0; j < jg; ++j) {
      if (!full && j >= live_groups) break;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        unsigned wd[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          const __half2 p2 = __floats2half2_rn(alpha * acc[i][j][2 * h], alpha * acc[i][j][2 * h + 1]);
          wd[i] = *reinterpret_cast<const unsigned*>(&p2);
        }
        const int y = row0 + sig + 8 * h, xc = xw + 4 * j + kc;
        asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(box + swz((y * TW + xc) * pix + 16 * q)),
                     "r"(wd[0]), "r"(wd[1]), "r"(wd[2]), "r"(wd[3])
                     : "memory");
      }
    }
  }

  // PAIRS 3: a warp owns 4 channels (half a chunk), so its accumulators take half the registers
  // and twice the warps fit. LDS.64 from the swizzled box would meet half the banks, so the block
  // first copies the box into half-chunk planes (relayout), 8 bytes a pixel, rows pwh apart. M row
  // m is output row sigma(m) = 2 (m / 4) + m % 2 + 8 ((m / 2) % 2): the 4 rows a 16-lane phase
  // meets are {b, b + 1, b + 8, b + 9}, which with pwh = 1 or 9 mod 16 and the 4 even columns
  // fall in 16 different 8-byte bank pairs. Otherwise as PAIRS 0 (k8), with 8 byte permutes and 8
  // MMAs per unit. The output goes to the box, free since the relayout: no barrier before it.
  static __host__ __device__ constexpr int sigma(int m) { return 2 * (m / 4) + m % 2 + 8 * ((m / 2) % 2); }
  static __device__ __forceinline__ void relayout(unsigned box, unsigned half, int tid) {
    constexpr int cols = pw + 1, tasks = qc * ph * cols;  // column pw: zeros (read only against zero taps)
    for (int t = tid; t < tasks; t += threads) {
      const int q = t / (ph * cols), row = t / cols % ph, col = t % cols;
      unsigned v[4] = {0u, 0u, 0u, 0u};
      if (col < pw)
        asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3])
                     : "r"(box + swz((row * pw + col) * pix + 16 * q)));
      const unsigned at = half + 8u * ((2 * q * ph + row) * pwh + col);
      asm volatile("st.shared.v2.u32 [%0], {%1, %2};" ::"r"(at), "r"(v[0]), "r"(v[1]) : "memory");
      asm volatile("st.shared.v2.u32 [%0], {%1, %2};" ::"r"(at + 8u * ph * pwh), "r"(v[2]), "r"(v[3]) : "memory");
    }
  }
  static __device__ __forceinline__ void compute_half(unsigned box, unsigned half, const unsigned* pairs, float alpha,
                                                      int warp, int lane) {
    const int hq = warp % wc, cw = warp / wc % colw, g = warp / (wc * colw);
    const int row0 = group_row(g), xb0 = cw * XB;
    const int gl = lane / 4, k0 = 2 * (lane % 4), d = k0 - gl;
    const int ra = sigma(gl), rb = sigma(gl + 8);
    float acc[4][XB][4];
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int x = 0; x < XB; ++x)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[j][x][e] = 0.f;
    const unsigned* pc = pairs + (4 * hq) * R * pair_words + (d >= -1 ? d : d + 8) + 1;
    const unsigned hb = half + 8u * (hq * ph * pwh);
#pragma unroll 1
    for (int r = 0; r < R; ++r) {
      unsigned lo[4], hi[4];
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const unsigned v = pc[(j * R + r) * pair_words];
        lo[j] = d >= -1 ? v : 0u;
        hi[j] = d >= -1 ? 0u : v;
      }
      const unsigned a0 = hb + 8u * ((row0 + r + ra) * pwh + xb0 * 8 + k0);
      const unsigned b0 = hb + 8u * ((row0 + r + rb) * pwh + xb0 * 8 + k0);
#pragma unroll
      for (int u = 0; u <= XB; ++u) {
        if (xb0 + u > xblocks) break;
        const unsigned off = 64u * u;
        unsigned wa0[2], wa1[2], wb0[2], wb1[2];
        asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(wa0[0]), "=r"(wa0[1]) : "r"(a0 + off));
        asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(wa1[0]), "=r"(wa1[1]) : "r"(a0 + off + 8u));
        asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(wb0[0]), "=r"(wb0[1]) : "r"(b0 + off));
        asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(wb1[0]), "=r"(wb1[1]) : "r"(b0 + off + 8u));
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          const unsigned sel = j % 2 ? 0x7632 : 0x5410;
          const unsigned a[2] = {__byte_perm(wa0[j / 2], wa1[j / 2], sel), __byte_perm(wb0[j / 2], wb1[j / 2], sel)};
          if (u < XB && xb0 + u < xblocks) cm::mma_1688<__half>(acc[j][u], a, lo[j]);
          if (u > 0) cm::mma_1688<__half>(acc[j][u - 1], a, hi[j]);
        }
      }
    }
#pragma unroll
    for (int x = 0; x < XB; ++x) {
      if (xb0 + x >= xblocks) break;
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          unsigned wd[2];
#pragma unroll
          for (int i = 0; i < 2; ++i) {
            const __half2 p2 = __floats2half2_rn(alpha * acc[2 * i][x][2 * h + e], alpha * acc[2 * i + 1][x][2 * h + e]);
            wd[i] = *reinterpret_cast<const unsigned*>(&p2);
          }
          const int y = row0 + (h ? rb : ra), xc = (xb0 + x) * 8 + k0 + e;
          asm volatile("st.shared.v2.u32 [%0], {%1, %2};" ::"r"(box + swz((y * TW + xc) * pix + 16 * (hq / 2)) + 8u * (hq % 2)),
                       "r"(wd[0]), "r"(wd[1])
                       : "memory");
        }
    }
  }

  // MODE 1: load only, 2: compute + store (patch not loaded), 3: everything.
  template <int MODE>
  static __device__ void run(const CUtensorMap* xmap, const CUtensorMap* ymap, const __half* w, float alpha, int c,
                             int q_out) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    unsigned char* smem = smem_raw + ((1024u - (cm::smem_addr(smem_raw) & 1023u)) & 1023u);
    const int tid = static_cast<int>(threadIdx.x), lane = tid % 32, warp = tid / 32;
    const int tiles_w = (q_out + TW - 1) / TW;
    const int n = static_cast<int>(blockIdx.z), c0 = static_cast<int>(blockIdx.y) * CB;
    const int oh0 = static_cast<int>(blockIdx.x) / tiles_w * TH, ow0 = static_cast<int>(blockIdx.x) % tiles_w * TW;
    const unsigned box = cm::smem_addr(smem);
    const unsigned bar = cm::smem_addr(smem + bar_offset);
    unsigned* pairs = reinterpret_cast<unsigned*>(smem + pairs_offset);

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
    // The slack past the box (read only against zero taps), then the tap pairs P[-1..7] of each
    // (channel, tap row): (tap p, tap p + 1), zero outside the filter.
    for (int i = tid; i < slack / 16; i += threads)
      *reinterpret_cast<uint4*>(smem + in_bytes + 16 * i) = make_uint4(0, 0, 0, 0);
    // The block's taps, CB x R x R halves in a row of w, read coalesced into the raw area past the
    // pair table (zeros past C), then each (channel, tap row)'s pairs built from there.
    unsigned short* raw_taps = reinterpret_cast<unsigned short*>(smem + pairs_offset + table_bytes);
    {
      // 16-byte pieces (CB * R * R halves is a multiple of 8): every load in flight at once.
      constexpr int pieces = CB * R * R * 2 / 16, per_thread = (pieces + threads - 1) / threads;
      const uint4* wsrc = reinterpret_cast<const uint4*>(w + static_cast<long long>(c0) * R * R);
      const int live = (c - c0 < CB ? c - c0 : CB) * R * R * 2 / 16;  // C % 8 == 0 here
      uint4 v[per_thread];
#pragma unroll
      for (int k = 0; k < per_thread; ++k) {
        const int i = tid + k * threads;
        v[k] = i < live ? wsrc[i] : make_uint4(0, 0, 0, 0);
      }
#pragma unroll
      for (int k = 0; k < per_thread; ++k)
        if (tid + k * threads < pieces) reinterpret_cast<uint4*>(raw_taps)[tid + k * threads] = v[k];
    }
    __syncthreads();
    if constexpr (PAIRS == 2) {
      // Entry e = (((q * 4 + i) * R + r) * 7 + s0 + 3) * 2 + b: the B words of channel pair i of
      // chunk q at tap row r for the lanes with s0 = (lane % 4) - lane / 8 and b = lane / 4 % 2, one
      // per input group offset G = 0..2: tap s0 + 4G of channel 8q + 2i + b, in the half b.
      for (int e = tid; e < CB / 8 * 4 * R * 7 * 2; e += threads) {
        const int b = e % 2, s0 = e / 2 % 7 - 3, r = e / 14 % R, pair = e / (14 * R);  // pair = 4q + i
        const unsigned short* tv = raw_taps + ((2 * pair + b) * R + r) * R;
        unsigned wv[3];
#pragma unroll
        for (int g = 0; g < 3; ++g) {
          const int sx = s0 + 4 * g;
          const unsigned t = sx >= 0 && sx < R ? tv[sx] : 0u;
          wv[g] = b ? t << 16 : t;
        }
        reinterpret_cast<uint4*>(pairs)[e] = make_uint4(wv[0], wv[1], wv[2], 0u);
      }
    } else {
      for (int i = tid; i < CB * R; i += threads) {
        const unsigned short* tv = raw_taps + i * R;
#pragma unroll
        for (int p = -1; p < 8; ++p)
          pairs[i * pair_words + p + 1] = (p >= 0 && p < R ? tv[p] : 0u) | (p + 1 < R ? static_cast<unsigned>(tv[p + 1]) : 0u) << 16;
      }
    }
    __syncthreads();
    if (MODE & 1)
      for (unsigned done = 0; !done;)
        asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n selp.u32 %0, 1, 0, p;\n}"
                     : "=r"(done) : "r"(bar) : "memory");
    if (!(MODE & 2)) return;

    if constexpr (PAIRS == 3) {
      const unsigned half = cm::smem_addr(smem + half_offset);
      relayout(box, half, tid);
      __syncthreads();
      compute_half(box, half, pairs, alpha, warp, lane);
    } else if constexpr (PAIRS == 2) {
      compute_cp(box, pairs, alpha, warp, lane);
    } else {
      const int q = warp % qc, cw = warp / qc % colw, g = warp / (qc * colw);
      const int row0 = group_row(g), xb0 = cw * XB;
      const int gl = lane / 4, k0 = 2 * (lane % 4), d = k0 - gl;
      float acc[8][XB][4];
#pragma unroll
      for (int j = 0; j < 8; ++j)
#pragma unroll
        for (int x = 0; x < XB; ++x)
#pragma unroll
          for (int e = 0; e < 4; ++e) acc[j][x][e] = 0.f;

      const unsigned* pc = pairs + (8 * q) * R * pair_words + (d >= -1 ? d : d + 8) + 1;
      auto single_row = [&](int r) {
        // Per channel: its taps against the column block's own unit (lo) and the next unit (hi).
        unsigned lo[8], hi[8];
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          const unsigned v = pc[(j * R + r) * pair_words];
          lo[j] = d >= -1 ? v : 0u;
          hi[j] = d >= -1 ? 0u : v;
        }
        // The lane's four pixels of unit 0 (rows gl, gl + 8 from row0 + r; columns k0, k0 + 1 of the
        // warp's first column block); a unit further is 8 pixels on, the same swizzle phase.
        const int pa = (row0 + r + gl) * pw + xb0 * 8 + k0, pb = pa + 8 * pw;
        const unsigned a0 = box + swz(pa * pix + 16 * q), a1 = box + swz((pa + 1) * pix + 16 * q);
        const unsigned b0 = box + swz(pb * pix + 16 * q), b1 = box + swz((pb + 1) * pix + 16 * q);
#pragma unroll
        for (int u = 0; u <= XB; ++u) {
          if (xb0 + u > xblocks) break;
          uint4 v[4];
          const unsigned off = static_cast<unsigned>(u * 8 * pix);
          asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v[0].x), "=r"(v[0].y), "=r"(v[0].z), "=r"(v[0].w) : "r"(a0 + off));
          asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v[1].x), "=r"(v[1].y), "=r"(v[1].z), "=r"(v[1].w) : "r"(a1 + off));
          asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v[2].x), "=r"(v[2].y), "=r"(v[2].z), "=r"(v[2].w) : "r"(b0 + off));
          asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v[3].x), "=r"(v[3].y), "=r"(v[3].z), "=r"(v[3].w) : "r"(b1 + off));
          const unsigned wa0[4] = {v[0].x, v[0].y, v[0].z, v[0].w}, wa1[4] = {v[1].x, v[1].y, v[1].z, v[1].w};
          const unsigned wb0[4] = {v[2].x, v[2].y, v[2].z, v[2].w}, wb1[4] = {v[3].x, v[3].y, v[3].z, v[3].w};
          // Unit u of channel j as an m16n8k8 A fragment (rows gl and gl + 8, k = columns k0, k0 + 1):
          // the k 0-7 half of column block u, the k 8-15 half of column block u - 1.
#pragma unroll
          for (int j = 0; j < 8; ++j) {
            const unsigned sel = j % 2 ? 0x7632 : 0x5410;
            const unsigned a[2] = {__byte_perm(wa0[j / 2], wa1[j / 2], sel), __byte_perm(wb0[j / 2], wb1[j / 2], sel)};
            if (u < XB && xb0 + u < xblocks) cm::mma_1688<__half>(acc[j][u], a, lo[j]);
            if (u > 0) cm::mma_1688<__half>(acc[j][u - 1], a, hi[j]);
          }
        }
      };
      // PAIRS: tap rows r and r + 1 as the two K halves of one m16n8k16 (rows from r for k 0-7, from
      // r + 1 for k 8-15, the same 8 input columns): a unit's 8 pixels make each channel's aligned
      // quad directly, which feeds two MMAs (its own column block's low taps, the previous block's
      // high taps). An odd R's last tap row runs alone.
      auto row_pair = [&](int r) {
        unsigned lo[8][2], hi[8][2];
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          const unsigned v0 = pc[(j * R + r) * pair_words], v1 = pc[(j * R + r + 1) * pair_words];
          lo[j][0] = d >= -1 ? v0 : 0u;
          lo[j][1] = d >= -1 ? v1 : 0u;
          hi[j][0] = d >= -1 ? 0u : v0;
          hi[j][1] = d >= -1 ? 0u : v1;
        }
        const int p0 = (row0 + r + gl) * pw + xb0 * 8 + k0;
        const int px[4] = {p0, p0 + 8 * pw, p0 + pw, p0 + 9 * pw};  // rows gl, gl + 8 at r; the same at r + 1
        unsigned addr[4][2];
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
          for (int e = 0; e < 2; ++e) addr[i][e] = box + swz((px[i] + e) * pix + 16 * q);
#pragma unroll
        for (int u = 0; u <= XB; ++u) {
          if (xb0 + u > xblocks) break;
          const unsigned off = static_cast<unsigned>(u * 8 * pix);
          unsigned wv[4][2][4];
#pragma unroll
          for (int i = 0; i < 4; ++i)
#pragma unroll
            for (int e = 0; e < 2; ++e)
              asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                           : "=r"(wv[i][e][0]), "=r"(wv[i][e][1]), "=r"(wv[i][e][2]), "=r"(wv[i][e][3])
                           : "r"(addr[i][e] + off));
#pragma unroll
          for (int j = 0; j < 8; ++j) {
            const unsigned sel = j % 2 ? 0x7632 : 0x5410;
            unsigned a[4];
#pragma unroll
            for (int i = 0; i < 4; ++i) a[i] = __byte_perm(wv[i][0][j / 2], wv[i][1][j / 2], sel);
            if (u < XB && xb0 + u < xblocks) cm::mma_16816<__half>(acc[j][u], a, lo[j]);
            if (u > 0) cm::mma_16816<__half>(acc[j][u - 1], a, hi[j]);
          }
        }
      };
      if constexpr (PAIRS) {
#pragma unroll 1
        for (int r = 0; r + 1 < R; r += 2) row_pair(r);
        if constexpr (R % 2) single_row(R - 1);
      } else {
#pragma unroll 1
        for (int r = 0; r < R; ++r) single_row(r);
      }

      __syncthreads();  // every warp is done with the patch: the output tile goes where it was
      // Lane: pixels (gl, k0 + e) and (gl + 8, k0 + e); the two stores of a row pair alternate e by
      // row parity so that the 8 lanes of a phase meet 8 different 16-byte bank groups.
#pragma unroll
      for (int x = 0; x < XB; ++x) {
        if (xb0 + x >= xblocks) break;
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
          for (int es = 0; es < 2; ++es) {
            const int e = es ^ (gl & 1);
            unsigned wd[4];
#pragma unroll
            for (int i = 0; i < 4; ++i) {
              const float lo = e ? acc[2 * i][x][2 * h + 1] : acc[2 * i][x][2 * h];
              const float hi = e ? acc[2 * i + 1][x][2 * h + 1] : acc[2 * i + 1][x][2 * h];
              const __half2 p2 = __floats2half2_rn(alpha * lo, alpha * hi);
              wd[i] = *reinterpret_cast<const unsigned*>(&p2);
            }
            const int y = row0 + gl + 8 * h, xc = (xb0 + x) * 8 + k0 + e;
            asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(box + swz((y * TW + xc) * pix + 16 * q)),
                         "r"(wd[0]), "r"(wd[1]), "r"(wd[2]), "r"(wd[3])
                         : "memory");
          }
      }
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (tid == 0) {
      asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group [%0, {%1, %2, %3, %4}], [%5];" ::"l"(
                       reinterpret_cast<unsigned long long>(ymap)),
                   "r"(c0), "r"(ow0), "r"(oh0), "r"(n), "r"(box)
                   : "memory");
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
  }
};

template <typename K, int MODE>
__global__ void __launch_bounds__(K::threads, K::min_blocks) direct_entry(const __grid_constant__ CUtensorMap xmap,
                                                                            const __grid_constant__ CUtensorMap ymap,
                                                                            const __half* w, float alpha, int c, int q) {
  K::template run<MODE>(&xmap, &ymap, w, alpha, c, q);
}

void* g_ref = nullptr;
const char* g_only = nullptr;  // argv[1]: run only the configuration so named ("c16_t16x32_xb2_minb4_p0"), once

const char* need_4x(const layer& l) {
  return &l == &l512 ? "27.2" : &l == &l256 ? "15.05" : &l == &l128 ? "24.0" : "42.7";
}

template <int CB, int TH, int TW, int XB, int MINB, int PAIRS = 0>
void run_direct(const layer& l, const buffers& b, const std::vector<unsigned char>& ref) {
  using K = direct<CB, TH, TW, XB, MINB, PAIRS>;
  char name[64];
  std::snprintf(name, sizeof name, "c%d_t%dx%d_xb%d_minb%d_p%d", CB, TH, TW, XB, MINB, PAIRS);
  if (g_only && std::strcmp(g_only, name) != 0) return;
  CUtensorMap xm, ym;
  const CUtensorMapSwizzle sw = probe::swizzle_for(K::pix);
  if (!probe::encode_nhwc(&xm, b.x, l, CB, K::pw, K::ph, sw) || !probe::encode_nhwc(&ym, b.y, l, CB, TW, TH, sw)) return;
  const void* kernels[3] = {reinterpret_cast<const void*>(&direct_entry<K, 3>),
                            reinterpret_cast<const void*>(&direct_entry<K, 1>),
                            reinterpret_cast<const void*>(&direct_entry<K, 2>)};
  const int tiles = ((l.hw + TH - 1) / TH) * ((l.hw + TW - 1) / TW);
  const dim3 grid(tiles, (l.c + CB - 1) / CB, l.n);
  const __half* w = static_cast<const __half*>(b.w);
  float alpha = 1.f;
  int c = l.c, q = l.hw;
  void* params[] = {&xm, &ym, &w, &alpha, &c, &q};
  float us[3];
  cudaFuncAttributes attr{};
  cudaFuncGetAttributes(&attr, kernels[0]);
  int per_sm = 0;
  for (int m = 0; m < 3; ++m) {
    cudaFuncSetAttribute(kernels[m], cudaFuncAttributeMaxDynamicSharedMemorySize, K::smem_bytes);
    if (m == 0) cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernels[0], K::threads, K::smem_bytes);
    us[m] = probe::median_us(
        [&] { cudaLaunchKernel(kernels[m], grid, dim3(K::threads), params, K::smem_bytes, nullptr); }, b.flush, 30);
  }
  // Timed: whole (us[0]), load only (us[1]), compute and store on an unloaded patch (us[2]). Then
  // the whole kernel once more on a NaN-filled y, its output against the reference.
  const cudaError_t err = cudaDeviceSynchronize();
  cudaMemset(b.y, 0xff, static_cast<std::size_t>(l.n) * l.hw * l.hw * l.c * 2);
  cudaLaunchKernel(kernels[0], grid, dim3(K::threads), params, K::smem_bytes, nullptr);
  cudaDeviceSynchronize();
  const auto got = download(b.y, ref.size());
  const ulp_report rep = compare_ulps(got, ref);
  std::printf("| %s | direct c%d t%dx%d xb%d minb%d%s | %d regs, %d B local | %d x %d warps | %.1f (load %.1f, compute+store %.1f) | %s | %s, %lld differ, max %d ulps |\n",
              l.name, CB, TH, TW, XB, MINB, PAIRS == 3 ? " half chunks" : PAIRS == 2 ? " channel pairs" : PAIRS ? " row pairs" : "", attr.numRegs,
              static_cast<int>(attr.localSizeBytes), per_sm, K::warps,
              us[0], us[1], us[2], need_4x(l), err != cudaSuccess ? cudaGetErrorString(err) : "ok", rep.differing,
              rep.max_ulps);
}

template <typename K>
void run_stage3(const layer& l, const buffers& b, const char* name, const std::vector<unsigned char>& ref) {
  if (g_only) return;
  const void* kernel = reinterpret_cast<const void*>(&entry<K>);
  const auto got = output_of<K>(kernel, l, b);
  const ulp_report rep = compare_ulps(got, ref);
  std::printf("| %s | %s | | %d warps | %.1f | %s | %lld differ, max %d ulps |\n", l.name, name, K::warps,
              time_us<K>(kernel, l, b, 30), need_4x(l), rep.differing, rep.max_ulps);
}

}  // namespace

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
      DIRECT_512
    }
    {
      const layer& l = l256;
      const auto ref = reference_of(l, b, g_ref);
      run_stage3<stage3<7, 32, 28, 32, 4>>(l, b, "stage 3 c32_t28x32 (dispatched)", ref);
      DIRECT_256
    }
    {
      const layer& l = l128;
      const auto ref = reference_of(l, b, g_ref);
      run_stage3<stage3<7, 64, 16, 56, 4>>(l, b, "stage 3 c64_t16x56 (dispatched)", ref);
      DIRECT_128
    }
    {
      const layer& l = l384;
      const auto ref = reference_of(l, b, g_ref);
      run_stage3<stage3<7, 32, 16, 32, 4>>(l, b, "stage 3 c32_t16x32 (stage 4 is dispatched here)", ref);
      DIRECT_384
    }
  }
  return 0;
}
