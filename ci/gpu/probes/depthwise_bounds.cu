// Device probe of what bounds the tensor-core depthwise kernel (stage 3): each flag a section,
// docs/conv-h200.md ("What bounds stage 3", "TMA copies under the MMA phase", "Stage 4") has the
// results.
// `--occupancy` stage 3 at a chosen minimum of blocks per SM (`--occupancy ncu`: three launches
// of its MMA phase at 16, 24 and 32 warps per SM, for Nsight Compute); `--halfloads` fewer
// ldmatrix reads as a timing bound (wrong answers by design); `--bulk` TMA copies under the MMA
// phase; `--tma` stage 3 fed by TMA three ways; `--tma-sweep` the one-box kind (now the library's
// stage 4) across configurations. Links the driver library for cuTensorMapEncodeTiled.
#include <cuda.h>

#include "depthwise_probe.hpp"

// Stage 3 with fewer ldmatrix sets a channel, the other steps reusing units already loaded: WRONG
// answers, a timing probe of how far the MMA phase and the whole kernel follow its shared-memory
// reads (--halfloads). ONCE false: 8 of every 14 sets, as a row interleave of 2 would load (two row
// groups: group 1 loads at tap row 0 only; one row group: loads at even tap rows). ONCE true: one
// set per row group, at tap row 0 (1 in 7).
template <int R, int BLOCK_C, int TILE_H, int TILE_W, int CPW, bool ONCE>
struct stage3h : stage3<R, BLOCK_C, TILE_H, TILE_W, CPW> {
  using K = stage3<R, BLOCK_C, TILE_H, TILE_W, CPW>;
  static constexpr int G = K::row_groups, U = K::units, XB = K::xblocks;
  static_assert(G <= 2 && K::chunks == 1, "one or two row groups, one tap chunk");

  static __device__ __forceinline__ void compute_channel(const kc::conv_args& a, const typename K::tile_t&,
                                                         unsigned* planes, const unsigned short* filt, int slot) {
    const lane_setup<K, R> ls(planes, filt, slot);
    float acc[G][XB][4] = {};
    unsigned u[G][U + 1][2];
#pragma unroll 1
    for (int r = 0; r < R; ++r) {
      unsigned b[2];
      ls.taps(r, b);
#pragma unroll
      for (int g = 0; g < G; ++g)
        if (ONCE ? r == 0 : G == 2 ? g == 0 || r == 0 : r % 2 == 0) ls.template units<U>(K::group_row(g) + r, u[g]);
#pragma unroll
      for (int g = 0; g < G; ++g)
#pragma unroll
        for (int xb = 0; xb < XB; ++xb) {
          const unsigned af[4] = {u[g][xb][0], u[g][xb][1], u[g][xb + 1][0], u[g][xb + 1][1]};
          cuop::kernels::common::mma_16816<__half>(acc[g][xb], af, b);
        }
    }
    write_tile<K>(a, planes, slot, acc);
  }
};

// The occupancy section (--occupancy): stage 3 configurations compiled with a chosen minimum of
// blocks per SM in __launch_bounds__ (the library derives it from shared memory alone, so a
// two-warps-a-channel block that fits four times gets 64 registers and spills). Whole kernel, MMA
// and load phases, us, each output checked bit for bit against the first configuration of its layer.
template <typename K, int MB>
__global__ void __launch_bounds__(K::block_threads, MB) entry_mb(kc::conv_args a) {
  extern __shared__ __align__(16) unsigned char smem[];
  K::run(a, smem);
}

template <typename K, int MB>
void run_occupancy(const layer& l, const buffers& b, const char* name, std::vector<unsigned char>* ref) {
  const void* full = reinterpret_cast<const void*>(&entry_mb<phases<K, load | mma | store>, MB>);
  const void* only_mma = reinterpret_cast<const void*>(&entry_mb<phases<K, mma>, MB>);
  const void* only_load = reinterpret_cast<const void*>(&entry_mb<phases<K, load>, MB>);
  const char* check = check_output<K>(full, l, b, ref);
  int per_sm = 0;
  cudaFuncAttributes fa{};
  cudaFuncGetAttributes(&fa, full);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, full, K::block_threads, K::smem_bytes);
  std::printf("| %s | %s | %d | %d x %d warps | %d / %d | %.1f | %.1f | %.1f | %s |\n", l.name, name, MB, per_sm,
              K::warps, fa.numRegs, static_cast<int>(fa.localSizeBytes), time_us<K>(full, l, b, 30),
              time_us<K>(only_mma, l, b, 30), time_us<K>(only_load, l, b, 30), check);
}

// The bulk-copy section (--bulk): can TMA bulk copies of a tile's raw input run under stage 3's
// MMA phase without slowing it? A block of stage 3 (K) with a staging ring after its shared memory
// (16 KiB, less where a block fills an SM): with BULK, its threads first issue cp.async.bulk copies
// of the tile's in-image pixels (the block's QC 16-byte chunks of each, one copy a pixel) into the ring, completed
// on one mbarrier, and wait for them at the end; with MMA, its warps run the MMA phase (on planes
// never loaded) meanwhile. The copied bytes are thrown away: a timing probe of the overlap, the
// first half of a TMA-fed schedule (the transposes out of the raw tile are not in it).
// The TMA kernels below declare their dynamic shared memory 128-byte aligned, as tensor copies
// want it; nvcc warns that the library's softmax header declares it with 16 (#1886). The ring
// kind's copies ran without a fault and with stage 3's outputs, bit for bit.
// Where the TMA kernels' own shared memory starts: after stage 3's, 128-byte aligned.
template <typename K>
constexpr int staged_offset = (K::smem_bytes + 127) / 128 * 128;
// The ring: 16 KiB, or what an SM's 227 KiB leave a block that fills it alone.
template <typename K>
constexpr int bulk_ring = staged_offset<K> + 16 * 1024 + 16 <= 227 * 1024
                              ? 16 * 1024
                              : (227 * 1024 - 16 - staged_offset<K>) / 1024 * 1024;

template <typename K, bool MMA, bool BULK>
__global__ void __launch_bounds__(K::block_threads, K::min_blocks) mma_bulk(kc::conv_args a) {
  extern __shared__ __align__(128) unsigned char smem[];
  unsigned* planes = reinterpret_cast<unsigned*>(smem);
  unsigned char* ring = smem + staged_offset<K>;
  unsigned long long* bar = reinterpret_cast<unsigned long long*>(ring + bulk_ring<K>);
  const auto t = tile_at<K>(a, static_cast<int>(blockIdx.x), static_cast<int>(blockIdx.y), static_cast<int>(blockIdx.z));
  const int tid = static_cast<int>(threadIdx.x);
  constexpr int pixel_bytes = K::block_c_ * 2;
  const int rows = K::patch_h, cols = K::patch_w;
  if constexpr (BULK) {
    // The in-image pixels of the patch: its rows and columns inside the image.
    auto inside = [](int first, int n, int size) {
      const int lo = first > 0 ? first : 0, hi = first + n < size ? first + n : size;
      return hi > lo ? hi - lo : 0;
    };
    const int live = inside(t.ih0, rows, a.h) * inside(t.iw0, cols, a.w_);
    if (tid == 0) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(cuop::kernels::common::smem_addr(bar)));
      asm volatile("fence.mbarrier_init.release.cluster;\n fence.proxy.async.shared::cta;" ::: "memory");
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(cuop::kernels::common::smem_addr(bar)),
                   "r"(live * pixel_bytes) : "memory");
    }
    __syncthreads();
    for (int i = tid; i < rows * cols; i += K::block_threads) {
      const int iy = t.ih0 + i / cols, ix = t.iw0 + i % cols;
      if (iy < 0 || iy >= a.h || ix < 0 || ix >= a.w_) continue;
      const unsigned char* src = static_cast<const unsigned char*>(a.x) +
                                 ((static_cast<long long>(t.n) * a.h + iy) * a.w_ + ix) * a.c * 2 + t.c0 * 2;
      const unsigned dst = cuop::kernels::common::smem_addr(ring + (i * pixel_bytes) % bulk_ring<K>);
      asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                   ::"r"(dst), "l"(src), "r"(pixel_bytes), "r"(cuop::kernels::common::smem_addr(bar)) : "memory");
    }
  }
  if constexpr (MMA) {
    const unsigned short* filt = reinterpret_cast<const unsigned short*>(smem + K::filter_offset);
#pragma unroll 1
    for (int i = 0; i < K::cpw_; ++i) K::compute_channel(a, t, planes, filt, tid / 32 * K::cpw_ + i);
  }
  if constexpr (BULK) {
    unsigned done = 0;
    while (!done)
      asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n selp.u32 %0, 1, 0, p;\n}"
                   : "=r"(done) : "r"(cuop::kernels::common::smem_addr(bar)) : "memory");
  }
}

// The same with a tensor map: the patch comes in boxes of BOX_ROWS whole patch rows (every column
// and the block's channels; coordinates outside the image zero-filled by the TMA unit), one copy
// a box, issued by thread 0, into the ring.
template <typename K>
constexpr int box_rows = std::clamp(bulk_ring<K> / (K::patch_w * K::block_c_ * 2), 1, 8);

template <typename K, bool MMA>
__global__ void __launch_bounds__(K::block_threads, K::min_blocks) mma_tensor(kc::conv_args a,
                                                                              const __grid_constant__ CUtensorMap map) {
  extern __shared__ __align__(128) unsigned char smem[];
  unsigned* planes = reinterpret_cast<unsigned*>(smem);
  unsigned char* ring = smem + staged_offset<K>;
  unsigned long long* bar = reinterpret_cast<unsigned long long*>(ring + bulk_ring<K>);
  const auto t = tile_at<K>(a, static_cast<int>(blockIdx.x), static_cast<int>(blockIdx.y), static_cast<int>(blockIdx.z));
  const int tid = static_cast<int>(threadIdx.x);
  constexpr int boxes = (K::patch_h + box_rows<K> - 1) / box_rows<K>;
  constexpr int box_bytes = box_rows<K> * K::patch_w * K::block_c_ * 2;
  const unsigned b_addr = cuop::kernels::common::smem_addr(bar);
  if (tid == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b_addr));
    asm volatile("fence.mbarrier_init.release.cluster;\n fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b_addr), "r"(boxes * box_bytes) : "memory");
    for (int i = 0; i < boxes; ++i) {
      const unsigned dst = cuop::kernels::common::smem_addr(ring + (i * box_bytes) % (bulk_ring<K> / box_bytes * box_bytes));
      asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6];"
                   ::"r"(dst), "l"(&map), "r"(t.c0), "r"(t.iw0), "r"(t.ih0 + i * box_rows<K>), "r"(t.n), "r"(b_addr)
                   : "memory");
    }
  }
  if constexpr (MMA) {
    const unsigned short* filt = reinterpret_cast<const unsigned short*>(smem + K::filter_offset);
#pragma unroll 1
    for (int i = 0; i < K::cpw_; ++i) K::compute_channel(a, t, planes, filt, tid / 32 * K::cpw_ + i);
  }
  __syncthreads();  // the barrier is initialized before anyone waits on it
  unsigned done = 0;
  while (!done)
    asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n selp.u32 %0, 1, 0, p;\n}"
                 : "=r"(done) : "r"(b_addr) : "memory");
}

// A 4-D tensor map of the layer's NHWC input, box: BLOCK_C channels x patch_w x box_rows x 1.
template <typename K>
CUtensorMap input_map(const layer& l, const void* x, int rows = box_rows<K>) {
  CUtensorMap map{};
  const cuuint64_t dims[4] = {static_cast<cuuint64_t>(l.c), static_cast<cuuint64_t>(l.hw), static_cast<cuuint64_t>(l.hw),
                              static_cast<cuuint64_t>(l.n)};
  const cuuint64_t strides[3] = {static_cast<cuuint64_t>(l.c) * 2, static_cast<cuuint64_t>(l.c) * 2 * l.hw,
                                 static_cast<cuuint64_t>(l.c) * 2 * l.hw * l.hw};
  const cuuint32_t box[4] = {K::block_c_, K::patch_w, static_cast<cuuint32_t>(rows), 1};
  const cuuint32_t elem[4] = {1, 1, 1, 1};
  const CUresult r = cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 4, const_cast<void*>(x), dims, strides,
                                            box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                            CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) std::printf("cuTensorMapEncodeTiled failed: %d\n", static_cast<int>(r));
  return map;
}

// A TMA-fed `kernel` (conv_args, then a tensor map of `rows`-row boxes) over the layer's tile
// grid: its blocks per SM, its time, and its output against `ref` bit for bit (launched once more
// for that; not compared when ref is empty).
struct tensor_run {
  int per_sm;
  float us;
  const char* output;
};

template <typename K>
tensor_run run_tensor(const void* kernel, const layer& l, const buffers& b, int smem, int rows,
                      const std::vector<unsigned char>& ref) {
  kc::conv_args a{b.x, b.w, b.y, l.n, l.c, l.hw, l.hw, l.c, l.hw, l.hw, 7, 7, 1, 1, 3, 3, 1, 1, l.c, 1.f, 0.f};
  CUtensorMap map = input_map<K>(l, b.x, rows);
  const int tiles = ((l.hw + K::tile_h_ - 1) / K::tile_h_) * ((l.hw + K::tile_w_ - 1) / K::tile_w_);
  const dim3 grid(tiles, (l.c + K::block_c_ - 1) / K::block_c_, l.n);
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  tensor_run r{0, 0.f, "-"};
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&r.per_sm, kernel, K::block_threads, smem);
  void* params[] = {&a, &map};
  auto launch = [&] { cudaLaunchKernel(kernel, grid, dim3(K::block_threads), params, smem, nullptr); };
  if (!ref.empty()) {
    std::vector<unsigned char> got(ref.size());
    cudaMemset(b.y, 0, ref.size());
    launch();
    cudaMemcpy(got.data(), b.y, got.size(), cudaMemcpyDeviceToHost);
    r.output = std::memcmp(ref.data(), got.data(), got.size()) == 0 ? "same" : "WRONG";
  }
  r.us = probe::median_us(launch, b.flush, 30);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) {
    std::printf("error: %s\n", cudaGetErrorString(err));
    r.output = cudaGetErrorString(err);
  }
  return r;
}

template <typename K>
void run_bulk(const layer& l, const buffers& b) {
  static_assert(bulk_ring<K> >= 1024, "no room for a ring");
  const int smem = staged_offset<K> + bulk_ring<K> + 16;
  int per_sm = 0;
  cudaFuncSetAttribute(&mma_bulk<K, true, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, &mma_bulk<K, true, true>, K::block_threads, smem);
  const float mma_only = time_us<K>(reinterpret_cast<const void*>(&mma_bulk<K, true, false>), l, b, 30, smem);
  const float bulk_only = time_us<K>(reinterpret_cast<const void*>(&mma_bulk<K, false, true>), l, b, 30, smem);
  const float both = time_us<K>(reinterpret_cast<const void*>(&mma_bulk<K, true, true>), l, b, 30, smem);
  const float stage3_load = time_us<K>(reinterpret_cast<const void*>(&entry<phases<K, load>>), l, b, 30);
  const float stage3_load_mma = time_us<K>(reinterpret_cast<const void*>(&entry<phases<K, load | mma>>), l, b, 30);
  const float boxes_only = run_tensor<K>(reinterpret_cast<const void*>(&mma_tensor<K, false>), l, b, smem, box_rows<K>, {}).us;
  const float boxes_mma = run_tensor<K>(reinterpret_cast<const void*>(&mma_tensor<K, true>), l, b, smem, box_rows<K>, {}).us;
  std::printf("| %s | %d x %d KiB ring | %.1f | %.1f | %.1f | %.1f / %.1f (%d rows a box) | %.1f | %.1f |\n", l.name, per_sm,
              bulk_ring<K> / 1024, mma_only, bulk_only, both, boxes_only, boxes_mma, box_rows<K>, stage3_load,
              stage3_load_mma);
}

// Stage 3 fed by TMA (--tma): the patch arrives as tensor-map boxes of BOX rows (the block's
// channels x patch_w columns, zero-filled outside the image and past C), two boxes in flight in a
// ring after stage 3's shared memory; the threads transpose each landed box into stage 3's planes
// (two 16-byte shared loads and eight 32-bit stores a task, as stage 3's register transposes) while
// the next streams in, then MMAs and store as stage 3. No global load goes through the threads.
template <typename K>
constexpr int tma_budget = K::min_blocks >= 2 ? 228 * 1024 / K::min_blocks - 1024 : 227 * 1024;  // stage 3's occupancy
template <typename K>
constexpr int tma_row_bytes = K::patch_w * K::block_c_ * 2;
template <typename K>
constexpr int tma_box = std::min((tma_budget<K> - staged_offset<K> - 16) / (2 * tma_row_bytes<K>), 8);
template <typename K>
constexpr int tma_smem = staged_offset<K> + 2 * tma_box<K> * tma_row_bytes<K> + 16;

__device__ __forceinline__ void bar_wait(unsigned bar, unsigned parity) {
  unsigned done = 0;
  while (!done)
    asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
                 : "=r"(done) : "r"(bar), "r"(parity) : "memory");
}

template <typename K>
__global__ void __launch_bounds__(K::block_threads, K::min_blocks) stage3_tma(kc::conv_args a,
                                                                              const __grid_constant__ CUtensorMap map) {
  constexpr int BOX = tma_box<K>, boxes = (K::patch_h + BOX - 1) / BOX, slot_bytes = BOX * tma_row_bytes<K>;
  static_assert(BOX >= 1, "no room for two boxes");
  extern __shared__ __align__(128) unsigned char smem[];
  unsigned* planes = reinterpret_cast<unsigned*>(smem);
  unsigned char* ring = smem + staged_offset<K>;
  const unsigned bars = cuop::kernels::common::smem_addr(ring + 2 * slot_bytes);
  const auto t = tile_at<K>(a, static_cast<int>(blockIdx.x), static_cast<int>(blockIdx.y), static_cast<int>(blockIdx.z));
  const int tid = static_cast<int>(threadIdx.x);
  auto issue = [&](int k) {
    const unsigned bar = bars + 8u * (k & 1);
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(slot_bytes) : "memory");
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6];"
                 ::"r"(cuop::kernels::common::smem_addr(ring + (k & 1) * slot_bytes)), "l"(&map), "r"(t.c0), "r"(t.iw0),
                 "r"(t.ih0 + k * BOX), "r"(t.n), "r"(bar) : "memory");
  };
  if (tid == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n mbarrier.init.shared::cta.b64 [%1], 1;" ::"r"(bars), "r"(bars + 8u));
    asm volatile("fence.mbarrier_init.release.cluster;\n fence.proxy.async.shared::cta;" ::: "memory");
    issue(0);
    if (boxes > 1) issue(1);
  }
  unsigned* pairs = reinterpret_cast<unsigned*>(smem + K::filter_offset);
  for (int i = tid; i < K::tap_rows; i += K::block_threads) {
    unsigned short tv[8];
    K::gather_taps(a, t, i, tv);
    K::write_pairs(pairs, i, tv);
  }
  __syncthreads();  // the barriers are initialized
  constexpr int qc = K::qc, rw = K::row_words;
#pragma unroll 1
  for (int k = 0; k < boxes; ++k) {
    bar_wait(bars + 8u * (k & 1), static_cast<unsigned>((k >> 1) & 1));
    const unsigned char* slot = ring + (k & 1) * slot_bytes;
    const int rows = K::patch_h - k * BOX < BOX ? K::patch_h - k * BOX : BOX;
    for (int task = tid; task < rows * rw * qc; task += K::block_threads) {
      const int q = task % qc, word = task / qc;
      const int r = word / rw, col = 2 * (word % rw);
      const int first = qc == 4 ? word & 1 : 0;  // the two pixels in turn: no 16-byte-load bank conflicts at qc 4
      auto chunk = [&](int e) {
        return col + e < K::patch_w
                   ? *reinterpret_cast<const uint4*>(slot + (r * K::patch_w + col + e) * (K::block_c_ * 2) + 16 * q)
                   : make_uint4(0, 0, 0, 0);
      };
      const uint4 one = chunk(first), other = chunk(first ^ 1);  // selects, not a dynamic index
      const uint4 px[2] = {first ? other : one, first ? one : other};
      const unsigned w0[4] = {px[0].x, px[0].y, px[0].z, px[0].w}, w1[4] = {px[1].x, px[1].y, px[1].z, px[1].w};
      const int at = (k * BOX + r) * rw + word % rw;
#pragma unroll
      for (int j = 0; j < 8; ++j)
        K::plane(planes, j * qc + q)[at] = cuop::kernels::conv::depthwise_mma_detail::halves(w0[j / 2], w1[j / 2], j % 2);
    }
    __syncthreads();  // every thread is done with the slot (and, at the last box, the planes are whole)
    if (tid == 0 && k + 2 < boxes) {
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      issue(k + 2);
    }
  }
#pragma unroll 1
  for (int i = 0; i < K::cpw_; ++i) K::compute_channel(a, t, planes, reinterpret_cast<unsigned short*>(pairs), tid / 32 * K::cpw_ + i);
  __syncthreads();
  K::store_tile(a, t, planes, tid);
}

// Stage 3 fed by one TMA box a tile (--tma, second kind): the whole raw patch lands where the
// planes will be (it is smaller), every thread copies its share of it into registers, a barrier,
// then the registers go out as stage 3's planes. Same shared memory and occupancy as stage 3.
// On the H200 (2026-12-03): 46.4 us against stage 3's 53.6 on 16x64x64x384, slower elsewhere.
template <typename K>
__global__ void __launch_bounds__(K::block_threads, K::min_blocks) stage3_tma_whole(kc::conv_args a,
                                                                                    const __grid_constant__ CUtensorMap map) {
  constexpr int qc = K::qc, rw = K::row_words, tasks = K::patch_h * rw * qc;
  constexpr int per_thread = (tasks + K::block_threads - 1) / K::block_threads;
  constexpr int raw_bytes = K::patch_h * tma_row_bytes<K>;
  static_assert(raw_bytes <= K::filter_offset, "the raw patch fits where the planes go");
  extern __shared__ __align__(128) unsigned char smem[];
  unsigned* planes = reinterpret_cast<unsigned*>(smem);
  const unsigned bar = cuop::kernels::common::smem_addr(smem + staged_offset<K>);
  const auto t = tile_at<K>(a, static_cast<int>(blockIdx.x), static_cast<int>(blockIdx.y), static_cast<int>(blockIdx.z));
  const int tid = static_cast<int>(threadIdx.x);
  if (tid == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
    asm volatile("fence.mbarrier_init.release.cluster;\n fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(raw_bytes) : "memory");
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6];"
                 ::"r"(cuop::kernels::common::smem_addr(smem)), "l"(&map), "r"(t.c0), "r"(t.iw0), "r"(t.ih0), "r"(t.n), "r"(bar)
                 : "memory");
  }
  unsigned* pairs = reinterpret_cast<unsigned*>(smem + K::filter_offset);
  for (int i = tid; i < K::tap_rows; i += K::block_threads) {
    unsigned short tv[8];
    K::gather_taps(a, t, i, tv);
    K::write_pairs(pairs, i, tv);
  }
  __syncthreads();  // the barrier is initialized
  bar_wait(bar, 0);
  uint4 px[per_thread][2];
#pragma unroll
  for (int u = 0; u < per_thread; ++u) {
    const int task = tid + u * K::block_threads;
    const int q = task % qc, word = task / qc;
    const int r = word / rw, col = 2 * (word % rw);
    const int first = qc == 4 ? word & 1 : 0;
    auto chunk = [&](int e) {
      return task < tasks && col + e < K::patch_w
                 ? *reinterpret_cast<const uint4*>(smem + (r * K::patch_w + col + e) * (K::block_c_ * 2) + 16 * q)
                 : make_uint4(0, 0, 0, 0);
    };
    const uint4 one = chunk(first), other = chunk(first ^ 1);  // selects, not a dynamic index
    px[u][0] = first ? other : one;
    px[u][1] = first ? one : other;
  }
  __syncthreads();  // the raw patch is all in registers
#pragma unroll
  for (int u = 0; u < per_thread; ++u) {
    const int task = tid + u * K::block_threads;
    if (task >= tasks) break;
    const int q = task % qc, word = task / qc;
    const unsigned w0[4] = {px[u][0].x, px[u][0].y, px[u][0].z, px[u][0].w};
    const unsigned w1[4] = {px[u][1].x, px[u][1].y, px[u][1].z, px[u][1].w};
#pragma unroll
    for (int j = 0; j < 8; ++j)
      K::plane(planes, j * qc + q)[word] = cuop::kernels::conv::depthwise_mma_detail::halves(w0[j / 2], w1[j / 2], j % 2);
  }
  __syncthreads();
#pragma unroll 1
  for (int i = 0; i < K::cpw_; ++i) K::compute_channel(a, t, planes, reinterpret_cast<unsigned short*>(pairs), tid / 32 * K::cpw_ + i);
  __syncthreads();
  K::store_tile(a, t, planes, tid);
}

// Stage 3 fed by TMA in persistent blocks (--tma, third kind): one block per SM of K (two channels
// a warp: 16 warps at 32 channels), taking tiles b, b + gridDim.x, ... The tile's whole raw patch
// lands in a staging area beside stage 3's shared memory (one box); the threads transpose it into
// the planes, and the next tile's box is issued into the freed staging area at once, so it streams
// in during this tile's MMAs and stores. The next tile's taps are loaded into registers then too.
// On the H200 (2026-12-03): 2% faster than stage 3 on 32x56x56x128, slower elsewhere (it spills).
template <typename K>
constexpr int staged_smem = staged_offset<K> + K::patch_h * tma_row_bytes<K> + 16;

template <typename K>
__global__ void __launch_bounds__(K::block_threads, 1) stage3_tma_persistent(kc::conv_args a,
                                                                              const __grid_constant__ CUtensorMap map,
                                                                              int tiles, int groups, int units) {
  static_assert(K::tap_rows <= K::block_threads, "a thread a tap row");
  extern __shared__ __align__(128) unsigned char smem[];
  unsigned* planes = reinterpret_cast<unsigned*>(smem);
  unsigned* pairs = reinterpret_cast<unsigned*>(smem + K::filter_offset);
  unsigned char* raw = smem + staged_offset<K>;
  const unsigned bar = cuop::kernels::common::smem_addr(raw + K::patch_h * tma_row_bytes<K>);
  constexpr unsigned raw_bytes = K::patch_h * tma_row_bytes<K>;
  const int tid = static_cast<int>(threadIdx.x);
  auto tile = [&](int u) { return tile_at<K>(a, u / groups % tiles, u % groups, u / groups / tiles); };
  auto issue = [&](const typename K::tile_t& t) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(raw_bytes) : "memory");
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6];"
                 ::"r"(cuop::kernels::common::smem_addr(raw)), "l"(&map), "r"(t.c0), "r"(t.iw0), "r"(t.ih0), "r"(t.n), "r"(bar)
                 : "memory");
  };
  int u = static_cast<int>(blockIdx.x);
  if (u >= units) return;
  if (tid == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
    asm volatile("fence.mbarrier_init.release.cluster;\n fence.proxy.async.shared::cta;" ::: "memory");
    issue(tile(u));
  }
  unsigned short tv[8];
  if (tid < K::tap_rows) K::gather_taps(a, tile(u), tid, tv);
  constexpr int qc = K::qc, rw = K::row_words, tasks = K::patch_h * rw * qc;
#pragma unroll 1
  for (unsigned parity = 0; u < units; u += static_cast<int>(gridDim.x), parity ^= 1u) {
    const auto t = tile(u);
    if (tid < K::tap_rows) K::write_pairs(pairs, tid, tv);
    __syncthreads();  // (first tile) the barrier is initialized
    bar_wait(bar, parity);
    for (int task = tid; task < tasks; task += K::block_threads) {
      const int q = task % qc, word = task / qc;
      const int r = word / rw, col = 2 * (word % rw);
      const int first = qc == 4 ? word & 1 : 0;
      auto chunk = [&](int e) {
        return col + e < K::patch_w ? *reinterpret_cast<const uint4*>(raw + (r * K::patch_w + col + e) * (K::block_c_ * 2) + 16 * q)
                                    : make_uint4(0, 0, 0, 0);
      };
      const uint4 one = chunk(first), other = chunk(first ^ 1);
      const uint4 p0 = first ? other : one, p1 = first ? one : other;
      const unsigned w0[4] = {p0.x, p0.y, p0.z, p0.w}, w1[4] = {p1.x, p1.y, p1.z, p1.w};
#pragma unroll
      for (int j = 0; j < 8; ++j)
        K::plane(planes, j * qc + q)[word] = cuop::kernels::conv::depthwise_mma_detail::halves(w0[j / 2], w1[j / 2], j % 2);
    }
    __syncthreads();  // the staging area is read and the planes are whole
    const int next = u + static_cast<int>(gridDim.x);
    if (next < units) {
      if (tid == 0) {
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        issue(tile(next));
      }
      if (tid < K::tap_rows) K::gather_taps(a, tile(next), tid, tv);  // in flight during the MMAs
    }
#pragma unroll 1
    for (int i = 0; i < K::cpw_; ++i)
      K::compute_channel(a, t, planes, reinterpret_cast<unsigned short*>(pairs), tid / 32 * K::cpw_ + i);
    __syncthreads();
    K::store_tile(a, t, planes, tid);
    __syncthreads();  // the planes and the tap pairs are free for the next tile
  }
}

// The persistent kind of K against stage 3's configuration K3 (the dispatched one) on one layer:
// stage 3's time, the persistent kernel's time and whether its output is stage 3's, bit for bit.
template <typename K3, typename K>
void run_tma_persistent(const layer& l, const buffers& b) {
  std::vector<unsigned char> ref;
  check_output<K3>(reinterpret_cast<const void*>(&entry<phases<K3, load | mma | store>>), l, b, &ref);
  const float s3_us = time_us<K3>(reinterpret_cast<const void*>(&entry<phases<K3, load | mma | store>>), l, b, 30);
  const void* kernel = reinterpret_cast<const void*>(&stage3_tma_persistent<K>);
  const int smem = staged_smem<K>;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  int per_sm = 0, sms = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, K::block_threads, smem);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  kc::conv_args a{b.x, b.w, b.y, l.n, l.c, l.hw, l.hw, l.c, l.hw, l.hw, 7, 7, 1, 1, 3, 3, 1, 1, l.c, 1.f, 0.f};
  CUtensorMap map = input_map<K>(l, b.x, K::patch_h);
  int tiles = ((l.hw + K::tile_h_ - 1) / K::tile_h_) * ((l.hw + K::tile_w_ - 1) / K::tile_w_);
  int groups = (l.c + K::block_c_ - 1) / K::block_c_, units = tiles * groups * l.n;
  void* params[] = {&a, &map, &tiles, &groups, &units};
  const dim3 grid(sms * (per_sm > 0 ? per_sm : 1));
  const std::size_t out_bytes = static_cast<std::size_t>(l.n) * l.hw * l.hw * l.c * 2;
  cudaMemset(b.y, 0, out_bytes);
  cudaLaunchKernel(kernel, grid, dim3(K::block_threads), params, smem, nullptr);
  std::vector<unsigned char> got(out_bytes);
  cudaMemcpy(got.data(), b.y, out_bytes, cudaMemcpyDeviceToHost);
  const cudaError_t err = cudaGetLastError();
  const bool same = std::memcmp(ref.data(), got.data(), out_bytes) == 0;
  const float us = probe::median_us(
      [&] { cudaLaunchKernel(kernel, grid, dim3(K::block_threads), params, smem, nullptr); }, b.flush, 30);
  std::printf("| %s | %d KB, %d x %d warps | %.1f | %.1f | %s |\n", l.name, smem / 1024, per_sm, K::warps, s3_us, us,
              err != cudaSuccess ? cudaGetErrorString(err) : same ? "same" : "WRONG");
}

// Stage 3 (K) against its TMA-fed ring and one-box kinds on one layer, each output checked bit for bit.
template <typename K>
void run_tma(const layer& l, const buffers& b) {
  const void* full = reinterpret_cast<const void*>(&entry<phases<K, load | mma | store>>);
  std::vector<unsigned char> ref;
  check_output<K>(full, l, b, &ref);
  const tensor_run ring = run_tensor<K>(reinterpret_cast<const void*>(&stage3_tma<K>), l, b, tma_smem<K>, tma_box<K>, ref);
  const float s3_us = time_us<K>(full, l, b, 30);
  const tensor_run whole = run_tensor<K>(reinterpret_cast<const void*>(&stage3_tma_whole<K>), l, b, staged_offset<K> + 16,
                                         K::patch_h, ref);
  std::printf("| %s | %d rows a box, %d KB | %d | %.1f | %.1f | %s | %d | %.1f | %s |\n", l.name, tma_box<K>,
              tma_smem<K> / 1024, ring.per_sm, s3_us, ring.us, ring.output, whole.per_sm, whole.us, whole.output);
}

// The one-box kind (--tma-sweep) over tile shapes and channel blocks that fit more blocks per SM:
// stage 3 and its one-box kind of the same configuration, each output checked against `ref` (the
// first configuration's stage 3 on the layer) bit for bit.
template <typename K>
void run_whole(const layer& l, const buffers& b, const char* name, std::vector<unsigned char>* ref) {
  const void* full = reinterpret_cast<const void*>(&entry<phases<K, load | mma | store>>);
  const char* s3_out = check_output<K>(full, l, b, ref);
  const float s3_us = time_us<K>(full, l, b, 30);
  const void* kernel = reinterpret_cast<const void*>(&stage3_tma_whole<K>);
  const tensor_run whole = run_tensor<K>(kernel, l, b, staged_offset<K> + 16, K::patch_h, *ref);
  cudaFuncAttributes fa{};
  cudaFuncGetAttributes(&fa, kernel);
  std::printf("| %s | %s | %d x %d warps | %d / %d | %.1f | %s | %.1f | %s |\n", l.name, name, whole.per_sm, K::warps,
              fa.numRegs, static_cast<int>(fa.localSizeBytes), s3_us, s3_out, whole.us, whole.output);
}

void tma_sweep(const buffers& b) {
  std::printf("| layer | configuration | one box: blocks per SM | registers / local bytes | stage 3 us | output |"
              " one box us | output |\n");
  std::printf("| --- | --- | --- | --- | ---: | --- | ---: | --- |\n");
  std::vector<unsigned char> ref;
  for (const layer l : {layer{"32x28x28x512", 32, 28, 512}, layer{"32x28x28x256", 32, 28, 256}}) {
    ref.clear();
    run_whole<stage3<7, 32, 28, 32, 4>>(l, b, "c32 t28x32 cv4", &ref);
    run_whole<stage3<7, 16, 28, 32, 4>>(l, b, "c16 t28x32 cv4", &ref);
    run_whole<stage3<7, 16, 28, 32, 2>>(l, b, "c16 t28x32 cv2", &ref);
    run_whole<stage3<7, 8, 28, 32, 2>>(l, b, "c8 t28x32 cv2", &ref);
    run_whole<stage3<7, 32, 16, 32, 4>>(l, b, "c32 t16x32 cv4", &ref);
    run_whole<stage3<7, 16, 16, 32, 4>>(l, b, "c16 t16x32 cv4", &ref);
    run_whole<stage3<7, 32, 28, 16, 4>>(l, b, "c32 t28x16 cv4", &ref);
    run_whole<stage3<7, 16, 28, 16, 4>>(l, b, "c16 t28x16 cv4", &ref);
    run_whole<stage3<7, 64, 28, 32, 4>>(l, b, "c64 t28x32 cv4", &ref);
  }
  ref.clear();
  const layer l56{"32x56x56x128", 32, 56, 128};
  run_whole<stage3<7, 64, 16, 56, 4>>(l56, b, "c64 t16x56 cv4", &ref);
  run_whole<stage3<7, 32, 16, 56, 4>>(l56, b, "c32 t16x56 cv4", &ref);
  run_whole<stage3<7, 16, 16, 56, 4>>(l56, b, "c16 t16x56 cv4", &ref);
  run_whole<stage3<7, 16, 28, 56, 4>>(l56, b, "c16 t28x56 cv4", &ref);
  run_whole<stage3<7, 32, 16, 32, 4>>(l56, b, "c32 t16x32 cv4", &ref);
  run_whole<stage3<7, 16, 16, 32, 4>>(l56, b, "c16 t16x32 cv4", &ref);
  run_whole<stage3<7, 32, 28, 32, 4>>(l56, b, "c32 t28x32 cv4", &ref);
  run_whole<stage3<7, 16, 28, 32, 4>>(l56, b, "c16 t28x32 cv4", &ref);
  ref.clear();
  const layer l64{"16x64x64x384", 16, 64, 384};
  run_whole<stage3<7, 64, 16, 64, 4>>(l64, b, "c64 t16x64 cv4", &ref);
  run_whole<stage3<7, 32, 16, 32, 4>>(l64, b, "c32 t16x32 cv4", &ref);
  run_whole<stage3<7, 32, 16, 64, 4>>(l64, b, "c32 t16x64 cv4", &ref);
  run_whole<stage3<7, 16, 16, 64, 4>>(l64, b, "c16 t16x64 cv4", &ref);
  run_whole<stage3<7, 16, 32, 32, 4>>(l64, b, "c16 t32x32 cv4", &ref);
  run_whole<stage3<7, 32, 32, 32, 4>>(l64, b, "c32 t32x32 cv4", &ref);
  run_whole<stage3<7, 16, 16, 32, 4>>(l64, b, "c16 t16x32 cv4", &ref);
  run_whole<stage3<7, 16, 16, 32, 2>>(l64, b, "c16 t16x32 cv2", &ref);
  run_whole<stage3<7, 32, 16, 16, 4>>(l64, b, "c32 t16x16 cv4", &ref);
}

// For Nsight Compute (--occupancy ncu): the MMA phase alone of 32x28x28x512 at 16, 24 and 32 warps
// per SM, three launches each, in this order.
void occupancy_ncu(const buffers& b) {
  const layer l{"32x28x28x512", 32, 28, 512};
  auto three = [&](auto kernel, auto k) {
    for (int i = 0; i < 3; ++i) time_us<decltype(k)>(reinterpret_cast<const void*>(kernel), l, b, 1);
  };
  three(&entry_mb<phases<stage3<7, 32, 28, 32, 4>, mma>, 2>, stage3<7, 32, 28, 32, 4>{});
  three(&entry_mb<phases<stage3<7, 16, 28, 32, 2>, mma>, 3>, stage3<7, 16, 28, 32, 2>{});
  three(&entry_mb<phases<stage3<7, 16, 28, 32, 1>, mma>, 2>, stage3<7, 16, 28, 32, 1>{});
}

void occupancy_section(const buffers& b) {
  std::printf("| layer | configuration | launch-bounds blocks | resident | registers / local bytes | whole us | MMA us |"
              " load us | output |\n");
  std::printf("| --- | --- | ---: | --- | --- | ---: | ---: | ---: | --- |\n");
  std::vector<unsigned char> ref;
  for (const layer l : {layer{"32x28x28x512", 32, 28, 512}, layer{"32x28x28x256", 32, 28, 256}}) {
    ref.clear();
    run_occupancy<stage3<7, 32, 28, 32, 4>, 2>(l, b, "c32 t28x32 cv4", &ref);
    run_occupancy<stage3<7, 16, 28, 32, 4>, 4>(l, b, "c16 t28x32 cv4", &ref);
    run_occupancy<stage3<7, 16, 28, 32, 2>, 4>(l, b, "c16 t28x32 cv2", &ref);
    run_occupancy<stage3<7, 16, 28, 32, 2>, 3>(l, b, "c16 t28x32 cv2", &ref);
    run_occupancy<stage3<7, 16, 28, 32, 2>, 2>(l, b, "c16 t28x32 cv2", &ref);
    run_occupancy<stage3<7, 8, 28, 32, 1>, 3>(l, b, "c8 t28x32 cv1", &ref);
    run_occupancy<stage3<7, 8, 28, 32, 2>, 6>(l, b, "c8 t28x32 cv2", &ref);
    run_occupancy<stage3<7, 32, 28, 32, 2>, 1>(l, b, "c32 t28x32 cv2", &ref);
    run_occupancy<stage3<7, 32, 28, 32, 2>, 2>(l, b, "c32 t28x32 cv2", &ref);
    run_occupancy<stage3<7, 16, 28, 32, 1>, 1>(l, b, "c16 t28x32 cv1", &ref);
    run_occupancy<stage3<7, 16, 28, 32, 1>, 2>(l, b, "c16 t28x32 cv1", &ref);
  }
  ref.clear();
  const layer l56{"32x56x56x128", 32, 56, 128};
  run_occupancy<stage3<7, 64, 16, 56, 4>, 1>(l56, b, "c64 t16x56 cv4", &ref);
  run_occupancy<stage3<7, 32, 16, 56, 4>, 2>(l56, b, "c32 t16x56 cv4", &ref);
  run_occupancy<stage3<7, 32, 16, 56, 2>, 1>(l56, b, "c32 t16x56 cv2", &ref);
  run_occupancy<stage3<7, 16, 16, 56, 2>, 4>(l56, b, "c16 t16x56 cv2", &ref);
  run_occupancy<stage3<7, 16, 16, 56, 2>, 3>(l56, b, "c16 t16x56 cv2", &ref);
  run_occupancy<stage3<7, 16, 28, 56, 2>, 3>(l56, b, "c16 t28x56 cv2", &ref);
  run_occupancy<stage3<7, 16, 28, 56, 2>, 2>(l56, b, "c16 t28x56 cv2", &ref);
  run_occupancy<stage3<7, 16, 16, 56, 4>, 4>(l56, b, "c16 t16x56 cv4", &ref);
  ref.clear();
  const layer l64{"16x64x64x384", 16, 64, 384};
  run_occupancy<stage3<7, 64, 16, 64, 4>, 1>(l64, b, "c64 t16x64 cv4", &ref);
  run_occupancy<stage3<7, 32, 16, 64, 2>, 1>(l64, b, "c32 t16x64 cv2", &ref);
  run_occupancy<stage3<7, 16, 16, 64, 2>, 3>(l64, b, "c16 t16x64 cv2", &ref);
  run_occupancy<stage3<7, 16, 32, 32, 2>, 3>(l64, b, "c16 t32x32 cv2", &ref);
  run_occupancy<stage3<7, 16, 16, 32, 2>, 3>(l64, b, "c16 t16x32 cv2", &ref);
  run_occupancy<stage3<7, 16, 16, 32, 2>, 4>(l64, b, "c16 t16x32 cv2", &ref);
  run_occupancy<stage3<7, 32, 32, 32, 4>, 2>(l64, b, "c32 t32x32 cv4", &ref);
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const bool tma = mode == "--tma", tma_whole = mode == "--tma-sweep", bulk = mode == "--bulk", halfloads = mode == "--halfloads",
             occupancy = mode == "--occupancy";
  if (!tma && !tma_whole && !bulk && !halfloads && !occupancy) {
    std::fprintf(stderr, "usage: depthwise_bounds --occupancy [ncu] | --halfloads | --bulk | --tma | --tma-sweep\n");
    return 2;
  }
  const probe::l2_flush flush(256ull << 20);
  const buffers b = make_buffers(flush);
  if (tma_whole) {
    randomize(b);
    for (int rep = 0; rep < 2; ++rep) tma_sweep(b);
    return 0;
  }
  if (tma) {
    randomize(b);
    std::printf("| layer, configuration | ring | blocks per SM | stage 3 us | TMA ring us | output |"
                " one box: blocks per SM | one box us | output |\n");
    std::printf("| --- | --- | ---: | ---: | ---: | --- | ---: | ---: | --- |\n");
    for (int rep = 0; rep < 2; ++rep) {
      run_tma<stage3<7, 32, 28, 32, 4>>({"32x28x28x512 c32 t28x32 cv4", 32, 28, 512}, b);
      run_tma<stage3<7, 32, 28, 32, 4>>({"32x28x28x256 c32 t28x32 cv4", 32, 28, 256}, b);
      run_tma<stage3<7, 32, 28, 56, 4>>({"32x56x56x128 c32 t28x56 cv4", 32, 56, 128}, b);
      run_tma<stage3<7, 32, 16, 32, 4>>({"16x64x64x384 c32 t16x32 cv4", 16, 64, 384}, b);
    }
    std::printf("\n| layer, stage 3 (dispatched) against persistent | persistent: shared memory, blocks per SM |"
                " stage 3 us | persistent TMA us | output |\n");
    std::printf("| --- | --- | ---: | ---: | --- |\n");
    for (int rep = 0; rep < 2; ++rep) {
      run_tma_persistent<stage3<7, 32, 28, 32, 4>, stage3<7, 32, 28, 32, 2>>(
          {"32x28x28x512 c32 t28x32: cv4 / cv2", 32, 28, 512}, b);
      run_tma_persistent<stage3<7, 32, 28, 32, 4>, stage3<7, 32, 28, 32, 2>>(
          {"32x28x28x256 c32 t28x32: cv4 / cv2", 32, 28, 256}, b);
      run_tma_persistent<stage3<7, 64, 16, 56, 4>, stage3<7, 32, 16, 56, 2>>(
          {"32x56x56x128 c64 t16x56 cv4 / c32 t16x56 cv2", 32, 56, 128}, b);
      run_tma_persistent<stage3<7, 64, 16, 64, 4>, stage3<7, 32, 16, 64, 2>>(
          {"16x64x64x384 c64 t16x64 cv4 / c32 t16x64 cv2", 16, 64, 384}, b);
    }
    return 0;
  }
  if (bulk) {
    std::printf("| layer, configuration | blocks per SM, ring | MMA phase us | pixel copies us | both us |"
                " tensor-map boxes us: alone / with the MMA phase | stage 3 load phase us | stage 3 load + MMA us |\n");
    std::printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (int rep = 0; rep < 2; ++rep) {
      run_bulk<stage3<7, 32, 28, 32, 4>>({"32x28x28x512 c32 t28x32 cv4", 32, 28, 512}, b);
      run_bulk<stage3<7, 64, 16, 56, 4>>({"32x56x56x128 c64 t16x56 cv4", 32, 56, 128}, b);
      run_bulk<stage3<7, 64, 16, 64, 4>>({"16x64x64x384 c64 t16x64 cv4", 16, 64, 384}, b);
    }
    return 0;
  }
  if (halfloads) {
    std::printf("| layer, configuration | full | load+store | load+mma | mma | load | store | load+2mma+store |\n");
    std::printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (int rep = 0; rep < 2; ++rep) {
      const layer l28{"32x28x28x512 c32 t28x32 cv4", 32, 28, 512}, l56{"32x56x56x128 c64 t16x56 cv4", 32, 56, 128},
          l64{"16x64x64x384 c64 t16x64 cv4", 16, 64, 384};
      run_layer<stage3<7, 32, 28, 32, 4>>(l28, b, nullptr);
      run_layer<stage3h<7, 32, 28, 32, 4, false>>({"(8/14 loads)", 32, 28, 512}, b, nullptr);
      run_layer<stage3h<7, 32, 28, 32, 4, true>>({"(1/7 loads)", 32, 28, 512}, b, nullptr);
      run_layer<stage3<7, 64, 16, 56, 4>>(l56, b, nullptr);
      run_layer<stage3h<7, 64, 16, 56, 4, false>>({"(8/14 loads)", 32, 56, 128}, b, nullptr);
      run_layer<stage3h<7, 64, 16, 56, 4, true>>({"(1/7 loads)", 32, 56, 128}, b, nullptr);
      run_layer<stage3<7, 64, 16, 64, 4>>(l64, b, nullptr);
      run_layer<stage3h<7, 64, 16, 64, 4, false>>({"(8/14 loads)", 16, 64, 384}, b, nullptr);
      run_layer<stage3h<7, 64, 16, 64, 4, true>>({"(1/7 loads)", 16, 64, 384}, b, nullptr);
    }
    return 0;
  }
  if (occupancy) {
    randomize(b);
    if (argc > 2 && std::strcmp(argv[2], "ncu") == 0) occupancy_ncu(b);
    else occupancy_section(b);
    return 0;
  }
  return 0;
}
