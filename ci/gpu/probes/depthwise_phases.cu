// Device probe of the tensor-core depthwise kernel (stage 3, kernels/include/cuop/kernels/conv/
// depthwise_mma.cuh): where its time goes. Each layer's stage 3 configuration runs whole and with
// phases left out or doubled (load = the patch's transpose into planes, mma = every warp's
// channels, store = the planes back to NHWC), timed with CUDA events after a 256 MB L2 flush,
// median of 30. Differences between variants place the time; the answers of partial variants are
// meaningless. Three variants of the MMA phase (software-pipelined; one ldmatrix.x4 per MMA; each
// MMA as two m16n8k8) run beside the winners, and the mma.sync ceiling (MMAs on register operands
// alone) is printed first. docs/conv-h200.md has the results.
// `--only NAME` runs one variant of the first layer many times (for ncu); `--winners` only the
// stage 3 rows (ci/gpu/probes/depthwise_unroll.sh); `--pingpong` and `--rowgroups` their own
// sections (the two-half block and row groups outer, below). What bounds stage 3 is probed apart,
// in depthwise_bounds.cu.
#include "depthwise_probe.hpp"

// Stage 3 whose MMA phase overlaps each (tap row, row group) step's taps and ldmatrix with the
// previous step's MMAs: two register buffers, the flattened step loop unrolled by two (one or two
// row groups, one 8-tap chunk; beta == 0 only: a probe of the MMA phase, not a kernel).
template <int R, int BLOCK_C, int TILE_H, int TILE_W, int CPW>
struct stage3p : stage3<R, BLOCK_C, TILE_H, TILE_W, CPW> {
  using K = stage3<R, BLOCK_C, TILE_H, TILE_W, CPW>;
  static constexpr int G = K::row_groups, U = K::units, XB = K::xblocks;
  static_assert((G == 1 || G == 2) && K::chunks == 1, "one or two row groups, one tap chunk");

  static __device__ __forceinline__ void compute_channel(const kc::conv_args& a, const typename K::tile_t&,
                                                         unsigned* planes, const unsigned short* filt, int slot) {
    const lane_setup<K, R> ls(planes, filt, slot);
    float acc[G][XB][4] = {};
    auto taps = [&](int r, unsigned (&b)[2]) { ls.taps(r, b); };
    auto units = [&](int r, int g, unsigned (&u)[U + 1][2]) {
      ls.template units<U>(K::group_row(g) + r, u);
    };
    auto mmas = [&](float (&ac)[XB][4], const unsigned (&u)[U + 1][2], const unsigned (&b)[2]) {
#pragma unroll
      for (int xb = 0; xb < XB; ++xb) {
        const unsigned af[4] = {u[xb][0], u[xb][1], u[xb + 1][0], u[xb + 1][1]};
        cuop::kernels::common::mma_16816<__half>(ac[xb], af, b);
      }
    };
    unsigned ua[U + 1][2], ub[U + 1][2], ba[2], bb[2];
    taps(0, ba);
    units(0, 0, ua);
    if constexpr (G == 2) {
#pragma unroll 1
      for (int r = 0; r < R; ++r) {
        units(r, 1, ub);
        bb[0] = ba[0], bb[1] = ba[1];
        mmas(acc[0], ua, ba);
        if (r + 1 < R) taps(r + 1, ba), units(r + 1, 0, ua);
        mmas(acc[1], ub, bb);
      }
    } else {
#pragma unroll 1
      for (int r = 0; r < R; r += 2) {
        if (r + 1 < R) taps(r + 1, bb), units(r + 1, 0, ub);
        mmas(acc[0], ua, ba);
        if (r + 2 < R) taps(r + 2, ba), units(r + 2, 0, ua);
        if (r + 1 < R) mmas(acc[0], ub, bb);
      }
    }
    write_tile<K>(a, planes, slot, acc);
  }
};

// Stage 3's MMA loop (tap rows, then row groups) with the loads and MMAs of one step supplied by
// STEP (beta == 0 only: probes of the MMA phase, not kernels).
template <int R, int BLOCK_C, int TILE_H, int TILE_W, int CPW, typename STEP>
struct stage3_step : stage3<R, BLOCK_C, TILE_H, TILE_W, CPW> {
  using K = stage3<R, BLOCK_C, TILE_H, TILE_W, CPW>;
  static_assert(K::chunks == 1, "one tap chunk");

  static __device__ __forceinline__ void compute_channel(const kc::conv_args& a, const typename K::tile_t&,
                                                         unsigned* planes, const unsigned short* filt, int slot) {
    const lane_setup<K, R> ls(planes, filt, slot);
    float acc[K::row_groups][K::xblocks][4] = {};
#pragma unroll 1
    for (int r = 0; r < R; ++r) {
      unsigned b[2];
      ls.taps(r, b);
#pragma unroll
      for (int g = 0; g < K::row_groups; ++g)
        STEP::template run<K>(ls, K::group_row(g) + r, b, acc[g]);
    }
    write_tile<K>(a, planes, slot, acc);
  }
};

// One ldmatrix.x4 per MMA (units xb and xb + 1), so that no register moves pair an odd column
// block's units into an aligned quad: more ldmatrix reads (4 a block instead of 2.5), fewer
// instructions.
struct quads_step {
  template <typename K, typename LS, int XB>
  static __device__ __forceinline__ void run(const LS& ls, int row, const unsigned (&b)[2], float (&acc)[XB][4]) {
    const unsigned row_addr = ls.base + 4u * (row * K::row_words);
    unsigned af[XB][4];
#pragma unroll
    for (int xb = 0; xb < XB; ++xb) cuop::kernels::common::ldmatrix_x4(af[xb], row_addr + 16u * xb);
#pragma unroll
    for (int xb = 0; xb < XB; ++xb) cuop::kernels::common::mma_16816<__half>(acc[xb], af[xb], b);
  }
};

// Each m16n8k16 split into two m16n8k8 (unit xb against taps k 0-7, unit xb + 1 against k 8-15):
// every A operand is one unit, an aligned register pair, so no register moves pair units into
// quads; twice the MMA instructions, each half the work.
struct k8_step {
  template <typename K, typename LS, int XB>
  static __device__ __forceinline__ void run(const LS& ls, int row, const unsigned (&b)[2], float (&acc)[XB][4]) {
    unsigned u[K::units + 1][2];
    ls.template units<K::units>(row, u);
#pragma unroll
    for (int xb = 0; xb < XB; ++xb) cuop::kernels::common::mma_1688<__half>(acc[xb], u[xb], b[0]);
#pragma unroll
    for (int xb = 0; xb < XB; ++xb) cuop::kernels::common::mma_1688<__half>(acc[xb], u[xb + 1], b[1]);
  }
};

template <int R, int BLOCK_C, int TILE_H, int TILE_W, int CPW>
using stage3q = stage3_step<R, BLOCK_C, TILE_H, TILE_W, CPW, quads_step>;
template <int R, int BLOCK_C, int TILE_H, int TILE_W, int CPW>
using stage3k8 = stage3_step<R, BLOCK_C, TILE_H, TILE_W, CPW, k8_step>;

// Stage 3 with the loops swapped: row groups outer, tap rows inner, so that a warp holds one row
// group's accumulators (xblocks x 4 registers) whatever the tile height, and a tall tile (a whole
// 56x56 or 64x64 image) loads no halo rows twice. Each group's taps are fetched again (one table
// word a tap row). A group's output replaces plane rows the later groups do not read, so TILE_H
// must be a multiple of 16 (no overlapping last group). beta == 0 only: a probe, not a kernel.
template <int R, int BLOCK_C, int TILE_H, int TILE_W, int CPW>
struct stage3g : stage3<R, BLOCK_C, TILE_H, TILE_W, CPW> {
  using K = stage3<R, BLOCK_C, TILE_H, TILE_W, CPW>;
  static_assert(TILE_H % 16 == 0 && K::chunks == 1, "whole row groups, one tap chunk");

  static __device__ __forceinline__ void compute_channel(const kc::conv_args& a, const typename K::tile_t&,
                                                         unsigned* planes, const unsigned short* filt, int slot) {
    const lane_setup<K, R> ls(planes, filt, slot);
    unsigned* out = K::plane(planes, slot);
#pragma unroll 1
    for (int g = 0; g < K::row_groups; ++g) {
      float acc[K::xblocks][4] = {};
#pragma unroll 1
      for (int r = 0; r < R; ++r) {
        unsigned b[2], u[K::units + 1][2];
        ls.taps(r, b);
        ls.template units<K::units>(16 * g + r, u);
#pragma unroll
        for (int xb = 0; xb < K::xblocks; ++xb) {
          const unsigned af[4] = {u[xb][0], u[xb][1], u[xb + 1][0], u[xb + 1][1]};
          cuop::kernels::common::mma_16816<__half>(acc[xb], af, b);
        }
      }
      __syncwarp();  // the group's reads are done before its rows are overwritten
      K::write_group(a.alpha, out, 16 * g, acc);
    }
  }
};

// The mma.sync ceiling: every warp issues `iters` rounds of 8 independent m16n8k16 (f16 in, f32
// accumulation) on register operands, nothing else.
__global__ void mma_ceiling(int iters, float* sink) {
  unsigned a[4] = {threadIdx.x, threadIdx.x + 1, threadIdx.x + 2, threadIdx.x + 3}, b[2] = {threadIdx.x * 3, 7};
  float acc[8][4] = {};
#pragma unroll 1
  for (int i = 0; i < iters; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) cuop::kernels::common::mma_16816<__half>(acc[j], a, b);
  float s = 0;
#pragma unroll
  for (int j = 0; j < 8; ++j) s += acc[j][0] + acc[j][1] + acc[j][2] + acc[j][3];
  if (s == 1.2345f) *sink = s;
}

// Ping-pong: one block of two halves, each half a stage 3 block of K with its own shared memory,
// persistent over the tiles (half h of block b takes tiles 2 (k gridDim + b) + h, k = 0, 1, ...).
// With ORDERED the halves' MMA phases take turns (half 0's k-th, then half 1's k-th, then half 0's
// (k + 1)-th ...; named barriers 3 and 4 pass the turn), so that one half's MMAs run while the
// other half stores and loads; without it the halves run side by side (the control).
__device__ __forceinline__ void bar_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void bar_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

template <typename K>
constexpr int pingpong_blocks = 228 * 1024 / (2 * K::smem_bytes + 2048) < 1   ? 1
                                : 228 * 1024 / (2 * K::smem_bytes + 2048) > 4 ? 4
                                                                               : 228 * 1024 / (2 * K::smem_bytes + 2048);

template <typename K, bool ORDERED>
__global__ void __launch_bounds__(2 * K::block_threads, pingpong_blocks<K>) pingpong(kc::conv_args a, int tiles, int groups,
                                                                                                 int total) {
  extern __shared__ __align__(16) unsigned char smem[];
  constexpr int T = K::block_threads;
  const int half = static_cast<int>(threadIdx.x) / T, tid = static_cast<int>(threadIdx.x) % T;
  unsigned char* mine = smem + half * K::smem_bytes;
  unsigned* planes = reinterpret_cast<unsigned*>(mine);
  unsigned short* filt = reinterpret_cast<unsigned short*>(mine + K::filter_offset);
  const int iters = (total + 2 * static_cast<int>(gridDim.x) - 1) / (2 * static_cast<int>(gridDim.x));
#pragma unroll 1
  for (int k = 0; k < iters; ++k) {
    const int tile = (k * static_cast<int>(gridDim.x) + static_cast<int>(blockIdx.x)) * 2 + half;
    const bool live = tile < total;
    const auto t = tile_at<K>(a, tile % tiles, tile / tiles % groups, tile / tiles / groups);
    if (live) K::load_patch(a, t, planes, filt, tid);
    bar_sync(1 + half, T);
    if (ORDERED) {
      if (half == 1) bar_sync(4, 2 * T);
      else if (k > 0) bar_sync(3, 2 * T);
    }
    if (live) {
#pragma unroll 1
      for (int i = 0; i < K::cpw_; ++i) K::compute_channel(a, t, planes, filt, tid / 32 * K::cpw_ + i);
    }
    if (ORDERED) {
      if (half == 0) bar_arrive(4, 2 * T);
      else if (k + 1 < iters) bar_arrive(3, 2 * T);
    }
    bar_sync(1 + half, T);
    if (live) K::store_tile(a, t, planes, tid);
    bar_sync(1 + half, T);
  }
}

// The ping-pong section (--pingpong): for a half configuration K, stage 3 alone (2 and, with its
// shared memory padded, 1 block per SM: how each phase scales with the warps an SM holds), then
// the persistent two-half block side by side and ordered, each checked bit for bit against stage 3.
template <typename K>
void run_pingpong(const layer& l, const buffers& b) {
  constexpr int pad = K::smem_bytes > 120 * 1024 ? K::smem_bytes : 120 * 1024;  // one block per SM
  auto us = [&](const void* k, int smem) { return time_us<K>(k, l, b, 30, smem); };
  const void* full = reinterpret_cast<const void*>(&entry<phases<K, load | mma | store>>);
  const void* only_mma = reinterpret_cast<const void*>(&entry<phases<K, mma>>);
  const void* only_load = reinterpret_cast<const void*>(&entry<phases<K, load>>);
  const void* only_store = reinterpret_cast<const void*>(&entry<phases<K, store>>);
  std::printf("| %s | %d | %.1f / %.1f | %.1f / %.1f | %.1f / %.1f | %.1f / %.1f |", l.name, K::smem_bytes / 1024,
              us(full, K::smem_bytes), us(full, pad), us(only_mma, K::smem_bytes), us(only_mma, pad),
              us(only_load, K::smem_bytes), us(only_load, pad), us(only_store, K::smem_bytes), us(only_store, pad));
  if (2 * K::smem_bytes > 227 * 1024) {
    std::printf(" (two halves do not fit) | |\n");
    return;
  }
  const std::size_t out_bytes = static_cast<std::size_t>(l.n) * l.hw * l.hw * l.c * 2;
  std::vector<unsigned char> ref(out_bytes), got(out_bytes);
  time_us<K>(full, l, b, 1);
  cudaMemcpy(ref.data(), b.y, out_bytes, cudaMemcpyDeviceToHost);
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const int tiles_w = (l.hw + K::tile_w_ - 1) / K::tile_w_, tiles = ((l.hw + K::tile_h_ - 1) / K::tile_h_) * tiles_w;
  const int groups = (l.c + K::block_c_ - 1) / K::block_c_, total = tiles * groups * l.n;
  for (const void* kernel : {reinterpret_cast<const void*>(&pingpong<K, false>),
                             reinterpret_cast<const void*>(&pingpong<K, true>)}) {
    const int smem = 2 * K::smem_bytes;
    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, 2 * K::block_threads, smem);
    kc::conv_args a{b.x, b.w, b.y, l.n, l.c, l.hw, l.hw, l.c, l.hw, l.hw, 7, 7, 1, 1, 3, 3, 1, 1, l.c, 1.f, 0.f};
    int ints[3] = {tiles, groups, total};
    void* params[] = {&a, &ints[0], &ints[1], &ints[2]};
    const dim3 grid(sms * (per_sm > 0 ? per_sm : 1));
    cudaMemset(b.y, 0, out_bytes);
    cudaLaunchKernel(kernel, grid, dim3(2 * K::block_threads), params, smem, nullptr);
    cudaMemcpy(got.data(), b.y, out_bytes, cudaMemcpyDeviceToHost);
    const bool same = std::memcmp(ref.data(), got.data(), out_bytes) == 0;
    const float us = probe::median_us(
        [&] { cudaLaunchKernel(kernel, grid, dim3(2 * K::block_threads), params, smem, nullptr); }, b.flush, 30);
    const cudaError_t err = cudaGetLastError();
    std::printf(" %.1f%s (%d/SM) |", us, err != cudaSuccess ? " ERROR" : same ? "" : " WRONG", per_sm);
  }
  std::printf("\n");
}


// The row-group section (--rowgroups): stage 3 against stage3g on whole-image tiles, each checked
// bit for bit against the first configuration of its layer; whole kernel and MMA phase, us.
template <typename K>
void run_whole(const layer& l, const buffers& b, const char* name, std::vector<unsigned char>* ref) {
  const void* full = reinterpret_cast<const void*>(&entry<phases<K, load | mma | store>>);
  const void* only_mma = reinterpret_cast<const void*>(&entry<phases<K, mma>>);
  const char* check = check_output<K>(full, l, b, ref);
  int per_sm = 0;
  cudaFuncSetAttribute(full, cudaFuncAttributeMaxDynamicSharedMemorySize, K::smem_bytes);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, full, K::block_threads, K::smem_bytes);
  std::printf("| %s | %s | %d x %d warps | %d | %.1f | %.1f | %s |\n", l.name, name, per_sm, K::warps,
              K::smem_bytes / 1024, time_us<K>(full, l, b, 30), time_us<K>(only_mma, l, b, 30), check);
}

int main(int argc, char** argv) {
  const char* only = argc > 2 && std::strcmp(argv[1], "--only") == 0 ? argv[2] : nullptr;
  const bool ping = argc > 1 && std::strcmp(argv[1], "--pingpong") == 0;
  const bool rowgroups = argc > 1 && std::strcmp(argv[1], "--rowgroups") == 0;
  const bool winners = argc > 1 && std::strcmp(argv[1], "--winners") == 0;  // stage 3 rows only
  const probe::l2_flush flush(256ull << 20);
  const buffers b = make_buffers(flush);
  if (rowgroups) {
    randomize(b);
    std::printf("| layer | configuration | blocks per SM | KB | whole us | MMA phase us | output |\n");
    std::printf("| --- | --- | --- | ---: | ---: | ---: | --- |\n");
    std::vector<unsigned char> ref;
    const layer l56{"32x56x56x128", 32, 56, 128};
    run_whole<stage3<7, 64, 16, 56, 4>>(l56, b, "stage 3 c64 t16x56 cpw4", &ref);
    run_whole<stage3<7, 32, 28, 56, 4>>(l56, b, "stage 3 c32 t28x56 cpw4", &ref);
    run_whole<stage3g<7, 8, 64, 56, 1>>(l56, b, "rows outer c8 t64x56 cpw1", &ref);
    run_whole<stage3g<7, 8, 64, 56, 2>>(l56, b, "rows outer c8 t64x56 cpw2", &ref);
    run_whole<stage3g<7, 16, 64, 56, 1>>(l56, b, "rows outer c16 t64x56 cpw1", &ref);
    run_whole<stage3g<7, 16, 64, 56, 2>>(l56, b, "rows outer c16 t64x56 cpw2", &ref);
    run_whole<stage3g<7, 16, 32, 56, 2>>(l56, b, "rows outer c16 t32x56 cpw2", &ref);
    run_whole<stage3g<7, 32, 32, 56, 4>>(l56, b, "rows outer c32 t32x56 cpw4", &ref);
    ref.clear();
    const layer l64{"16x64x64x384", 16, 64, 384};
    run_whole<stage3<7, 64, 16, 64, 4>>(l64, b, "stage 3 c64 t16x64 cpw4", &ref);
    run_whole<stage3<7, 32, 16, 32, 4>>(l64, b, "stage 3 c32 t16x32 cpw4", &ref);
    run_whole<stage3g<7, 8, 64, 64, 1>>(l64, b, "rows outer c8 t64x64 cpw1", &ref);
    run_whole<stage3g<7, 8, 64, 64, 2>>(l64, b, "rows outer c8 t64x64 cpw2", &ref);
    run_whole<stage3g<7, 16, 64, 64, 1>>(l64, b, "rows outer c16 t64x64 cpw1", &ref);
    run_whole<stage3g<7, 16, 64, 64, 2>>(l64, b, "rows outer c16 t64x64 cpw2", &ref);
    run_whole<stage3g<7, 16, 32, 64, 2>>(l64, b, "rows outer c16 t32x64 cpw2", &ref);
    run_whole<stage3g<7, 32, 32, 32, 4>>(l64, b, "rows outer c32 t32x32 cpw4", &ref);
    ref.clear();
    const layer l28{"32x28x28x512", 32, 28, 512};
    run_whole<stage3<7, 32, 28, 32, 4>>(l28, b, "stage 3 c32 t28x32 cpw4", &ref);
    run_whole<stage3g<7, 32, 32, 32, 4>>(l28, b, "rows outer c32 t32x32 cpw4", &ref);
    run_whole<stage3g<7, 16, 32, 32, 2>>(l28, b, "rows outer c16 t32x32 cpw2", &ref);
    run_whole<stage3g<7, 8, 32, 32, 1>>(l28, b, "rows outer c8 t32x32 cpw1", &ref);
    return 0;
  }
  if (ping) {
    randomize(b);
    std::printf("| layer, half configuration | KB | whole: own occupancy / 1 block per SM | mma | load | store | two halves | ordered |\n");
    std::printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    run_pingpong<stage3<7, 32, 28, 32, 4>>({"32x28x28x512 c32 t28x32", 32, 28, 512}, b);
    run_pingpong<stage3<7, 16, 28, 32, 4>>({"32x28x28x512 c16 t28x32", 32, 28, 512}, b);
    run_pingpong<stage3<7, 32, 28, 32, 4>>({"32x28x28x256 c32 t28x32", 32, 28, 256}, b);
    run_pingpong<stage3<7, 32, 16, 56, 4>>({"32x56x56x128 c32 t16x56", 32, 56, 128}, b);
    run_pingpong<stage3<7, 64, 16, 56, 4>>({"32x56x56x128 c64 t16x56", 32, 56, 128}, b);
    run_pingpong<stage3<7, 32, 16, 64, 4>>({"16x64x64x384 c32 t16x64", 16, 64, 384}, b);
    run_pingpong<stage3<7, 64, 16, 64, 4>>({"16x64x64x384 c64 t16x64", 16, 64, 384}, b);
    return 0;
  }
  {
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    float* sink = nullptr;
    cudaMalloc(&sink, 4);
    for (int warps_per_sm : {8, 16, 32}) {
      const int iters = 4096, blocks = sms * warps_per_sm / 8;
      cudaEvent_t e0, e1;
      cudaEventCreate(&e0);
      cudaEventCreate(&e1);
      mma_ceiling<<<blocks, 256>>>(iters, sink);
      cudaEventRecord(e0);
      mma_ceiling<<<blocks, 256>>>(iters, sink);
      cudaEventRecord(e1);
      cudaEventSynchronize(e1);
      float ms = 0;
      cudaEventElapsedTime(&ms, e0, e1);
      const double flop = 2.0 * 16 * 8 * 16 * 8 * iters * blocks * 8.0;
      std::printf("mma.sync m16n8k16 f32 ceiling, %d warps per SM: %.0f TFLOP/s (%.2f MMAs per SM per cycle at 1.98 GHz)\n",
                  warps_per_sm, flop / ms / 1e9, flop / 4096.0 / (ms * 1e-3) / sms / 1.98e9);
    }
  }
  std::printf("| layer (f16 nhwc 7x7), stage 3 winner | full | load+store | load+mma | mma | load | store | load+2mma+store |\n");
  std::printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  run_layer<stage3<7, 32, 28, 32, 4>>({"32x28x28x512 c32 t28x32 cv4", 32, 28, 512}, b, only);
  if (only) return 0;
  if (winners) {
    run_layer<stage3<7, 64, 28, 32, 4>>({"32x28x28x256 c64 t28x32 cv4", 32, 28, 256}, b, nullptr);
    run_layer<stage3<7, 32, 28, 32, 4>>({"32x28x28x256 c32 t28x32 cv4", 32, 28, 256}, b, nullptr);
    run_layer<stage3<7, 64, 16, 56, 4>>({"32x56x56x128 c64 t16x56 cv4", 32, 56, 128}, b, nullptr);
    run_layer<stage3<7, 64, 16, 64, 4>>({"16x64x64x384 c64 t16x64 cv4", 16, 64, 384}, b, nullptr);
    run_layer<stage3<7, 32, 16, 32, 4>>({"16x64x64x384 c32 t16x32 cv4", 16, 64, 384}, b, nullptr);
    return 0;
  }
  run_layer<stage3p<7, 32, 28, 32, 4>>({"32x28x28x512 c32 t28x32 cv4 pipelined", 32, 28, 512}, b, only);
  run_layer<stage3q<7, 32, 28, 32, 4>>({"32x28x28x512 c32 t28x32 cv4 quads", 32, 28, 512}, b, only);
  run_layer<stage3k8<7, 32, 28, 32, 4>>({"32x28x28x512 c32 t28x32 cv4 k8 pairs", 32, 28, 512}, b, only);
  run_layer<stage3<7, 64, 28, 32, 4>>({"32x28x28x256 c64 t28x32 cv4", 32, 28, 256}, b, only);
  run_layer<stage3p<7, 64, 28, 32, 4>>({"32x28x28x256 c64 t28x32 cv4 pipelined", 32, 28, 256}, b, only);
  run_layer<stage3q<7, 64, 28, 32, 4>>({"32x28x28x256 c64 t28x32 cv4 quads", 32, 28, 256}, b, only);
  run_layer<stage3k8<7, 64, 28, 32, 4>>({"32x28x28x256 c64 t28x32 cv4 k8 pairs", 32, 28, 256}, b, only);
  run_layer<stage3<7, 64, 16, 56, 4>>({"32x56x56x128 c64 t16x56 cv4", 32, 56, 128}, b, only);
  run_layer<stage3p<7, 64, 16, 56, 4>>({"32x56x56x128 c64 t16x56 cv4 pipelined", 32, 56, 128}, b, only);
  run_layer<stage3q<7, 64, 16, 56, 4>>({"32x56x56x128 c64 t16x56 cv4 quads", 32, 56, 128}, b, only);
  run_layer<stage3k8<7, 64, 16, 56, 4>>({"32x56x56x128 c64 t16x56 cv4 k8 pairs", 32, 56, 128}, b, only);
  run_layer<stage3<7, 32, 16, 32, 4>>({"16x64x64x384 c32 t16x32 cv4", 16, 64, 384}, b, only);
  run_layer<stage3p<7, 32, 16, 32, 4>>({"16x64x64x384 c32 t16x32 cv4 pipelined", 16, 64, 384}, b, only);
  run_layer<stage3q<7, 32, 16, 32, 4>>({"16x64x64x384 c32 t16x32 cv4 quads", 16, 64, 384}, b, only);
  run_layer<stage3k8<7, 32, 16, 32, 4>>({"16x64x64x384 c32 t16x32 cv4 k8 pairs", 16, 64, 384}, b, only);
  return 0;
}
