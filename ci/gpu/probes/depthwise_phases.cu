// Device probe of the tensor-core depthwise kernel (stage 3, kernels/include/cuop/kernels/conv/
// depthwise_mma.cuh): where its time goes. Each layer's stage 3 configuration runs whole and with
// phases left out or doubled (load = the patch's transpose into planes, mma = every warp's
// channels, store = the planes back to NHWC), timed with CUDA events after a 256 MB read flush,
// median of 30. Differences between variants place the time; the answers of partial variants are
// meaningless. Three variants of the MMA phase (software-pipelined; one ldmatrix.x4 per MMA; each
// MMA as two m16n8k8) run beside the winners, and the mma.sync ceiling (MMAs on register operands
// alone) is printed first. docs/conv-h200.md has the results.
// `--only NAME` runs one variant of the first layer many times (for ncu).
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cuop/kernels/conv/depthwise.cuh"

namespace kc = cuop::kernels::conv;

enum : int { load = 1, mma = 2, store = 4, mma_twice = 8 };

// depthwise_mma::run with phases chosen by MODE.
template <typename K, int MODE>
struct phases : K {
  static __device__ void run(const kc::conv_args& a, void* smem) {
    unsigned* planes = static_cast<unsigned*>(smem);
    const int tiles_w = (a.q + K::tile_w_ - 1) / K::tile_w_;
    typename K::tile_t t;
    t.n = static_cast<int>(blockIdx.z);
    t.c0 = static_cast<int>(blockIdx.y) * K::block_c_;
    t.oh0 = static_cast<int>(blockIdx.x) / tiles_w * K::tile_h_;
    t.ow0 = static_cast<int>(blockIdx.x) % tiles_w * K::tile_w_;
    t.ih0 = t.oh0 - a.pad_h;
    t.iw0 = t.ow0 - a.pad_w;
    t.vec_ok = true;
    unsigned short* filt = reinterpret_cast<unsigned short*>(static_cast<unsigned char*>(smem) + K::filter_offset);
    if constexpr (MODE & load) K::load_patch(a, t, planes, filt);
    __syncthreads();
    const int warp = static_cast<int>(threadIdx.x) / 32;
    constexpr int reps = MODE & mma_twice ? 2 : MODE & mma ? 1 : 0;
#pragma unroll 1
    for (int rep = 0; rep < reps; ++rep)
#pragma unroll 1
      for (int i = 0; i < K::cpw_; ++i) K::compute_channel(a, t, planes, filt, warp * K::cpw_ + i);
    __syncthreads();
    if constexpr (MODE & store) K::store_tile(a, t, planes);
  }
};

template <typename K>
__global__ void __launch_bounds__(K::block_threads, K::min_blocks) entry(kc::conv_args a) {
  extern __shared__ __align__(16) unsigned char smem[];
  K::run(a, smem);
}

// Stage 3 with its tile parameters visible to the probe.
template <int R, int BLOCK_C, int TILE_H, int TILE_W, int CPW>
struct stage3 : kc::depthwise_mma<__half, R, R, BLOCK_C, TILE_H, TILE_W, CPW> {
  static constexpr int block_c_ = BLOCK_C, tile_h_ = TILE_H, tile_w_ = TILE_W, cpw_ = CPW;
};

// A lane's view of a channel, as stage 3's compute_channel sets it up: the channel's tap pairs,
// the lane's tap offset (k0 - n_col) and the shared-memory address of its ldmatrix row in the plane.
template <typename K, int R>
struct lane_setup {
  const unsigned* pc;
  int d;
  unsigned base;
  __device__ lane_setup(unsigned* planes, const unsigned short* filt, int slot) {
    const int lane = static_cast<int>(threadIdx.x) % 32;
    pc = reinterpret_cast<const unsigned*>(filt) + (8 * (slot % K::qc) + slot / K::qc) * R * K::pair_words;
    d = 2 * (lane % 4) - lane / 4;
    const int a_row = (lane & 7) + ((lane >> 3) & 1) * 8, a_unit = lane >> 4;
    base = cuop::kernels::common::smem_addr(K::plane(planes, slot)) + 4u * (a_row * K::row_words) + 16u * a_unit;
  }
  // Units 0..U-1 (16 rows x 8 columns each) of the 16 plane rows from `row`, as stage 3 loads them.
  template <int U>
  __device__ void units(int row, unsigned (&u)[U + 1][2]) const {
    const unsigned row_addr = base + 4u * (row * K::row_words);
#pragma unroll
    for (int k = 0; k + 1 < U; k += 2) {
      unsigned four[4];
      cuop::kernels::common::ldmatrix_x4(four, row_addr + 16u * k);
      u[k][0] = four[0]; u[k][1] = four[1]; u[k + 1][0] = four[2]; u[k + 1][1] = four[3];
    }
    if constexpr (U % 2) cuop::kernels::common::ldmatrix_x2(u[U - 1], row_addr + 16u * (U - 1));
  }
  // The two registers of filter row r's Toeplitz fragment (one 8-tap chunk).
  __device__ void taps(int r, unsigned (&b)[2]) const { K::fragment(pc + r * K::pair_words, 0, d, b); }
};

// The MMA variants' epilogue (beta == 0): stage 3's, once every lane is done with the plane.
template <typename K, typename ACC>
__device__ __forceinline__ void write_tile(const kc::conv_args& a, unsigned* planes, int slot, const ACC& acc) {
  __syncwarp();
  K::write_scaled(a.alpha, K::plane(planes, slot), acc);
}

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
      ls.template units<U>((16 * g < TILE_H - 16 ? 16 * g : TILE_H - 16) + r, u);
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
        STEP::template run<K>(ls, (16 * g < TILE_H - 16 ? 16 * g : TILE_H - 16) + r, b, acc[g]);
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

// d += a * b for one m16n8k8 (f16 in, f32 accumulation): a is one 16x8 unit as ldmatrix gives it
// (rows g and g + 8), b one register of taps.
__device__ __forceinline__ void mma_1688(float (&d)[4], const unsigned (&a)[2], unsigned b) {
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(b));
}

// Each m16n8k16 split into two m16n8k8 (unit xb against taps k 0-7, unit xb + 1 against k 8-15):
// every A operand is one unit, an aligned register pair, so no register moves pair units into
// quads; twice the MMA instructions, each half the work.
struct k8_step {
  template <typename K, typename LS, int XB>
  static __device__ __forceinline__ void run(const LS& ls, int row, const unsigned (&b)[2], float (&acc)[XB][4]) {
    unsigned u[K::units + 1][2];
    ls.template units<K::units>(row, u);
#pragma unroll
    for (int xb = 0; xb < XB; ++xb) mma_1688(acc[xb], u[xb], b[0]);
#pragma unroll
    for (int xb = 0; xb < XB; ++xb) mma_1688(acc[xb], u[xb + 1], b[1]);
  }
};

template <int R, int BLOCK_C, int TILE_H, int TILE_W, int CPW>
using stage3q = stage3_step<R, BLOCK_C, TILE_H, TILE_W, CPW, quads_step>;
template <int R, int BLOCK_C, int TILE_H, int TILE_W, int CPW>
using stage3k8 = stage3_step<R, BLOCK_C, TILE_H, TILE_W, CPW, k8_step>;

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

__global__ void read_flush(const uint4* p, long long n, unsigned* sink) {
  unsigned acc = 0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    acc ^= __ldcg(p + i).x;
  if (acc == 0x12345678u) *sink = acc;
}

struct layer {
  const char* name;
  int n, hw, c;
};

struct buffers {
  void *x, *w, *y;
  uint4* flush;
  long long flush_n;
  unsigned* sink;
};

template <typename K>
float time_us(const void* kernel, const layer& l, const buffers& b, int repeats) {
  kc::conv_args a{b.x, b.w, b.y, l.n, l.c, l.hw, l.hw, l.c, l.hw, l.hw, 7, 7, 1, 1, 3, 3, 1, 1, l.c, 1.f, 0.f};
  const int tiles = ((l.hw + K::tile_h_ - 1) / K::tile_h_) * ((l.hw + K::tile_w_ - 1) / K::tile_w_);
  const dim3 grid(tiles, (l.c + K::block_c_ - 1) / K::block_c_, l.n);
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, K::smem_bytes);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  std::vector<float> t;
  for (int i = 0; i < repeats; ++i) {
    read_flush<<<1056, 256>>>(b.flush, b.flush_n, b.sink);
    cudaEventRecord(e0);
    void* params[] = {&a};
    cudaLaunchKernel(kernel, grid, dim3(K::block_threads), params, K::smem_bytes, nullptr);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    t.push_back(ms * 1000.f);
  }
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) std::printf("error: %s\n", cudaGetErrorString(err));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <typename K>
void run_layer(const layer& l, const buffers& b, const char* only) {
  struct variant {
    const char* name;
    const void* kernel;
  };
  const variant vs[] = {
      {"full", reinterpret_cast<const void*>(&entry<phases<K, load | mma | store>>)},
      {"load+store", reinterpret_cast<const void*>(&entry<phases<K, load | store>>)},
      {"load+mma", reinterpret_cast<const void*>(&entry<phases<K, load | mma>>)},
      {"mma", reinterpret_cast<const void*>(&entry<phases<K, mma>>)},
      {"load", reinterpret_cast<const void*>(&entry<phases<K, load>>)},
      {"store", reinterpret_cast<const void*>(&entry<phases<K, store>>)},
      {"load+2mma+store", reinterpret_cast<const void*>(&entry<phases<K, load | mma_twice | store>>)},
  };
  std::string line = std::string("| ") + l.name + " |";
  for (const variant& v : vs) {
    if (only && std::strcmp(only, v.name) != 0) continue;
    line += " " + std::to_string(time_us<K>(v.kernel, l, b, only ? 200 : 30)).substr(0, 6) + " |";
  }
  std::printf("%s\n", line.c_str());
}

int main(int argc, char** argv) {
  const char* only = argc > 2 && std::strcmp(argv[1], "--only") == 0 ? argv[2] : nullptr;
  buffers b{};
  const std::size_t bytes = 64ull << 20;  // x and y of the largest layer (16 x 64 x 64 x 384 halves: 48 MiB)
  cudaMalloc(&b.x, bytes);
  cudaMalloc(&b.y, bytes);
  cudaMalloc(&b.w, 1 << 20);
  cudaMemset(b.x, 0x30, bytes);  // halves of 0x3030 (0.13) and 0x2c2c (0.06): nonzero MMAs
  cudaMemset(b.w, 0x2c, 1 << 20);
  b.flush_n = (256ll << 20) / 16;
  cudaMalloc(&b.flush, b.flush_n * 16);
  cudaMemset(b.flush, 0, b.flush_n * 16);
  cudaMalloc(&b.sink, 4);
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
