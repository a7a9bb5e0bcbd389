// Device probe of stage 5 (kernels/include/cuop/kernels/conv/depthwise_seg.cuh) on the four 7x7 f16
// NHWC layers: the library's kernel as it is, beside variants of its schedule and its shared-memory
// reads, each checked bit for bit against the library's output (and that against the f32
// reference). Usage, on the GPU machine: bash ci/gpu/probes/dw_seg.sh [FILTER [once]]: FILTER a
// substring of the rows to run; `once` times one launch (for Nsight Compute).
//
// Kernels: the library's stage 5 as it is (lib), the one of an earlier commit (head: built from
// .probe/depthwise_seg_head.cuh, the header of that commit with its namespace renamed, where the
// script finds one), and variants of the library's TMA loop (flags of seg_variant):
//   late    the second tile's copy issued once the first has landed (the library issues both at
//           the start)
//   nomma   no MMAs (the memory schedule alone)
//   noload  no copies in (the MMAs, epilogue and stores alone)
#include "cuop/kernels/conv/depthwise_seg.cuh"
#if __has_include("../../../.probe/depthwise_seg_head.cuh")
#include "../../../.probe/depthwise_seg_head.cuh"
#define HAVE_HEAD 1
#endif
#include "depthwise_probe.hpp"
#include "probe_tma.hpp"

namespace {

namespace cm = cuop::kernels::common;
enum : int { late = 1, nomma = 2, noload = 4, head = 8 };

template <int TH, int TW, int L, int F, int BC = 16>
struct seg_variant : kc::depthwise_seg<__half, 7, 7, TH, TW, L, BC> {
  using B = kc::depthwise_seg<__half, 7, 7, TH, TW, L, BC>;
  using B::box_bytes, B::buf_bytes, B::bar_offset, B::block_threads, B::pix;

  // The library's compute, with `hook` run by every lane after the loads of input row 3 are issued.
  template <typename H>
  static __device__ __forceinline__ void compute(unsigned box, int row0, int a_col, int quad, unsigned pc,
                                                 bool low, bool swap, H&& hook, float (&acc)[4][L][4]) {
    if constexpr (F & nomma) {
#pragma unroll
      for (int ch = 0; ch < 4; ++ch)
#pragma unroll
        for (int j = 0; j < L; ++j)
#pragma unroll
          for (int e = 0; e < 4; ++e) acc[ch][j][e] = 0.f;
      hook();
    } else {
      B::compute(box, row0, a_col, quad, pc, low, swap, acc);
    }
  }

  // The library's run_seg (TMA path only), with the flags' changes.
  static __device__ void run(const kc::conv_args& a, const kc::tma_input& in, void* smem_v) {
    unsigned char* smem = static_cast<unsigned char*>(smem_v);
    const unsigned base = cm::smem_addr(smem);
    if (base & 1023u) __trap();
    const int tid = static_cast<int>(threadIdx.x);
    const int groups = (a.c + B::block_c - 1) / B::block_c;
    const int total = groups * ((a.p + TH - 1) / TH) * ((a.q + TW - 1) / TW) * a.n;
    const int stride = static_cast<int>(gridDim.x);
    const unsigned bar0 = base + bar_offset;
    const auto ln = B::lane_of(base, tid);

    auto issue = [&](int u, int s) {
      const auto nt = B::tile_of(a, u, groups);
      cm::tma_load_4d(base + s * buf_bytes, in.map, nt.c0, nt.ow0 - a.pad_w, nt.oh0 - a.pad_h, nt.n, bar0 + 8 * s,
                      box_bytes);
    };
    if (tid < 2 * pix / 16)
      reinterpret_cast<uint4*>(smem + (tid / (pix / 16)) * buf_bytes + box_bytes)[tid % (pix / 16)] = make_uint4(0, 0, 0, 0);
    if (tid == 0) {
      cm::mbarrier_init(bar0);
      cm::mbarrier_init(bar0 + 8);
      cm::mbarrier_init_fence();
      if (!(F & noload) && static_cast<int>(blockIdx.x) < total) issue(static_cast<int>(blockIdx.x), 0);
    }
    __syncthreads();
    int k = 0, group = -1;
    for (int u = static_cast<int>(blockIdx.x); u < total; u += stride, ++k) {
      const int s = k & 1;
      const auto tl = B::tile_of(a, u, groups);
      if (u % groups != group) {
        group = u % groups;
        __syncthreads();
        B::build_pairs(a, tl.c0, smem, tid);
      }
      const bool next = tid == 0 && u + stride < total && !(F & noload);
      auto issue_next = [&] {
        if (next) {
          cm::tma_store_wait_read();
          issue(u + stride, s ^ 1);
        }
      };
      const bool first_late = (F & late) && k == 0;
      if (!first_late) issue_next();
      if (!(F & noload)) cm::mbarrier_wait(bar0 + 8 * s, static_cast<unsigned>((k >> 1) & 1));
      if (first_late) issue_next();
      float acc[4][L][4];
      compute(base + s * buf_bytes, ln.row0, ln.col, ln.quad, ln.pc, ln.low, ln.swap, [] {}, acc);
      __syncthreads();
      B::epilogue(a, tl, base + s * buf_bytes, ln.row0, ln.col, ln.quad, ln.g, acc);
      cm::fence_proxy_async();
      __syncthreads();
      if (tid == 0) cm::tma_store_4d(in.map_y, tl.c0, tl.ow0, tl.oh0, tl.n, base + s * buf_bytes);
    }
    if (tid == 0) cm::tma_store_wait_read();
  }
};

template <typename K>
__global__ void __launch_bounds__(K::block_threads, K::min_blocks) lib_entry(kc::conv_args a, const __grid_constant__ kc::tma_input in) {
  extern __shared__ __align__(1024) unsigned char smem[];
  K::run_seg(a, in, smem);
}
#ifdef HAVE_HEAD
template <int TH, int TW, int L>
using head_seg = cuop::kernels::conv_head::depthwise_seg<__half, 7, 7, TH, TW, L>;
template <typename K>
__global__ void __launch_bounds__(K::block_threads, K::min_blocks) head_entry(kc::conv_args a, const __grid_constant__ kc::tma_input in) {
  extern __shared__ __align__(1024) unsigned char smem[];
  K::run_seg(a, in, smem);
}
#endif
template <typename K>
__global__ void __launch_bounds__(K::block_threads, K::min_blocks) var_entry(kc::conv_args a, const __grid_constant__ kc::tma_input in) {
  extern __shared__ __align__(1024) unsigned char smem[];
  K::run(a, in, smem);
}

void* g_ref = nullptr;
const char* g_filter = nullptr;
bool g_once = false;

const char* need_4x(const layer& l) {
  return &l == &l512 ? "26.95" : &l == &l256 ? "14.95" : &l == &l128 ? "24.0" : "42.5";
}

const char* flag_name(int f) {
  static char s[64];
  s[0] = 0;
  if (!f) std::strcat(s, "library");
  if (f & head) std::strcat(s, "head ");
  if (f & late) std::strcat(s, "late ");
  if (f & nomma) std::strcat(s, "nomma ");
  if (f & noload) std::strcat(s, "noload ");
  return s;
}

// F == 0: the library's kernel; otherwise the variant. lib: the library's output of this
// configuration (empty: keep this one's), ref the f32 reference.
template <int TH, int TW, int L, int F, int BC = 16>
void run(const layer& l, const buffers& b, std::vector<unsigned char>& lib, const std::vector<unsigned char>& ref) {
  using K = seg_variant<TH, TW, L, F, BC>;
  char name[96];
  std::snprintf(name, sizeof name, "%s c%d_t%dx%d_ph%d %s", l.name, BC, TH, TW, L, flag_name(F));
  if (BC != 16 && (F & head)) return;  // the earlier kernel had 16 channels only
  if (g_filter && !std::strstr(name, g_filter)) return;
  kc::tma_input in;
  std::memset(&in, 0, sizeof in);
  CUtensorMap xm, ym;
  const auto sw = BC == 16 ? CU_TENSOR_MAP_SWIZZLE_32B : CU_TENSOR_MAP_SWIZZLE_64B;
  if (!probe::encode_nhwc(&xm, b.x, l, BC, TW + 7, TH + 6, sw) || !probe::encode_nhwc(&ym, b.y, l, BC, TW, TH, sw))
    return;
  std::memcpy(in.map, &xm, sizeof xm);
  std::memcpy(in.map_y, &ym, sizeof ym);
  in.valid = 1;
  kc::conv_args a{b.x, b.w, b.y, l.n, l.c, l.hw, l.hw, l.c, l.hw, l.hw, 7, 7, 1, 1, 3, 3, 1, 1, l.c, 1.f, 0.f};
  const void* kernel = F == 0 ? reinterpret_cast<const void*>(&lib_entry<typename K::B>)
                              : reinterpret_cast<const void*>(&var_entry<K>);
#ifdef HAVE_HEAD
  if constexpr (F == head && BC == 16) kernel = reinterpret_cast<const void*>(&head_entry<head_seg<TH, TW, L>>);
#else
  if (F == head) return;
#endif
  cudaFuncAttributes attr{};
  cudaFuncGetAttributes(&attr, kernel);
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, K::smem_bytes);
  int per_sm = 0, sms = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, K::block_threads, K::smem_bytes);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const int groups = l.c / BC, total = ((l.hw + TH - 1) / TH) * ((l.hw + TW - 1) / TW) * groups * l.n;
  const int slots = per_sm * sms, grid = std::min(total, slots >= groups ? slots / groups * groups : slots);
  void* params[] = {&a, &in};
  auto launch = [&] { cudaLaunchKernel(kernel, dim3(grid), dim3(K::block_threads), params, K::smem_bytes, nullptr); };
  const float us = probe::median_us(launch, b.flush, g_once ? 1 : 30);
  const cudaError_t err = cudaDeviceSynchronize();
  const std::size_t bytes = static_cast<std::size_t>(l.n) * l.hw * l.hw * l.c * 2;
  cudaMemset(b.y, 0xff, bytes);
  launch();
  cudaDeviceSynchronize();
  const std::vector<unsigned char> got = download(b.y, bytes);
  const char* same = "";
  if (F == 0 && BC == 16) lib = got;
  else if (!(F & (nomma | noload))) same = lib.empty() ? "no library row" : got == lib ? "same as the library" : "DIFFERS";
  const ulp_report rep = compare_ulps(got, ref);
  std::printf("| %s | %d regs, %d B local | %d x %d warps, %d blocks | %.2f | %s | %s %s, %lld differ from f32, max %d ulps |\n",
              name, attr.numRegs, static_cast<int>(attr.localSizeBytes), per_sm, K::warps, grid, us, need_4x(l),
              err != cudaSuccess ? cudaGetErrorString(err) : "ok", same, rep.differing, rep.max_ulps);
}

// The library's kernel with 16 channels a block (its output the others are compared with), the
// variants Fs of it, and the library's with 32 channels and its variants F32s.
template <int TH, int TW, int L, int... Fs>
struct runs {
  template <int... F32s>
  static void with32(const layer& l, const buffers& b, const std::vector<unsigned char>& ref) {
    std::vector<unsigned char> lib;
    run<TH, TW, L, 0>(l, b, lib, ref);
    (run<TH, TW, L, Fs>(l, b, lib, ref), ...);
    if constexpr (sizeof...(F32s) > 0) (run<TH, TW, L, F32s == 128 ? 0 : F32s, 32>(l, b, lib, ref), ...);
  }
};

// The memory schedule alone, with boxes of BC channels (16: stage 5's 32-byte pixels; 32: 64-byte
// pixels): persistent, two buffers, each tile's box in by TMA and the first TH x TW pixels of it
// out by one TMA store, as stage 5 moves them, with nothing computed. BLOCKS a multiprocessor
// (shared memory padded to hold no more).
template <int BC, int TH, int TW>
struct copy_geom {
  static constexpr int pix = 2 * BC, box_w = TW + 7, box_h = TH + 6;
  static constexpr int box_bytes = box_h * box_w * pix, buf_bytes = (box_bytes + 1023) / 1024 * 1024;
  static constexpr int smem_bytes = 2 * buf_bytes + 16;
};
template <int BC, int TH, int TW>
__global__ void __launch_bounds__(256) copy_entry(int c, int p, int q, int n, const __grid_constant__ kc::tma_input in) {
  using G = copy_geom<BC, TH, TW>;
  extern __shared__ __align__(1024) unsigned char smem[];
  const unsigned base = cm::smem_addr(smem), bar0 = base + 2 * G::buf_bytes;
  const int tid = static_cast<int>(threadIdx.x), stride = static_cast<int>(gridDim.x);
  const int groups = c / BC, tiles_w = (q + TW - 1) / TW, tiles = tiles_w * ((p + TH - 1) / TH), total = groups * tiles * n;
  auto coords = [&](int u, int& c0, int& ow0, int& oh0, int& img) {
    const int sp = u / groups % tiles;
    c0 = u % groups * BC, ow0 = sp % tiles_w * TW, oh0 = sp / tiles_w * TH, img = u / (groups * tiles);
  };
  auto issue = [&](int u, int s) {
    int c0, ow0, oh0, img;
    coords(u, c0, ow0, oh0, img);
    cm::tma_load_4d(base + s * G::buf_bytes, in.map, c0, ow0 - 3, oh0 - 3, img, bar0 + 8 * s, G::box_bytes);
  };
  if (tid == 0) {
    cm::mbarrier_init(bar0);
    cm::mbarrier_init(bar0 + 8);
    cm::mbarrier_init_fence();
    if (static_cast<int>(blockIdx.x) < total) issue(static_cast<int>(blockIdx.x), 0);
  }
  __syncthreads();
  int k = 0;
  for (int u = static_cast<int>(blockIdx.x); u < total; u += stride, ++k) {
    const int s = k & 1;
    if (tid == 0 && u + stride < total) {
      cm::tma_store_wait_read();
      issue(u + stride, s ^ 1);
    }
    cm::mbarrier_wait(bar0 + 8 * s, static_cast<unsigned>((k >> 1) & 1));
    __syncthreads();
    if (tid == 0) {
      int c0, ow0, oh0, img;
      coords(u, c0, ow0, oh0, img);
      cm::tma_store_4d(in.map_y, c0, ow0, oh0, img, base + s * G::buf_bytes);
    }
  }
  if (tid == 0) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

template <int BC, int TH, int TW>
void run_copy(const layer& l, const buffers& b, int warps, int blocks) {
  using G = copy_geom<BC, TH, TW>;
  kc::tma_input in;
  std::memset(&in, 0, sizeof in);
  CUtensorMap xm, ym;
  const auto sw = BC == 16 ? CU_TENSOR_MAP_SWIZZLE_32B : BC == 32 ? CU_TENSOR_MAP_SWIZZLE_64B : CU_TENSOR_MAP_SWIZZLE_128B;
  if (!probe::encode_nhwc(&xm, b.x, l, BC, TW + 7, TH + 6, sw) || !probe::encode_nhwc(&ym, b.y, l, BC, TW, TH, sw)) return;
  std::memcpy(in.map, &xm, sizeof xm);
  std::memcpy(in.map_y, &ym, sizeof ym);
  const void* kernel = reinterpret_cast<const void*>(&copy_entry<BC, TH, TW>);
  const int smem = std::max(G::smem_bytes, 233472 / blocks - 1024 - 1024);
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  int per_sm = 0, sms = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, 32 * warps, smem);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const int groups = l.c / BC, total = ((l.hw + TH - 1) / TH) * ((l.hw + TW - 1) / TW) * groups * l.n;
  const int slots = per_sm * sms, grid = std::min(total, slots >= groups ? slots / groups * groups : slots);
  int c = l.c, p = l.hw, q = l.hw, n = l.n;
  void* params[] = {&c, &p, &q, &n, &in};
  const float us = probe::median_us(
      [&] { cudaLaunchKernel(kernel, dim3(grid), dim3(32 * warps), params, smem, nullptr); }, b.flush, 30);
  const cudaError_t err = cudaDeviceSynchronize();
  std::printf("| %s copy schedule t%dx%d, boxes of %d channels | | %d x %d warps, %d blocks | %.2f | | %s |\n", l.name, TH, TW, BC,
              per_sm, warps, grid, us, err != cudaSuccess ? cudaGetErrorString(err) : "ok");
}

void copy_schedules(const buffers& b) {
  run_copy<16, 28, 32>(l128, b, 4, 2);
  run_copy<32, 28, 32>(l128, b, 8, 1);
  run_copy<16, 56, 16>(l128, b, 4, 2);
  run_copy<32, 56, 16>(l128, b, 8, 1);
  run_copy<16, 16, 32>(l384, b, 4, 3);
  run_copy<32, 16, 32>(l384, b, 8, 1);
  run_copy<32, 16, 32>(l384, b, 8, 2);
  run_copy<64, 16, 32>(l384, b, 8, 1);
  run_copy<16, 28, 32>(l512, b, 4, 2);
  run_copy<32, 28, 32>(l512, b, 8, 1);
  run_copy<16, 28, 32>(l256, b, 4, 2);
  run_copy<32, 28, 32>(l256, b, 8, 1);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) g_filter = argv[1];
  g_once = argc > 2 && std::strcmp(argv[2], "once") == 0;
  const probe::l2_flush flush(256ull << 20);
  const buffers b = make_buffers(flush);
  cudaMalloc(&g_ref, probe_bytes);
  randomize(b);
  std::printf("| layer, configuration, variant | registers | resident, grid | us | 4x torch needs | output |\n");
  std::printf("| --- | --- | --- | ---: | ---: | --- |\n");
  constexpr int lib = 128;  // the library's kernel, in the list of 32-channel runs
  for (int rep = 0; rep < (g_once ? 1 : 2); ++rep) {
    {
      const auto ref = reference_of(l128, b, g_ref);
      runs<28, 32, 7, head>::with32<lib, nomma, noload, late>(l128, b, ref);
      runs<56, 16, 7, head>::with32<lib>(l128, b, ref);
    }
    {
      const auto ref = reference_of(l384, b, g_ref);
      runs<16, 32, 4, head>::with32<lib, nomma, noload>(l384, b, ref);
      runs<32, 16, 4, head>::with32<lib>(l384, b, ref);
      runs<16, 64, 4>::with32<>(l384, b, ref);
      runs<32, 32, 4>::with32<>(l384, b, ref);
    }
    {
      const auto ref = reference_of(l512, b, g_ref);
      runs<28, 32, 7, head>::with32<lib>(l512, b, ref);
      runs<56, 16, 7>::with32<lib>(l512, b, ref);
    }
    {
      const auto ref = reference_of(l256, b, g_ref);
      runs<28, 32, 7, head>::with32<lib>(l256, b, ref);
    }
    if (!g_filter || std::strstr("copy", g_filter)) copy_schedules(b);
  }
  return 0;
}
