// Device probe: stage 4 with its store phase replaced by packed C fragments and one TMA store.
// Usage, on the GPU machine: bash ci/gpu/probes/dw_s4store.sh.
//
// Stage 4 (depthwise_mma.cuh) writes each channel's accumulators into its plane, then the block
// transposes the planes back to NHWC through registers (8 shared loads and 8 byte permutes a
// 16-byte store). Here a warp keeps the accumulators of CPW adjacent channels (channels CPW w ..
// CPW w + CPW - 1, not stage 4's strided slots), so that a lane holds, per pixel of its C fragment,
// CPW channels side by side: packed to f16 (no permutes), one STS.32 / STS.64 a pixel into a
// swizzled NHWC tile, and one TMA store writes the tile back. The load (TMA copy of the raw patch,
// transposes into planes) and the MMAs are stage 4's. Timed against stage 4 itself in the same
// call, and its output compared with stage 4's bit for bit (the same sums, rounded once).
// Findings: docs/conv-h200.md, "Stage 4 with a TMA store".
#include "cuop/kernels/common/mma_sync.cuh"
#include "cuop/kernels/conv/launch.hpp"
#include "depthwise_probe.hpp"
#include "probe_tma.hpp"

namespace {

namespace cm = cuop::kernels::common;

template <typename K>
struct s4store : K {
  using typename K::tile_t;
  using typename K::words8;
  static constexpr int pix = K::block_c_ * 2;  // bytes of a pixel in the output tile
  static constexpr int swz_mask = pix == 128 ? 7 : pix == 64 ? 3 : 1;
  static constexpr int out_bytes = K::tile_h_ * K::tile_w_ * pix;
  static constexpr int smem = K::tma_smem_bytes + 1024;  // + alignment of the swizzled tile
  static_assert(out_bytes <= K::filter_offset, "the output tile fits where the planes were");
  static_assert(K::cpw_ == 2 || K::cpw_ == 4, "2 or 4 adjacent channels a warp");
  static __device__ __forceinline__ unsigned swz(unsigned lin) { return lin ^ (((lin >> 7) & swz_mask) << 4); }

  // compute_channel's MMAs (R = 7, one 8-tap chunk), the accumulators kept.
  static __device__ __forceinline__ void channel_acc(const unsigned* planes, const unsigned short* filt, int slot,
                                                     float (&acc)[K::row_groups][K::xblocks][4]) {
    constexpr int R = 7, chunks = 1, units = K::units;
    const int lane = static_cast<int>(threadIdx.x) % 32;
    const int c_local = 8 * (slot % K::qc) + slot / K::qc;
    const unsigned* pc = reinterpret_cast<const unsigned*>(filt) + c_local * R * chunks * K::pair_words;
    const int n_col = lane / 4, k0 = 2 * (lane % 4), d = k0 - n_col;
    const unsigned plane_addr = cm::smem_addr(planes + slot * K::plane_words);
#pragma unroll
    for (int g = 0; g < K::row_groups; ++g)
#pragma unroll
      for (int xb = 0; xb < K::xblocks; ++xb)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[g][xb][e] = 0.f;
    const unsigned pair_base = plane_addr + 4u * (((lane & 15) + (lane >> 4)) * K::row_words);
#pragma unroll 1
    for (int r = 0; r + 1 < R; r += 2) {
      unsigned b0[2], b1[2];
      K::fragment(pc + r * K::pair_words, 0, d, b0);
      K::fragment(pc + (r + 1) * K::pair_words, 0, d, b1);
      const unsigned lo[2] = {b0[0], b1[0]}, hi[2] = {b0[1], b1[1]};
#pragma unroll
      for (int g = 0; g < K::row_groups; ++g) {
        const unsigned row_addr = pair_base + 4u * ((K::group_row(g) + r) * K::row_words);
        unsigned q[units][4];
#pragma unroll
        for (int k = 0; k < units; ++k) cm::ldmatrix_x4(q[k], row_addr + 16u * k);
#pragma unroll
        for (int xb = 0; xb < K::xblocks; ++xb) cm::mma_16816<__half>(acc[g][xb], q[xb], lo);
#pragma unroll
        for (int xb = 0; xb < K::xblocks; ++xb) cm::mma_16816<__half>(acc[g][xb], q[xb + 1], hi);
      }
    }
    const unsigned unit_base = plane_addr + 4u * ((lane & 15) * K::row_words) + 16u * (lane >> 4);
    unsigned b[2];
    K::fragment(pc + (R - 1) * K::pair_words, 0, d, b);
#pragma unroll
    for (int g = 0; g < K::row_groups; ++g) {
      const unsigned row_addr = unit_base + 4u * ((K::group_row(g) + R - 1) * K::row_words);
      unsigned u[units + 1][2];
#pragma unroll
      for (int k = 0; k + 1 < units; k += 2) {
        unsigned four[4];
        cm::ldmatrix_x4(four, row_addr + 16u * k);
        u[k][0] = four[0], u[k][1] = four[1], u[k + 1][0] = four[2], u[k + 1][1] = four[3];
      }
      if constexpr (units % 2) cm::ldmatrix_x2(u[units - 1], row_addr + 16u * (units - 1));
#pragma unroll
      for (int xb = 0; xb < K::xblocks; ++xb) cm::mma_1688<__half>(acc[g][xb], u[xb], b[0]);
#pragma unroll
      for (int xb = 0; xb < K::xblocks; ++xb) cm::mma_1688<__half>(acc[g][xb], u[xb + 1], b[1]);
    }
  }

  static __device__ void run(const kc::conv_args& a, const CUtensorMap* xmap, const CUtensorMap* ymap) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    unsigned char* bytes = smem_raw + ((1024u - (cm::smem_addr(smem_raw) & 1023u)) & 1023u);
    tile_t t = K::tile_of(a);
    t.vec_ok = true;
    const int tid = static_cast<int>(threadIdx.x), warp = tid / 32, lane = tid % 32;
    const unsigned bar = cm::smem_addr(bytes + K::tma_barrier_offset);
    if (tid == 0) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
      asm volatile("fence.mbarrier_init.release.cluster;\n fence.proxy.async.shared::cta;" ::: "memory");
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(K::raw_bytes) : "memory");
      asm volatile(
          "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6];"
          ::"r"(cm::smem_addr(bytes)), "l"(reinterpret_cast<unsigned long long>(xmap)), "r"(t.c0), "r"(t.iw0),
          "r"(t.ih0), "r"(t.n), "r"(bar)
          : "memory");
    }
    unsigned* pairs = reinterpret_cast<unsigned*>(bytes + K::filter_offset);
    for (int i = tid; i < K::tap_rows; i += K::block_threads) {
      unsigned short tv[8];
      K::gather_taps(a, t, i, tv);
      K::write_pairs(pairs, i, tv);
    }
    __syncthreads();
    for (unsigned done = 0; !done;)
      asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n selp.u32 %0, 1, 0, p;\n}"
                   : "=r"(done) : "r"(bar) : "memory");
    // Stage 4's transposes: the raw patch into registers, a barrier, the planes.
    unsigned* planes = reinterpret_cast<unsigned*>(bytes);
    words8 px[K::tma_per_thread][2];
#pragma unroll
    for (int u = 0; u < K::tma_per_thread; ++u) {
      const int task = tid + u * K::block_threads;
      const int q = task % K::qc, word = task / K::qc;
      const int row = word / K::row_words, col = 2 * (word % K::row_words);
      const int first = K::qc == 4 ? word & 1 : 0;
      auto chunk = [&](int e) {
        return task < K::patch_tasks && col + e < K::patch_w
                   ? *reinterpret_cast<const words8*>(bytes + (row * K::patch_w + col + e) * (K::block_c_ * 2) + 16 * q)
                   : make_uint4(0, 0, 0, 0);
      };
      const words8 one = chunk(first), other = chunk(first ^ 1);
      px[u][0] = first ? other : one;
      px[u][1] = first ? one : other;
    }
    __syncthreads();
#pragma unroll
    for (int u = 0; u < K::tma_per_thread; ++u) {
      const int task = tid + u * K::block_threads;
      if (task >= K::patch_tasks) break;
      K::write_task(planes, K::task_of(task), px[u]);
    }
    __syncthreads();

    // The warp's CPW adjacent channels, all kept.
    constexpr int cpw = K::cpw_;
    float acc[cpw][K::row_groups][K::xblocks][4];
#pragma unroll
    for (int j = 0; j < cpw; ++j) {
      const int c_local = cpw * warp + j;
      channel_acc(planes, reinterpret_cast<const unsigned short*>(pairs), (c_local % 8) * K::qc + c_local / 8, acc[j]);
    }
    __syncthreads();  // every warp is done with the planes: the output tile goes where they were
    const int gl = lane / 4, k0 = 2 * (lane % 4);
#pragma unroll
    for (int g = 0; g < K::row_groups; ++g)
#pragma unroll
      for (int xb = 0; xb < K::xblocks; ++xb)
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            unsigned wd[cpw / 2];
#pragma unroll
            for (int p = 0; p < cpw / 2; ++p) {
              const __half2 v = __floats2half2_rn(a.alpha * acc[2 * p][g][xb][2 * h + e], a.alpha * acc[2 * p + 1][g][xb][2 * h + e]);
              wd[p] = *reinterpret_cast<const unsigned*>(&v);
            }
            const int y = K::group_row(g) + gl + 8 * h, x = xb * 8 + k0 + e;
            const unsigned addr = cm::smem_addr(bytes) + swz((y * K::tile_w_ + x) * pix + 2 * cpw * warp);
            if constexpr (cpw == 2)
              asm volatile("st.shared.u32 [%0], %1;" ::"r"(addr), "r"(wd[0]) : "memory");
            else
              asm volatile("st.shared.v2.u32 [%0], {%1, %2};" ::"r"(addr), "r"(wd[0]), "r"(wd[1]) : "memory");
          }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (tid == 0) {
      asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group [%0, {%1, %2, %3, %4}], [%5];" ::"l"(
                       reinterpret_cast<unsigned long long>(ymap)),
                   "r"(t.c0), "r"(t.ow0), "r"(t.oh0), "r"(t.n), "r"(cm::smem_addr(bytes))
                   : "memory");
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
  }
};

template <typename S>
__global__ void __launch_bounds__(S::block_threads, S::min_blocks)
    s4store_entry(kc::conv_args a, const __grid_constant__ CUtensorMap xmap, const __grid_constant__ CUtensorMap ymap) {
  S::run(a, &xmap, &ymap);
}

template <typename K>
__global__ void __launch_bounds__(K::block_threads, K::min_blocks)
    stage4_entry(kc::conv_args a, const __grid_constant__ kc::tma_input in) {
  extern __shared__ __align__(16) unsigned char smem[];
  K::run_tma(a, in, smem);
}

template <int BC, int TH, int TW, int CPW>
void run_config(const layer& l, const buffers& b) {
  using K = stage3<7, BC, TH, TW, CPW>;
  using S = s4store<K>;
  kc::conv_args a{b.x, b.w, b.y, l.n, l.c, l.hw, l.hw, l.c, l.hw, l.hw, 7, 7, 1, 1, 3, 3, 1, 1, l.c, 1.f, 0.f};
  kc::depthwise_config c;
  c.r = c.s = 7;
  c.block_c = BC, c.tile_h = TH, c.tile_w = TW, c.cvecs = CPW, c.ph = c.pw = 1, c.stage = 4;
  kc::tma_input in{};
  kc::make_tma_input(c, a, in);
  CUtensorMap xm, ym;
  if (!probe::encode_nhwc(&xm, b.x, l, BC, TW + 6, TH + 6, CU_TENSOR_MAP_SWIZZLE_NONE) ||
      !probe::encode_nhwc(&ym, b.y, l, BC, TW, TH, probe::swizzle_for(S::pix)))
    return;
  const void* k4 = reinterpret_cast<const void*>(&stage4_entry<K>);
  const void* ks = reinterpret_cast<const void*>(&s4store_entry<S>);
  cudaFuncSetAttribute(k4, cudaFuncAttributeMaxDynamicSharedMemorySize, K::tma_smem_bytes);
  cudaFuncSetAttribute(ks, cudaFuncAttributeMaxDynamicSharedMemorySize, S::smem);
  int per4 = 0, pers = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per4, k4, K::block_threads, K::tma_smem_bytes);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&pers, ks, K::block_threads, S::smem);
  cudaFuncAttributes a4{}, as{};
  cudaFuncGetAttributes(&a4, k4);
  cudaFuncGetAttributes(&as, ks);
  const int tiles = ((l.hw + TH - 1) / TH) * ((l.hw + TW - 1) / TW);
  const dim3 grid(tiles, (l.c + BC - 1) / BC, l.n);
  void* p4[] = {&a, &in};
  void* ps[] = {&a, &xm, &ym};
  auto launch4 = [&] { cudaLaunchKernel(k4, grid, dim3(K::block_threads), p4, K::tma_smem_bytes, nullptr); };
  auto launchs = [&] { cudaLaunchKernel(ks, grid, dim3(K::block_threads), ps, S::smem, nullptr); };
  const std::size_t bytes = static_cast<std::size_t>(l.n) * l.hw * l.hw * l.c * 2;
  auto output = [&](auto&& launch) {
    cudaMemset(b.y, 0xff, bytes);
    launch();
    std::vector<unsigned char> got(bytes);
    cudaMemcpy(got.data(), b.y, bytes, cudaMemcpyDeviceToHost);
    return got;
  };
  const auto ref = output(launch4);
  const auto got = output(launchs);
  const cudaError_t err = cudaDeviceSynchronize();
  const float t4 = probe::median_us(launch4, b.flush, 30), ts = probe::median_us(launchs, b.flush, 30);
  std::printf("| %s | c%d_t%dx%d cv%d | %d regs, %d x %d warps | %.1f | %d regs, %d B local, %d x %d warps | %.1f | %s |\n",
              l.name, BC, TH, TW, CPW, a4.numRegs, per4, K::warps, t4, as.numRegs, static_cast<int>(as.localSizeBytes),
              pers, K::warps, ts,
              err != cudaSuccess ? cudaGetErrorString(err) : ref == got ? "same bits" : "DIFFERENT");
}

}  // namespace

int main() {
  const probe::l2_flush flush(256ull << 20);
  const buffers b = make_buffers(flush);
  randomize(b);
  std::printf("| layer | configuration | stage 4 | stage 4 us | with the TMA store | us | output |\n");
  std::printf("| --- | --- | --- | ---: | --- | ---: | --- |\n");
  for (int rep = 0; rep < 2; ++rep) {
    run_config<32, 16, 32, 4>(l384, b);
    run_config<32, 16, 32, 4>(l512, b);
    run_config<32, 16, 32, 4>(l256, b);
    run_config<32, 16, 56, 4>(l128, b);
    run_config<16, 16, 56, 4>(l128, b);
  }
  return 0;
}
