// Device probe: stage 3's MMA phase on Hopper's warpgroup MMAs (wgmma.mma_async m64n8k16, A from
// registers, B from shared memory) instead of mma.sync m16n8k16.
//
// Why: with six of every seven ldmatrix reads removed, stage 3's MMA phase on 32x28x28x512 still
// took 14.3 us ("What bounds stage 3", docs/conv-h200.md): its 0.92 M m16n8k16 (3.76 GFLOP) ran at
// 263 TFLOP/s, a quarter of the H200's dense f16 peak. mma.sync is reported to reach about half of
// that peak on Hopper; wgmma is the full-rate path, and asynchronous.
//
// How: four warps (a warpgroup) take one channel together. Warp w computes row group w % G and
// XW adjacent column blocks from (w / G) x XW (M = 64: the four warps' 16 rows each; with A in
// registers the rows need not be adjacent). Per tap-row pair, a warp loads its XW + 1 units as
// stage 3 does (ldmatrix.x4: k 0-7 at tap row r, k 8-15 at r + 1) and the warpgroup issues, per
// unit, one m64n8k16 against the pair's "low" Toeplitz matrix (the unit's own block) and one
// against its "high" one (the previous block). B for a (channel, pair) is [hi | lo], 16 rows of
// n by 16 k, written by the warpgroup's 128 threads into a double buffer before the channel starts
// (16 bytes each), made visible to the async proxy, then a named barrier. An odd R's last tap row
// is a pair whose second row has zero taps and zero A.
//
// Each layer's configuration runs as stage 3 and as this kernel: the whole kernel and its MMA
// phase alone (CUDA events after a 256 MB L2 flush, median of 30, two rounds), and the outputs
// compared (ulps). Usage: ci/gpu/probes/depthwise_wgmma.sh.
#include "depthwise_probe.hpp"

namespace wg {

__device__ __forceinline__ void fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
// Keeps the compiler from moving accumulator reads or writes across the asynchronous MMAs.
__device__ __forceinline__ void pin(float (&d)[4]) {
  asm volatile("" : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])::"memory");
}
// A shared-memory matrix descriptor, no swizzle: 8 x 16-byte core matrices, 128 bytes apart along
// K (and along N, where a 64x8 MMA has only one).
__device__ __forceinline__ unsigned long long desc(unsigned addr) {
  return static_cast<unsigned long long>((addr & 0x3FFFF) >> 4) | (static_cast<unsigned long long>(128 >> 4) << 16) |
         (static_cast<unsigned long long>(128 >> 4) << 32);
}
__device__ __forceinline__ void mma(float (&d)[4], const unsigned (&a)[4], unsigned long long b) {
  asm volatile(
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, 1, 1, 1, 0;\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b));
}
// Named barrier 1 + wgi of a warpgroup's 128 threads (immediate ids: ptxas reserves every barrier
// for a register id).
__device__ __forceinline__ void bar(int wgi) {
  switch (wgi) {
    case 0: asm volatile("bar.sync 1, 128;\n" ::: "memory"); break;
    case 1: asm volatile("bar.sync 2, 128;\n" ::: "memory"); break;
    case 2: asm volatile("bar.sync 3, 128;\n" ::: "memory"); break;
    default: asm volatile("bar.sync 4, 128;\n" ::: "memory"); break;
  }
}

}  // namespace wg

template <int R, int BC, int TH, int TW, int CPW, int MODE = load | mma | store>
struct stage3_wg : stage3<R, BC, TH, TW, CPW> {
  using K = stage3<R, BC, TH, TW, CPW>;
  static constexpr int G = K::row_groups, X = K::xblocks;
  static constexpr int wgs = K::warps / 4;
  static_assert(K::warps % 4 == 0 && 4 % G == 0 && X * G % 4 == 0 && K::chunks == 1, "probe's shapes");
  static constexpr int XW = X * G / 4;          // column blocks of a warp
  static constexpr int pairs = (R + 1) / 2;     // tap-row pairs, an odd R's last one half empty
  static constexpr int b_bytes = pairs * 512;   // a channel's Toeplitz matrices
  static constexpr int b_offset = (K::smem_bytes + 127) / 128 * 128;
  static constexpr int smem_bytes = b_offset + wgs * 2 * b_bytes;
  static constexpr int min_blocks = K::blocks_for(smem_bytes);

  // The warpgroup's thread t writes row n, k half kb of pair p: taps s = i + 8 - n, i = 0..7, of
  // tap row 2p + kb (n < 8: the previous block's "high" taps; n >= 8: the unit's own "low" ones).
  static __device__ void build_b(const kc::conv_args& a, const typename K::tile_t& t, unsigned char* buf, int slot,
                                 int tw) {
    const int c_local = 8 * (slot % K::qc) + slot / K::qc;
    const int p = tw >> 5, n = (tw >> 1) & 15, kb = tw & 1, r = 2 * p + kb;
    const unsigned short* w = static_cast<const unsigned short*>(a.w) + static_cast<long long>(t.c0 + c_local) * R * R;
    const bool live = r < R && t.c0 + c_local < a.c;
    unsigned v[4];
#pragma unroll
    for (int h = 0; h < 4; ++h) {
      unsigned pair = 0;
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int s = 2 * h + e + 8 - n;
        const unsigned tap = live && s >= 0 && s < R ? w[r * R + s] : 0u;
        pair |= tap << (16 * e);
      }
      v[h] = pair;
    }
    *reinterpret_cast<uint4*>(buf + p * 512 + (n >> 3) * 256 + kb * 128 + (n & 7) * 16) = make_uint4(v[0], v[1], v[2], v[3]);
  }

  static __device__ void compute(const kc::conv_args& a, const typename K::tile_t& t, unsigned* planes,
                                 unsigned char* bbase) {
    const int tid = static_cast<int>(threadIdx.x), lane = tid % 32, warp = tid / 32;
    const int wgi = warp / 4, w = warp % 4, tw = tid % 128;
    const int g = w % G, b0 = (w / G) * XW;
    unsigned char* bufs = bbase + wgi * 2 * b_bytes;
    constexpr int per_wg = BC / wgs;
    build_b(a, t, bufs, wgi, tw);
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    wg::bar(wgi);
#pragma unroll 1
    for (int i = 0; i < per_wg; ++i) {
      const int slot = wgi + i * wgs;
      unsigned char* buf = bufs + (i & 1) * b_bytes;
      const unsigned b_addr = cuop::kernels::common::smem_addr(buf);
      const unsigned plane_addr = cuop::kernels::common::smem_addr(K::plane(planes, slot));
      const unsigned pair_base =
          plane_addr + 4u * ((K::group_row(g) + (lane & 15) + (lane >> 4)) * K::row_words) + 16u * b0;
      float acc[XW][4];
#pragma unroll
      for (int j = 0; j < XW; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[j][e] = 0.f;
      unsigned av[2][XW + 1][4];
#pragma unroll
      for (int p = 0; p < pairs; ++p) {
        if (p >= 2) wg::wait<1>();
        unsigned(&q)[XW + 1][4] = av[p & 1];
        const unsigned row_addr = pair_base + 4u * (2 * p * K::row_words);
        if (2 * p + 1 < R) {
#pragma unroll
          for (int j = 0; j <= XW; ++j) cuop::kernels::common::ldmatrix_x4(q[j], row_addr + 16u * j);
        } else {  // the last tap row alone: lanes 0-15 address rows 0-15 at r; k 8-15 are zero
          const unsigned one_addr = plane_addr + 4u * ((K::group_row(g) + 2 * p + (lane & 15)) * K::row_words) + 16u * b0;
#pragma unroll
          for (int j = 0; j <= XW; ++j) {
            unsigned two[2];
            cuop::kernels::common::ldmatrix_x2(two, one_addr + 16u * j);
            q[j][0] = two[0], q[j][1] = two[1], q[j][2] = 0u, q[j][3] = 0u;
          }
        }
#pragma unroll
        for (int j = 0; j < XW; ++j) wg::pin(acc[j]);
        wg::fence();
        const unsigned long long hi = wg::desc(b_addr + p * 512), lo = wg::desc(b_addr + p * 512 + 256);
#pragma unroll
        for (int j = 0; j <= XW; ++j) {
          if (j < XW) wg::mma(acc[j], q[j], lo);
          if (j >= 1) wg::mma(acc[j - 1], q[j], hi);
        }
        wg::commit();
#pragma unroll
        for (int j = 0; j < XW; ++j) wg::pin(acc[j]);
      }
      if (i + 1 < per_wg) {  // the next channel's matrices into the other buffer, under this one's MMAs
        build_b(a, t, bufs + ((i + 1) & 1) * b_bytes, wgi + (i + 1) * wgs, tw);
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
      }
      wg::wait<0>();
#pragma unroll
      for (int j = 0; j < XW; ++j) wg::pin(acc[j]);
      wg::bar(wgi);  // every warp is done with this plane (and the next matrices are written)
      unsigned* out = K::plane(planes, slot);
      const int n_col = lane / 4, k0 = 2 * (lane % 4), row0 = K::group_row(g);
#pragma unroll
      for (int j = 0; j < XW; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h)
          out[(row0 + n_col + 8 * h) * K::row_words + (b0 + j) * 4 + k0 / 2] =
              cuop::kernels::common::elem<__half>::pack2(a.alpha * acc[j][2 * h], a.alpha * acc[j][2 * h + 1]);
    }
  }

  static __device__ void run(const kc::conv_args& a, void* smem) {
    unsigned* planes = static_cast<unsigned*>(smem);
    const auto t = tile_at<K>(a, static_cast<int>(blockIdx.x), static_cast<int>(blockIdx.y), static_cast<int>(blockIdx.z));
    unsigned short* filt = reinterpret_cast<unsigned short*>(static_cast<unsigned char*>(smem) + K::filter_offset);
    const int tid = static_cast<int>(threadIdx.x);
    if constexpr (MODE & load) K::load_patch(a, t, planes, filt, tid);
    __syncthreads();
    if constexpr (MODE & mma) compute(a, t, planes, static_cast<unsigned char*>(smem) + b_offset);
    __syncthreads();
    if constexpr (MODE & store) K::store_tile(a, t, planes, tid);
  }
};

template <int R, int BC, int TH, int TW, int CPW>
void run_config(const layer& l, const buffers& b, const char* config) {
  using S3 = stage3<R, BC, TH, TW, CPW>;
  using WF = stage3_wg<R, BC, TH, TW, CPW>;
  using WM = stage3_wg<R, BC, TH, TW, CPW, mma>;
  const void* s3_full = reinterpret_cast<const void*>(&entry<phases<S3, load | mma | store>>);
  const void* s3_mma = reinterpret_cast<const void*>(&entry<phases<S3, mma>>);
  const void* wg_full = reinterpret_cast<const void*>(&entry<WF>);
  const void* wg_mma = reinterpret_cast<const void*>(&entry<WM>);
  float t[2][4];
  for (auto& round : t) {
    round[0] = time_us<S3>(s3_full, l, b, 30);
    round[1] = time_us<WF>(wg_full, l, b, 30);
    round[2] = time_us<S3>(s3_mma, l, b, 30);
    round[3] = time_us<WM>(wg_mma, l, b, 30);
  }
  const ulp_report rep = compare_ulps(output_of<S3>(s3_full, l, b), output_of<WF>(wg_full, l, b));
  std::printf("| %s | %s | %d / %d (%d KB) | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f | %d ulps, %.2g, %lld differ |\n",
              l.name, config, S3::min_blocks, WF::min_blocks, WF::smem_bytes / 1024, t[0][0], t[1][0], t[0][1], t[1][1], t[0][2], t[1][2],
              t[0][3], t[1][3], rep.max_ulps, rep.max_abs, rep.differing);
  std::fflush(stdout);
}

int main() {
  const probe::l2_flush flush(256ull << 20);
  const buffers b = make_buffers(flush);
  randomize(b);
  std::printf("| layer (f16 NHWC 7x7) | configuration | blocks per SM (mma.sync / wgmma) | stage 3 whole us, 2 rounds | "
              "wgmma whole us | stage 3 MMA phase us | wgmma MMA phase us | outputs: largest difference, elements differing |\n");
  std::printf("| --- | --- | --- | ---: | ---: | ---: | ---: | --- |\n");
  run_config<7, 32, 28, 32, 4>(l512, b, "c32_t28x32 cv4");
  run_config<7, 32, 28, 32, 4>(l256, b, "c32_t28x32 cv4");
  run_config<7, 64, 28, 32, 8>(l512, b, "c64_t28x32 cv8");
  run_config<7, 32, 16, 32, 4>(l512, b, "c32_t16x32 cv4");
  run_config<7, 64, 16, 64, 4>(l128, b, "c64_t16x64 cv4");
  run_config<7, 32, 16, 64, 4>(l128, b, "c32_t16x64 cv4");
  run_config<7, 32, 32, 32, 4>(l128, b, "c32_t32x32 cv4");
  run_config<7, 32, 16, 32, 4>(l384, b, "c32_t16x32 cv4");
  run_config<7, 64, 16, 64, 4>(l384, b, "c64_t16x64 cv4");
  run_config<7, 32, 32, 32, 4>(l384, b, "c32_t32x32 cv4");
  return 0;
}
