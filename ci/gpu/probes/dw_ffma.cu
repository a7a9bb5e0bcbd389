// Device probe: depthwise 7x7 f16 NHWC on CUDA cores with the filter in registers (f32 FMAs, f32
// accumulation), against stage 3 (tensor cores) on the same inputs. Usage, on the GPU machine:
// bash ci/gpu/probes/dw_ffma.sh.
//
// The question: stages 0-2 reached 27% of the FP32 FMA peak (docs/conv-h200.md), reading their
// taps from shared memory for every few FMAs. Here one lane owns one channel, holds its R x R taps
// and R x WT accumulators in registers, and walks the input rows of a strip of HS output rows:
// each input row's WT + R - 1 columns are read once from the block's patch in shared memory and
// feed up to R x R x WT FMAs, every one useful. An output row is stored when its last tap row has
// been added. Each configuration is also timed with only its patch copy and with only its
// compute phase. C and the image size are template parameters: every address is a constant
// offset, an advantage a library kernel would not have.
// The FMA floor on the H200 (132 SMs x 128 lanes x ~1.98 GHz): 32x28x28x512 7x7 is 629 M FMAs,
// about 18.8 us; 4x torch needs about 27 us there. Findings: docs/conv-h200.md, "The filter on
// CUDA cores".
#include <cmath>

#include "depthwise_probe.hpp"

namespace {

constexpr int R = 7, PAD = 3;

// Lane = channel (32 adjacent channels a warp), warp = a column tile of WT outputs, block =
// WARPS column tiles of one strip of HS output rows of one image and channel group. The block
// first copies its input patch, (HS + R - 1) x (WARPS * WT + R - 1) pixels of its 32 channels,
// into shared memory (cp.async, zero-filled outside the image), so that the compute loop reads
// each input with one 2-byte shared load at a constant offset and no bounds test.
template <int WT, int HS, int WARPS>
struct ffma_shape {
  static constexpr int ph = HS + R - 1, pw = WARPS * WT + R - 1;
  static constexpr int smem_bytes = ph * pw * 64;
};

// LOOP: 0 every input row unrolled (straight-line code), 1 a loop of one input row whose
// accumulator rows shift by register moves, 7 a loop of seven input rows (the rows' roles fixed by
// position). MODE: 1 load the patch, 2 compute and store, 3 both.
template <int WT, int HS, int WARPS, int MINB, int C, int HW, int LOOP, int MODE>
__global__ void __launch_bounds__(WARPS * 32, MINB)
    ffma_kernel(const __half* __restrict__ x, const __half* __restrict__ w, __half* __restrict__ y) {
  using shape = ffma_shape<WT, HS, WARPS>;
  constexpr int h = HW, wd = HW, IW = WT + R - 1, PW = shape::pw, PH = shape::ph;
  extern __shared__ __align__(16) unsigned char smem[];
  const int tid = static_cast<int>(threadIdx.x), lane = tid % 32, warp = tid / 32;
  constexpr int tiles_w = (wd + WT - 1) / WT, tile_groups = (tiles_w + WARPS - 1) / WARPS;
  constexpr int cgroups = C / 32, strips = (h + HS - 1) / HS;
  int b = static_cast<int>(blockIdx.x);
  const int tg = b % tile_groups;
  b /= tile_groups;
  const int cg = b % cgroups;
  b /= cgroups;
  const int strip = b % strips, img = b / strips;
  const int colb = tg * WARPS * WT, row0 = strip * HS;

  // The patch: pixel (i, k) of the patch, 16-byte part q of its 64 bytes.
  const unsigned patch = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  for (int t = tid; t < (MODE & 1 ? PH * PW * 4 : 0); t += WARPS * 32) {
    const int q = t % 4, pix = t / 4, i = pix / PW, k = pix % PW;
    const int ih = row0 - PAD + i, iw = colb - PAD + k;
    const bool ok = static_cast<unsigned>(ih) < static_cast<unsigned>(h) && static_cast<unsigned>(iw) < static_cast<unsigned>(wd);
    const __half* src = x + ((static_cast<long long>(img) * h + (ok ? ih : 0)) * wd + (ok ? iw : 0)) * C + cg * 32 + q * 8;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(patch + 16u * t), "l"(src), "r"(ok ? 16 : 0));
  }
  asm volatile("cp.async.commit_group;");

  const int ch = cg * 32 + lane, col0 = colb + warp * WT;
  float tap[R][R];
#pragma unroll
  for (int r = 0; r < R; ++r)
#pragma unroll
    for (int s = 0; s < R; ++s) tap[r][s] = __half2float(w[(ch * R + r) * R + s]);
  __half* yb = y + ((static_cast<long long>(img) * h + row0) * wd + col0) * C + ch;

  asm volatile("cp.async.wait_all;" ::: "memory");
  __syncthreads();
  if (col0 >= wd || !(MODE & 2)) return;
  const __half* sp = reinterpret_cast<const __half*>(smem) + warp * WT * 32 + lane;

  float acc[R][WT];
#pragma unroll
  for (int j = 0; j < R; ++j)
#pragma unroll
    for (int k = 0; k < WT; ++k) acc[j][k] = 0.f;

  // Input row i: its FMAs into accumulator row `slot(r)` (output row i - r of the strip, r the tap
  // row), then output row i - (R - 1), complete, is stored from slot(R - 1) and that row zeroed.
  auto row_step = [&](int i, auto slot) {
    float in[IW];
#pragma unroll
    for (int k = 0; k < IW; ++k) in[k] = __half2float(sp[(i * PW + k) * 32]);
#pragma unroll
    for (int r = 0; r < R; ++r) {
      if (i - r < 0 || i - r >= HS) continue;
#pragma unroll
      for (int k = 0; k < WT; ++k)
#pragma unroll
        for (int s = 0; s < R; ++s) acc[slot(r)][k] = fmaf(in[k + s], tap[r][s], acc[slot(r)][k]);
    }
    const int done = i - (R - 1);
    if (done >= 0 && row0 + done < h) {
#pragma unroll
      for (int k = 0; k < WT; ++k)
        if (col0 + k < wd) yb[(done * wd + k) * C] = __float2half_rn(acc[slot(R - 1)][k]);
    }
#pragma unroll
    for (int k = 0; k < WT; ++k) acc[slot(R - 1)][k] = 0.f;
  };
  if constexpr (LOOP == 0) {
#pragma unroll
    for (int i = 0; i < PH; ++i) row_step(i, [&](int r) { return ((i - r) % R + R) % R; });
  } else if constexpr (LOOP == 1) {
#pragma unroll 1
    for (int i = 0; i < PH; ++i) {
      row_step(i, [](int r) { return r; });
#pragma unroll
      for (int r = R - 1; r > 0; --r)
#pragma unroll
        for (int k = 0; k < WT; ++k) acc[r][k] = acc[r - 1][k];
#pragma unroll
      for (int k = 0; k < WT; ++k) acc[0][k] = 0.f;
    }
  } else {
#pragma unroll 1
    for (int i0 = 0; i0 < PH; i0 += R) {
#pragma unroll
      for (int u = 0; u < R; ++u)
        if (i0 + u < PH) row_step(i0 + u, [&](int r) { return ((u - r) % R + R) % R; });
    }
  }
}

std::vector<unsigned short> download(const void* p, std::size_t count) {
  std::vector<unsigned short> v(count);
  cudaMemcpy(v.data(), p, count * 2, cudaMemcpyDeviceToHost);
  return v;
}

struct diff {
  int mismatches;
  float max_abs;
};

diff compare(const std::vector<unsigned short>& got, const std::vector<unsigned short>& ref) {
  diff d{0, 0.f};
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i] != ref[i]) ++d.mismatches;
    const float e = std::fabs(__half2float(__ushort_as_half(got[i])) - __half2float(__ushort_as_half(ref[i])));
    d.max_abs = std::max(d.max_abs, e);
  }
  return d;
}

void* g_y2 = nullptr;  // the reference output

// One configuration's kernel, its shared memory allowed (outside any timed region), and a launch
// on the probe's tensors.
template <int WT, int HS, int WARPS, int MINB, int C, int HW, int LOOP, int MODE>
auto ffma_launcher(const layer& l, const buffers& b) {
  const void* kernel = reinterpret_cast<const void*>(&ffma_kernel<WT, HS, WARPS, MINB, C, HW, LOOP, MODE>);
  constexpr int smem = ffma_shape<WT, HS, WARPS>::smem_bytes;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  const int tiles_w = (l.hw + WT - 1) / WT, tile_groups = (tiles_w + WARPS - 1) / WARPS;
  const int blocks = tile_groups * (l.c / 32) * ((l.hw + HS - 1) / HS) * l.n;
  return [=, &b] {
    ffma_kernel<WT, HS, WARPS, MINB, C, HW, LOOP, MODE><<<blocks, WARPS * 32, smem>>>(
        static_cast<const __half*>(b.x), static_cast<const __half*>(b.w), static_cast<__half*>(b.y));
  };
}

template <int WT, int HS, int WARPS, int MINB, int C, int HW, int LOOP, int MODE>
float time_ffma(const layer& l, const buffers& b) {
  return probe::median_us(ffma_launcher<WT, HS, WARPS, MINB, C, HW, LOOP, MODE>(l, b), b.flush, 30);
}

template <int WT, int HS, int WARPS, int MINB, int C, int HW, int LOOP>
void run_ffma(const layer& l, const buffers& b, const std::vector<unsigned short>& ref) {
  const void* kernel = reinterpret_cast<const void*>(&ffma_kernel<WT, HS, WARPS, MINB, C, HW, LOOP, 3>);
  cudaFuncAttributes attr{};
  cudaFuncGetAttributes(&attr, kernel);
  const auto launch = ffma_launcher<WT, HS, WARPS, MINB, C, HW, LOOP, 3>(l, b);
  int per_sm = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, WARPS * 32, ffma_shape<WT, HS, WARPS>::smem_bytes);
  const std::size_t count = static_cast<std::size_t>(l.n) * l.hw * l.hw * l.c;
  cudaMemset(b.y, 0, count * 2);
  launch();
  const cudaError_t err = cudaDeviceSynchronize();
  const diff d = compare(download(b.y, count), ref);
  const float us = probe::median_us(launch, b.flush, 30);
  const float load_us = time_ffma<WT, HS, WARPS, MINB, C, HW, LOOP, 1>(l, b);
  const float compute_us = time_ffma<WT, HS, WARPS, MINB, C, HW, LOOP, 2>(l, b);
  std::printf("| %s | ffma wt%d hs%d %dw minb%d loop%d | %d regs, %d B local | %d x %d warps | %.1f (load %.1f, compute %.1f) | %s%s |\n", l.name, WT, HS,
              WARPS, MINB, LOOP, attr.numRegs, static_cast<int>(attr.localSizeBytes), per_sm, WARPS, us, load_us, compute_us,
              err != cudaSuccess ? cudaGetErrorString(err) : d.mismatches == 0 ? "bit-exact" : "",
              d.mismatches == 0 ? "" : (" " + std::to_string(d.mismatches) + " differ, max " + std::to_string(d.max_abs)).c_str());
}

template <typename K>
void run_stage3(const layer& l, const buffers& b, const char* name, const std::vector<unsigned short>& ref) {
  const void* kernel = reinterpret_cast<const void*>(&entry<K>);
  const std::size_t count = static_cast<std::size_t>(l.n) * l.hw * l.hw * l.c;
  cudaMemset(b.y, 0, count * 2);
  time_us<K>(kernel, l, b, 1);
  const diff d = compare(download(b.y, count), ref);
  int per_sm = 0;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, K::smem_bytes);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, K::block_threads, K::smem_bytes);
  std::printf("| %s | %s | | %d x %d warps | %.1f | %d differ from the reference, max %.4f |\n", l.name, name, per_sm,
              K::warps, time_us<K>(kernel, l, b, 30), d.mismatches, d.max_abs);
}

std::vector<unsigned short> reference(const layer& l, const buffers& b) {
  const std::size_t count = static_cast<std::size_t>(l.n) * l.hw * l.hw * l.c;
  reference_7x7<<<4096, 256>>>(static_cast<const __half*>(b.x), static_cast<const __half*>(b.w),
                               static_cast<__half*>(g_y2), l.n, l.hw, l.hw, l.c);
  cudaDeviceSynchronize();
  return download(g_y2, count);
}

}  // namespace

int main() {
  const probe::l2_flush flush(256ull << 20);
  const buffers b = make_buffers(flush);
  cudaMalloc(&g_y2, probe_bytes);
  randomize(b);
  std::printf("| layer | kernel | registers | resident | us | output against the f32 reference |\n");
  std::printf("| --- | --- | --- | --- | ---: | --- |\n");
  for (int rep = 0; rep < 2; ++rep) {
    {
      const layer& l = l512;
      const auto ref = reference(l, b);
      run_stage3<stage3<7, 32, 28, 32, 4>>(l, b, "stage 3 c32_t28x32 (dispatched)", ref);
      run_ffma<7, 14, 4, 4, 512, 28, 0>(l, b, ref);
      run_ffma<7, 14, 4, 4, 512, 28, 1>(l, b, ref);
      run_ffma<7, 14, 4, 4, 512, 28, 7>(l, b, ref);
      run_ffma<7, 7, 4, 4, 512, 28, 1>(l, b, ref);
      run_ffma<7, 28, 4, 4, 512, 28, 1>(l, b, ref);
      run_ffma<7, 28, 4, 4, 512, 28, 7>(l, b, ref);
      run_ffma<4, 28, 4, 4, 512, 28, 1>(l, b, ref);
      run_ffma<7, 14, 4, 3, 512, 28, 1>(l, b, ref);
      run_ffma<7, 28, 4, 3, 512, 28, 1>(l, b, ref);
      run_ffma<5, 28, 4, 4, 512, 28, 1>(l, b, ref);
    }
    {
      const layer& l = l256;
      const auto ref = reference(l, b);
      run_stage3<stage3<7, 32, 28, 32, 4>>(l, b, "stage 3 c32_t28x32 (dispatched)", ref);
      run_ffma<7, 14, 4, 4, 256, 28, 1>(l, b, ref);
      run_ffma<7, 14, 4, 4, 256, 28, 7>(l, b, ref);
      run_ffma<7, 28, 4, 4, 256, 28, 1>(l, b, ref);
    }
    {
      const layer& l = l128;
      const auto ref = reference(l, b);
      run_stage3<stage3<7, 64, 16, 56, 4>>(l, b, "stage 3 c64_t16x56 (dispatched)", ref);
      run_ffma<7, 14, 8, 2, 128, 56, 1>(l, b, ref);
      run_ffma<7, 14, 8, 2, 128, 56, 7>(l, b, ref);
      run_ffma<7, 28, 8, 2, 128, 56, 1>(l, b, ref);
      run_ffma<7, 28, 8, 2, 128, 56, 7>(l, b, ref);
    }
    {
      const layer& l = l384;
      const auto ref = reference(l, b);
      run_stage3<stage3<7, 64, 16, 64, 4>>(l, b, "stage 3 c64_t16x64", ref);
      run_ffma<8, 16, 8, 2, 384, 64, 1>(l, b, ref);
      run_ffma<8, 16, 8, 2, 384, 64, 7>(l, b, ref);
      run_ffma<8, 32, 8, 2, 384, 64, 1>(l, b, ref);
      run_ffma<8, 32, 8, 2, 384, 64, 7>(l, b, ref);
    }
  }
  return 0;
}
