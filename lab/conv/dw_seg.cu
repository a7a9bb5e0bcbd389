// Lab probe of depthwise mma_seg (kernels/include/cuop/kernels/conv/depthwise_seg.cuh) on the four
// 7x7 f16 NHWC layers of configs/conv.yaml, 16 and 32 channels a block:
//   library    the library's kernel, planned and launched by the library (plan_launch, the tensor
//              maps of make_tma_input, launch), CUDA events around one launch after a 256 MB read
//              flush, median of 30; its output against an f32 reference (ulps);
//   head       where the build has one (CMake: CUOP_LAB_SEG_HEAD, the depthwise_seg.cuh of an
//              earlier commit, f31fe39 or later), that kernel with the same plan, its output bit
//              for bit against the library's: an A/B of a change to the kernel in one binary;
//   copy       the memory schedule alone: each tile's box in by TMA and out by one TMA store, as
//              mma_seg moves them, nothing computed (the floor of its data movement).
// Usage: dw_seg [FILTER [once]]: FILTER a substring of the rows to run; `once` times one launch
// (for Nsight Compute). The results page is docs/conv-h200.md; lab/JOURNAL.md has what it found.
#include "cuop/kernels/conv/depthwise_seg.cuh"
#include "cuop/kernels/conv/launch.hpp"
#ifdef CUOP_LAB_SEG_HEAD
#include CUOP_LAB_SEG_HEAD
#define HAVE_HEAD 1
#endif
#include <cstring>
#include <string>

#include "depthwise_layers.hpp"
#include "probe_tma.hpp"

namespace {

namespace cm = cuop::kernels::common;

// The entry the emitter writes for a mma_seg instance (tuner/ops/conv2d/conv2d_op.cpp).
template <typename K>
__global__ void __launch_bounds__(K::block_threads, K::min_blocks)
    seg_entry(kc::conv_args a, const __grid_constant__ kc::tma_input in) {
  extern __shared__ __align__(1024) unsigned char smem_seg[];
  K::run_seg(a, in, smem_seg);
}

const char* g_filter = nullptr;
bool g_once = false;

// The layer's problem and mma_seg configuration BC, TH x TW, ph L.
kc::conv_shape shape_of(const layer& l) {
  kc::conv_shape sh;
  sh.n = l.n, sh.c = l.c, sh.h = sh.w = l.hw, sh.k = l.c, sh.r = sh.s = 7, sh.pad_h = sh.pad_w = 3, sh.groups = l.c;
  return sh;
}
kc::depthwise_config config_of(int bc, int th, int tw, int ph) {
  kc::depthwise_config c;
  c.t = cuop::dtype::f16, c.r = c.s = 7, c.vec = 8, c.cvecs = 4, c.block_c = bc, c.tile_h = th, c.tile_w = tw,
  c.ph = ph, c.pw = 1, c.algo = kc::depthwise_algo::mma_seg;
  return c;
}

// One row: the kernel `kernel` under the library's plan of `c` (threads and shared memory `threads`
// and `smem` where they are not the library's), its output against the library's (`lib`, empty:
// this is the library's row, keep it) and the f32 reference.
void run_row(const char* what, const layer& l, const buffers& b, const kc::depthwise_config& c, const void* kernel,
             int threads, int smem, std::vector<unsigned char>& lib, const std::vector<unsigned char>& ref) {
  char name[96];
  std::snprintf(name, sizeof name, "%s c%d_t%dx%d_ph%d %s", l.name, c.block_c, c.tile_h, c.tile_w, c.ph, what);
  if (g_filter && !std::strstr(name, g_filter)) return;
  kc::device_limits dev;
  kc::launch_plan plan;
  const kc::conv_shape sh = shape_of(l);
  if (kc::query_limits(0, dev) != cudaSuccess) return;
  if (const std::string why = kc::plan_launch(c, sh, dev, plan); !why.empty()) {
    std::printf("| %s | not planned: %s |\n", name, why.c_str());
    return;
  }
  plan.block_x = static_cast<unsigned>(threads);
  plan.smem_bytes = static_cast<std::size_t>(smem);
  const kc::conv_args a{b.x, b.w, b.y, l.n, l.c, l.hw, l.hw, l.c, l.hw, l.hw, 7, 7, 1, 1, 3, 3, 1, 1, l.c, 1.f, 0.f};
  kc::tma_input in;
  kc::make_tma_input(c, a, in);
  if (!in.valid) {
    std::printf("| %s | no tensor maps |\n", name);
    return;
  }
  cudaFuncAttributes attr{};
  cudaFuncGetAttributes(&attr, kernel);
  auto launch = [&] { kc::launch(kernel, plan, a, in, nullptr); };
  const float us = probe::median_us(launch, b.flush, g_once ? 1 : 30);
  const cudaError_t err = cudaDeviceSynchronize();
  const std::size_t bytes = static_cast<std::size_t>(l.n) * l.hw * l.hw * l.c * 2;
  cudaMemset(b.y, 0xff, bytes);
  launch();
  cudaDeviceSynchronize();
  const std::vector<unsigned char> got = download(b.y, bytes);
  const char* same = "";
  if (lib.empty()) lib = got;
  else same = got == lib ? "same as the library" : "DIFFERS from the library";
  const ulp_report rep = compare_ulps(got, ref);
  std::printf(
      "| %s | %d regs, %d B local | %u blocks of %u threads | %.2f | %s %s, %lld differ from f32, max %d ulps |\n",
      name, attr.numRegs, static_cast<int>(attr.localSizeBytes), plan.grid_x, plan.block_x, us,
      err != cudaSuccess ? cudaGetErrorString(err) : "ok", same, rep.differing, rep.max_ulps);
}

#ifdef HAVE_HEAD
namespace head = cuop::kernels::conv_head;
#endif

// The library's mma_seg of BC channels, TH x TW, ph L on a layer, then the earlier commit's.
template <int BC, int TH, int TW, int L>
void run(const layer& l, const buffers& b, const std::vector<unsigned char>& ref) {
  using K = kc::depthwise_seg<__half, 7, 7, TH, TW, L, BC>;
  const kc::depthwise_config c = config_of(BC, TH, TW, L);
  std::vector<unsigned char> lib;
  run_row("library", l, b, c, reinterpret_cast<const void*>(&seg_entry<K>), K::block_threads, K::smem_bytes, lib, ref);
#ifdef HAVE_HEAD
  using H = head::depthwise_seg<__half, 7, 7, TH, TW, L, BC>;
  run_row("head", l, b, c, reinterpret_cast<const void*>(&seg_entry<H>), H::block_threads, H::smem_bytes, lib, ref);
#endif
}

// The memory schedule alone, with boxes of BC channels (16: mma_seg's 32-byte pixels; 32: 64-byte
// pixels): persistent, two buffers, each tile's box in by TMA and the first TH x TW pixels of it
// out by one TMA store, as mma_seg moves them, with nothing computed. BLOCKS a multiprocessor
// (shared memory padded to hold no more).
template <int BC, int TH, int TW>
struct copy_geom {
  static constexpr int pix = 2 * BC, box_w = TW + 7, box_h = TH + 6;
  static constexpr int box_bytes = box_h * box_w * pix, buf_bytes = (box_bytes + 1023) / 1024 * 1024;
  static constexpr int smem_bytes = 2 * buf_bytes + 16;
};
template <int BC, int TH, int TW>
__global__ void __launch_bounds__(256)
    copy_entry(int c, int p, int q, int n, const __grid_constant__ kc::tma_input in) {
  using G = copy_geom<BC, TH, TW>;
  extern __shared__ __align__(1024) unsigned char smem[];
  const unsigned base = cm::smem_addr(smem), bar0 = base + 2 * G::buf_bytes;
  const int tid = static_cast<int>(threadIdx.x), stride = static_cast<int>(gridDim.x);
  const int groups = c / BC, tiles_w = (q + TW - 1) / TW, tiles = tiles_w * ((p + TH - 1) / TH),
            total = groups * tiles * n;
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
  const auto sw = BC == 16   ? CU_TENSOR_MAP_SWIZZLE_32B
                  : BC == 32 ? CU_TENSOR_MAP_SWIZZLE_64B
                             : CU_TENSOR_MAP_SWIZZLE_128B;
  if (!probe::encode_nhwc(&xm, b.x, l, BC, TW + 7, TH + 6, sw) || !probe::encode_nhwc(&ym, b.y, l, BC, TW, TH, sw))
    return;
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
  std::printf("| %s copy schedule t%dx%d, boxes of %d channels | | %d x %d warps, %d blocks | %.2f | %s |\n", l.name,
              TH, TW, BC, per_sm, warps, grid, us, err != cudaSuccess ? cudaGetErrorString(err) : "ok");
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
  void* scratch = nullptr;
  cudaMalloc(&scratch, probe_bytes);
  randomize(b);
  std::printf("| layer, configuration, kernel | registers | grid | us | output |\n");
  std::printf("| --- | --- | --- | ---: | --- |\n");
  for (int rep = 0; rep < (g_once ? 1 : 2); ++rep) {
    {
      const auto ref = reference_of(l128, b, scratch);
      run<16, 28, 32, 7>(l128, b, ref);
      run<32, 28, 32, 7>(l128, b, ref);
      run<16, 56, 16, 7>(l128, b, ref);
      run<32, 56, 16, 7>(l128, b, ref);
    }
    {
      const auto ref = reference_of(l384, b, scratch);
      run<16, 16, 32, 4>(l384, b, ref);
      run<32, 16, 32, 4>(l384, b, ref);
      run<32, 32, 16, 4>(l384, b, ref);
    }
    {
      const auto ref = reference_of(l512, b, scratch);
      run<16, 28, 32, 7>(l512, b, ref);
      run<32, 28, 32, 7>(l512, b, ref);
    }
    {
      const auto ref = reference_of(l256, b, scratch);
      run<16, 28, 32, 7>(l256, b, ref);
    }
    if (!g_filter || std::strstr("copy", g_filter)) copy_schedules(b);
  }
  return 0;
}
