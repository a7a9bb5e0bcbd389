// The depthwise convolution family, instantiated directly with nvcc, planned with plan_launch and
// checked against the host f64 reference on awkward shapes: 1, 13 (not a multiple of the vector)
// and 64 channels, 1x1, 7x7 and 17x17 images (one output, edge tiles), "same" and no padding,
// stride 1 and 2, NHWC and NCHW, inputs through L1 (3x3 to 31x31), staged as the dtype and
// staged as f32, several outputs per thread along H (ph) and W (pw), one and two channel groups
// per thread, groups split across 16-byte chunks (vec 8 staged as f32), 3x3 to 31x31, f16 / bf16 / f32,
// alpha and beta, and tensors (x, w and y) one element off their alignment, which defeats every
// vector access. Outputs are poisoned with NaN first (beta == 0). mma (tensor cores) with one
// to eight 16-byte chunks per pixel, tile heights that are and are not multiples of 16, and 3x3 to
// 31x31 filters (one to four 8-tap chunks); mma_tma (mma fed by a TMA copy) likewise, with
// the copy's validity checked (TMA where x allows it, plain loads otherwise); mma_seg (segments,
// persistent, TMA in and out) on 3x3 to 7x7, segments of 2 to 7 rows, one and two slot sets, 16
// and 32 channels a block, f16 and bf16, and what it refuses (C not a multiple of 8: the plan;
// misaligned tensors: the launcher). 24 channels end in a partial channel group.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "cuop/kernels/conv/depthwise.cuh"
#include "cuop/kernels/conv/family.hpp"
#include "cuop/kernels/conv/launch.hpp"
#include "cuop/reference/conv_reference.hpp"
#include "cuop/reference/softmax_reference.hpp"
#include "gpu_test_support.hpp"

namespace {

namespace kc = cuop::kernels::conv;
using algo = kc::depthwise_algo;
namespace ref = cuop::reference;
using cuop::dtype;

// As tuner/ops/conv2d/conv2d_op.cpp's entry: a minimum of one block per SM for direct, smem and smem_f32 keeps ptxas from
// capping the registers of blocks whose thread count is not a multiple of 128 (they spill
// otherwise); mma asks for as many blocks as the shared memory holds.
template <typename K>
__global__ void __launch_bounds__(K::block_threads, K::min_blocks) entry(kc::conv_args a) {
  extern __shared__ __align__(16) unsigned char smem[];
  K::run(a, smem);
}
// mma_tma's, as the tuner's: its tensor map after conv_args.
template <typename K>
__global__ void __launch_bounds__(K::block_threads, K::min_blocks)
    entry_tma(kc::conv_args a, const __grid_constant__ kc::tma_input in) {
  extern __shared__ __align__(128) unsigned char smem_tma[];
  K::run_tma(a, in, smem_tma);
}

// mma_seg's: its tensor maps after conv_args, its boxes 1024-byte aligned.
template <typename K>
__global__ void __launch_bounds__(K::block_threads, K::min_blocks)
    entry_seg(kc::conv_args a, const __grid_constant__ kc::tma_input in) {
  extern __shared__ __align__(1024) unsigned char smem_seg[];
  K::run_seg(a, in, smem_seg);
}

using cuop::test::to_host;

struct variant {
  int c, hw, pad;  // pad < 0: r / 2 ("same" for odd filters)
  float alpha, beta;
  int offset;  // elements added to the x, w and y pointers (1: no vector accesses)
};

const variant variants[] = {
    {64, 17, -1, 1.f, 0.f, 0}, {13, 17, -1, 1.f, 0.f, 0},    {1, 7, -1, 1.5f, 0.5f, 0},   {64, 7, 0, 1.f, 0.f, 0},
    {64, 1, -1, 1.f, 0.f, 0},  {64, 17, -1, -1.f, 0.25f, 1}, {64, 9, -1, 0.5f, 0.75f, 0}, {24, 9, -1, 1.f, 0.f, 0},
};

void run_variant(const kc::depthwise_config& cfg, const void* kernel, const variant& v) {
  kc::conv_shape sh;
  sh.n = 2;
  sh.c = sh.k = sh.groups = v.c;
  sh.h = sh.w = v.hw;
  sh.r = cfg.r;
  sh.s = cfg.s;
  sh.stride_h = sh.stride_w = cfg.stride;
  sh.pad_h = sh.pad_w = v.pad < 0 ? cfg.r / 2 : v.pad;
  sh.lay = cfg.lay;
  if (!kc::check_shape(sh).empty()) return;  // e.g. no padding and a filter larger than the image
  SCOPED_TRACE(kc::instance_name(cfg) + " c " + std::to_string(v.c) + " hw " + std::to_string(v.hw) + " pad " +
               std::to_string(sh.pad_h) + " alpha " + std::to_string(v.alpha) + " beta " + std::to_string(v.beta) +
               " offset " + std::to_string(v.offset));
  int device = 0;
  CUOP_CUDA_ASSERT(cudaGetDevice(&device));
  kc::device_limits dev;
  CUOP_CUDA_ASSERT(kc::query_limits(device, dev));
  kc::launch_plan plan;
  if (cfg.algo == algo::mma_seg && sh.c % 8 != 0) {  // TMA only: refused by the plan
    EXPECT_NE(kc::plan_launch(cfg, sh, dev, plan).find("is not a multiple of 8"), std::string::npos);
    return;
  }
  ASSERT_EQ(kc::plan_launch(cfg, sh, dev, plan), "");

  const long long xn = 1LL * sh.n * sh.c * sh.h * sh.w, wn = 1LL * sh.k * sh.r * sh.s,
                  yn = 1LL * sh.n * sh.k * sh.p() * sh.q();
  const std::size_t es = cuop::size_of(cfg.t);
  unsigned char *x = nullptr, *w = nullptr, *y = nullptr;
  CUOP_CUDA_ASSERT(cudaMalloc(&x, (xn + v.offset) * es));
  CUOP_CUDA_ASSERT(cudaMalloc(&w, (wn + v.offset) * es));
  CUOP_CUDA_ASSERT(cudaMalloc(&y, (yn + v.offset) * es));
  const unsigned long long seed = 7919ULL * v.c + 31ULL * v.hw + cfg.r;
  unsigned char* const x_data = x + v.offset * es;
  unsigned char* const w_data = w + v.offset * es;
  unsigned char* const y_data = y + v.offset * es;
  CUOP_CUDA_ASSERT(ref::fill_random(cfg.t, x_data, xn, seed, -1.f, 1.f, nullptr));
  CUOP_CUDA_ASSERT(ref::fill_random(cfg.t, w_data, wn, seed + 1, -1.f, 1.f, nullptr));
  if (v.beta != 0.f) CUOP_CUDA_ASSERT(ref::fill_random(cfg.t, y_data, yn, seed + 2, -1.f, 1.f, nullptr));
  else CUOP_CUDA_ASSERT(ref::fill_nan(cfg.t, y_data, yn, nullptr));
  CUOP_CUDA_ASSERT(cudaDeviceSynchronize());
  const auto hx = to_host(cfg.t, x_data, xn), hw = to_host(cfg.t, w_data, wn), hy0 = to_host(cfg.t, y_data, yn);
  std::vector<double> expect(yn);
  ref::conv2d_reference_cpu(sh, hx.data(), hw.data(), expect.data());

  kc::conv_args a{x_data, w_data,      y_data,      sh.n,     sh.c,     sh.h, sh.w, sh.k,      sh.p(),  sh.q(), sh.r,
                  sh.s,   sh.stride_h, sh.stride_w, sh.pad_h, sh.pad_w, 1,    1,    sh.groups, v.alpha, v.beta};
  // via_nhwc: the kernel reads and writes the workspace's NHWC copies, aligned whatever x and y are.
  void* workspace = nullptr;
  if (const std::size_t bytes = kc::workspace_bytes(cfg, sh); bytes > 0)
    CUOP_CUDA_ASSERT(cudaMalloc(&workspace, bytes));
  if (!cfg.via_nhwc &&
      (cfg.algo == algo::mma_tma ||
       cfg.algo == algo::mma_seg)) {  // the TMA path wherever x allows it (C a multiple of 8, x 16-byte aligned)
    kc::tma_input in;
    kc::make_tma_input(cfg, a, in);
    EXPECT_EQ(in.valid, sh.c % 8 == 0 && v.offset == 0 ? 1 : 0);
  }
  if (!cfg.via_nhwc && cfg.algo == algo::mma_seg &&
      v.offset != 0) {  // misaligned: refused, not started (conv2d stages such tensors)
    EXPECT_EQ(kc::launch(cfg, kernel, plan, a, nullptr), cudaErrorInvalidValue);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    cudaFree(x);
    cudaFree(w);
    cudaFree(y);
    return;
  }
  CUOP_CUDA_ASSERT(kc::launch(cfg, kernel, plan, a, workspace, nullptr));
  CUOP_CUDA_ASSERT(cudaDeviceSynchronize());
  cudaFree(workspace);
  const auto got = to_host(cfg.t, y_data, yn);
  const double atol = ref::conv_atol(cfg.t, sh) * (std::fabs(v.alpha) + 1.0), rtol = ref::conv_rtol(cfg.t);
  long long bad = 0, first = -1;
  for (long long i = 0; i < yn; ++i) {
    const double want = v.alpha * expect[i] + (v.beta != 0.f ? v.beta * hy0[i] : 0.0);
    const bool ok = std::isfinite(got[i]) && std::fabs(got[i] - want) <= atol + rtol * std::fabs(want);
    if (!ok && bad++ < 3)
      ADD_FAILURE() << "element " << i << ": got " << got[i] << ", want " << want << " = " << v.alpha << " x "
                    << expect[i] << " + " << v.beta << " x " << hy0[i];
    if (!ok && first < 0) first = i;
  }
  EXPECT_EQ(bad, 0) << "first bad element " << first << ": got " << (first >= 0 ? got[first] : 0.f) << ", want "
                    << (first >= 0 ? v.alpha * expect[first] : 0.0);
  cudaFree(x);
  cudaFree(w);
  cudaFree(y);
}

template <typename K, algo ALGO>
void check_config(const kc::depthwise_config& cfg) {
  ASSERT_EQ(kc::check_config(cfg), "");
  ASSERT_EQ(kc::threads_per_block(cfg), K::block_threads);
  ASSERT_EQ(kc::smem_bytes(cfg), K::smem_bytes);
  ASSERT_EQ(kc::min_blocks_per_sm(cfg), K::min_blocks);
  const void* kernel = nullptr;
  if constexpr (ALGO == algo::mma_seg) kernel = reinterpret_cast<const void*>(&entry_seg<K>);
  else if constexpr (ALGO == algo::mma_tma) kernel = reinterpret_cast<const void*>(&entry_tma<K>);
  else kernel = reinterpret_cast<const void*>(&entry<K>);
  for (const variant& v : variants) {
    run_variant(cfg, kernel, v);
    if (testing::Test::HasFatalFailure()) return;
  }
}

kc::depthwise_config make(dtype t, bool nhwc, int r, int stride, int vec, int cvecs, int block_c, int tile_h,
                          int tile_w, int ph, int pw, kc::depthwise_algo algo) {
  kc::depthwise_config c;
  c.t = t;
  c.lay = nhwc ? kc::layout::nhwc : kc::layout::nchw;
  c.r = c.s = r;
  c.stride = stride;
  c.vec = vec;
  c.cvecs = cvecs;
  c.block_c = block_c;
  c.tile_h = tile_h;
  c.tile_w = tile_w;
  c.ph = ph;
  c.pw = pw;
  c.algo = algo;
  return c;
}

kc::depthwise_config via_nhwc(kc::depthwise_config c) {
  c.lay = kc::layout::nchw;
  c.via_nhwc = 1;
  return c;
}

using bf16 = __nv_bfloat16;

}  // namespace

#define CUOP_DW_TEST(NAME, T, DT, NHWC, R, ST, V, CV, BC, TH, TW, PH, PW, ALGO)                        \
  TEST(sm80_conv_depthwise, NAME) {                                                                    \
    CUOP_REQUIRE_GPU();                                                                                \
    check_config<kc::depthwise<T, NHWC, R, R, ST, V, CV, BC, TH, TW, PH, PW, algo::ALGO>, algo::ALGO>( \
        make(DT, NHWC, R, ST, V, CV, BC, TH, TW, PH, PW, algo::ALGO));                                 \
  }

// mma_tma plans only on sm_90 and newer (TMA); older devices skip it, saying so.
#define CUOP_DW_TMA_TEST(NAME, T, DT, R, CV, BC, TH, TW)                                                  \
  TEST(sm90_conv_depthwise, NAME) {                                                                       \
    CUOP_REQUIRE_GPU();                                                                                   \
    int device = 0, major = 0;                                                                            \
    CUOP_CUDA_ASSERT(cudaGetDevice(&device));                                                             \
    CUOP_CUDA_ASSERT(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));          \
    if (major < 9) GTEST_SKIP() << "algo mma_tma loads through TMA: compute capability 9.0 or newer";     \
    check_config<kc::depthwise<T, true, R, R, 1, 8, CV, BC, TH, TW, 1, 1, algo::mma_tma>, algo::mma_tma>( \
        make(DT, true, R, 1, 8, CV, BC, TH, TW, 1, 1, algo::mma_tma));                                    \
  }

// algo: direct, inputs through L1; smem, staged as the dtype; smem_f32, staged as f32.
// 3x3, one row of four outputs per thread, staged as f16.
CUOP_DW_TEST(f16_nhwc_r3_st1_ph1_pw4_smem, __half, dtype::f16, true, 3, 1, 8, 1, 32, 4, 8, 1, 4, smem)
// Stride 2 through L1, two groups per thread (interleaved), 2 x 2 outputs per thread.
CUOP_DW_TEST(f16_nhwc_r3_st2_cv2_ph2_pw2_direct, __half, dtype::f16, true, 3, 2, 8, 2, 64, 4, 8, 2, 2, direct)
// direct beyond 3x3 at ph 2, where NVVM once rebuilt the last input row's tap addresses one tap
// row too far (depthwise.cuh, compute): 31x31 at 128 and 64 threads, 7x7 at 256, 5x5 f32 at 64.
CUOP_DW_TEST(f16_nhwc_r31_st1_v4_c16_t16x16_ph2_pw4_direct, __half, dtype::f16, true, 31, 1, 4, 1, 16, 16, 16, 2, 4,
             direct)
CUOP_DW_TEST(bf16_nhwc_r31_st1_v4_c16_t8x16_ph2_pw4_direct, bf16, dtype::bf16, true, 31, 1, 4, 1, 16, 8, 16, 2, 4,
             direct)
CUOP_DW_TEST(f16_nhwc_r7_st1_v4_c16_t16x32_ph2_pw4_direct, __half, dtype::f16, true, 7, 1, 4, 1, 16, 16, 32, 2, 4,
             direct)
CUOP_DW_TEST(f32_nhwc_r5_st1_v4_c16_t8x16_ph2_pw4_direct, float, dtype::f32, true, 5, 1, 4, 1, 16, 8, 16, 2, 4, direct)
// 3x3, 4-byte groups of two channels, two groups per thread, staged as f32.
CUOP_DW_TEST(f16_nhwc_r3_st1_v2_cv2_ph2_pw2_smem_f32, __half, dtype::f16, true, 3, 1, 2, 2, 32, 8, 8, 2, 2, smem_f32)
// 7x7 bf16 staged as f32 with 8-channel groups: a group is two 16-byte chunks.
CUOP_DW_TEST(bf16_nhwc_r7_st1_ph2_pw4_smem_f32, bf16, dtype::bf16, true, 7, 1, 8, 1, 16, 8, 16, 2, 4, smem_f32)
// 7x7 with the 4 x 8 outputs per thread of the fast configurations.
CUOP_DW_TEST(f16_nhwc_r7_st1_v4_ph4_pw8_smem_f32, __half, dtype::f16, true, 7, 1, 4, 1, 32, 8, 16, 4, 8, smem_f32)
// 5x5 f32, stride 2, ph 4: every input row of a thread is an edge row (unrolled).
CUOP_DW_TEST(f32_nhwc_r5_st2_v2_ph4_pw2_smem, float, dtype::f32, true, 5, 2, 2, 1, 16, 8, 8, 4, 2, smem)
// NCHW, f32, stride 2.
CUOP_DW_TEST(f32_nchw_r7_st2_ph2_pw2_smem, float, dtype::f32, false, 7, 2, 4, 1, 16, 4, 8, 2, 2, smem)
// NCHW f16 staged as f32 with 8-channel groups (split chunks in the patch and the output tile).
CUOP_DW_TEST(f16_nchw_r7_st1_ph2_pw4_smem_f32, __half, dtype::f16, false, 7, 1, 8, 1, 32, 8, 8, 2, 4, smem_f32)
// NCHW bf16 3x3 stride 2, one output per thread.
CUOP_DW_TEST(bf16_nchw_r3_st2_ph1_pw1_smem_f32, bf16, dtype::bf16, false, 3, 2, 8, 1, 64, 4, 4, 1, 1, smem_f32)
// 31x31 NCHW, f16.
CUOP_DW_TEST(f16_nchw_r31_st1_ph2_pw4_smem, __half, dtype::f16, false, 31, 1, 8, 1, 16, 8, 16, 2, 4, smem)
// 31x31 NHWC staged as the dtype, bf16, 2 x 8 outputs per thread of the fastest configuration.
CUOP_DW_TEST(bf16_nhwc_r31_st1_ph2_pw8_smem, bf16, dtype::bf16, true, 31, 1, 4, 1, 16, 8, 16, 2, 8, smem)
// 31x31 NHWC staged as f32, ph 4 (three edge rows at each end); 150 KiB of shared memory.
CUOP_DW_TEST(f16_nhwc_r31_st1_v2_ph4_pw4_smem_f32, __half, dtype::f16, true, 31, 1, 2, 1, 16, 8, 8, 4, 4, smem_f32)

// plane: NCHW along each channel's plane (vec 1, cvecs 1); filters up to 7 unrolled, larger ones
// in a loop; vector stores of 4, 8 and 16 bytes, and element stores where misaligned.
CUOP_DW_TEST(f16_nchw_r3_st1_c8_t16x32_ph2_pw4_plane, __half, dtype::f16, false, 3, 1, 1, 1, 8, 16, 32, 2, 4, plane)
CUOP_DW_TEST(bf16_nchw_r5_st1_c8_t16x32_ph4_pw4_plane, bf16, dtype::bf16, false, 5, 1, 1, 1, 8, 16, 32, 4, 4, plane)
CUOP_DW_TEST(f32_nchw_r3_st2_c32_t8x8_ph2_pw2_plane, float, dtype::f32, false, 3, 2, 1, 1, 32, 8, 8, 2, 2, plane)
CUOP_DW_TEST(f16_nchw_r7_st2_c16_t8x16_ph2_pw2_plane, __half, dtype::f16, false, 7, 2, 1, 1, 16, 8, 16, 2, 2, plane)
CUOP_DW_TEST(bf16_nchw_r31_st1_c4_t16x32_ph4_pw4_plane, bf16, dtype::bf16, false, 31, 1, 1, 1, 4, 16, 32, 4, 4, plane)
CUOP_DW_TEST(f16_nchw_r13_st2_c8_t8x16_ph2_pw4_plane, __half, dtype::f16, false, 13, 2, 1, 1, 8, 8, 16, 2, 4, plane)
CUOP_DW_TEST(f32_nchw_r9_st1_c16_t8x16_ph2_pw4_plane, float, dtype::f32, false, 9, 1, 1, 1, 16, 8, 16, 2, 4, plane)
CUOP_DW_TEST(f16_nchw_r3_st1_c32_t8x8_ph1_pw8_plane, __half, dtype::f16, false, 3, 1, 1, 1, 32, 8, 8, 1, 8, plane)
// mma, tensor cores (cvecs: channels per warp). 7x7 whole 28x28 images, 4 chunks per pixel.
CUOP_DW_TEST(f16_nhwc_r7_st1_c32_t28x32_mma, __half, dtype::f16, true, 7, 1, 8, 4, 32, 28, 32, 1, 1, mma)
// bf16 7x7, 2 chunks per pixel, 16x16 tiles (edge tiles on 17x17 images).
CUOP_DW_TEST(bf16_nhwc_r7_st1_c16_t16x16_mma, bf16, dtype::bf16, true, 7, 1, 8, 2, 16, 16, 16, 1, 1, mma)
// 3x3, one chunk per pixel, one warp.
CUOP_DW_TEST(f16_nhwc_r3_st1_c8_t16x8_mma, __half, dtype::f16, true, 3, 1, 8, 8, 8, 16, 8, 1, 1, mma)
// 5x5, three chunks per pixel (no bank-exact padding), a 20-row tile (rows 4..15 computed twice).
CUOP_DW_TEST(f16_nhwc_r5_st1_c24_t20x24_mma, __half, dtype::f16, true, 5, 1, 8, 3, 24, 20, 24, 1, 1, mma)
// 31x31 bf16: four 8-tap chunks per row.
CUOP_DW_TEST(bf16_nhwc_r31_st1_c16_t16x16_mma, bf16, dtype::bf16, true, 31, 1, 8, 2, 16, 16, 16, 1, 1, mma)
// 3x3 with 8 chunks per pixel (64 channels, the plane padded to 4 words modulo 32).
CUOP_DW_TEST(f16_nhwc_r3_st1_c64_t16x16_mma, __half, dtype::f16, true, 3, 1, 8, 8, 64, 16, 16, 1, 1, mma)

// mma_tma: mma with the patch through one TMA copy (its TMA path for 64 channels at offset 0;
// 13 and 1 channels and misaligned tensors take the plain loads). 7x7 with 4 chunks per pixel at
// the tile that won 16x64x64x384 on the H200; bf16 with a 64-wide tile (70-column box).
CUOP_DW_TMA_TEST(f16_nhwc_r7_c32_t16x32, __half, dtype::f16, 7, 4, 32, 16, 32)
CUOP_DW_TMA_TEST(bf16_nhwc_r7_c32_t16x64, bf16, dtype::bf16, 7, 4, 32, 16, 64)
// 5x5, three chunks per pixel (a 48-byte box row; 64 channels end in a partial group the copy
// zero-fills), a 20-row tile.
CUOP_DW_TMA_TEST(f16_nhwc_r5_c24_t20x24, __half, dtype::f16, 5, 3, 24, 20, 24)
// 3x3 with 8 chunks per pixel; 31x31 bf16 (a 46 x 46 box, four tap chunks a row).
CUOP_DW_TMA_TEST(f16_nhwc_r3_c64_t16x16, __half, dtype::f16, 3, 8, 64, 16, 16)
CUOP_DW_TMA_TEST(bf16_nhwc_r31_c16_t16x16, bf16, dtype::bf16, 31, 2, 16, 16, 16)

// mma_seg plans only on sm_90 and newer (TMA); older devices skip it, saying so.
#define CUOP_DW_SEG_TEST(NAME, T, DT, R, BC, TH, TW, PH)                                                  \
  TEST(sm90_conv_depthwise, NAME) {                                                                       \
    CUOP_REQUIRE_GPU();                                                                                   \
    int device = 0, major = 0;                                                                            \
    CUOP_CUDA_ASSERT(cudaGetDevice(&device));                                                             \
    CUOP_CUDA_ASSERT(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));          \
    if (major < 9) GTEST_SKIP() << "algo mma_seg loads through TMA: compute capability 9.0 or newer";     \
    check_config<kc::depthwise<T, true, R, R, 1, 8, 4, BC, TH, TW, PH, 1, algo::mma_seg>, algo::mma_seg>( \
        make(DT, true, R, 1, 8, 4, BC, TH, TW, PH, 1, algo::mma_seg));                                    \
  }

// mma_seg: segments of ph rows as the MMA's rows (64 and 24 channels through TMA; 13 and 1 channels
// refused by the plan, misaligned tensors by the launcher). 7x7 in the 28 x 32 tile of the 28- and
// 56-row layers (4 segments of 7 x 4 column tiles); bf16 in 16 x 32 (segments of 4, the odd ones'
// pixel pairs read in the other order); 8 segments of 7 x 2 column tiles (56 x 16); two slot sets
// (8 segments of 2 rows x 4 column tiles, 5x5); 3x3. Then 32 channels a block (64-byte pixels):
// the same 7x7 tiles, and two slot sets of 16 warps.
CUOP_DW_SEG_TEST(f16_nhwc_r7_c16_t28x32_ph7, __half, dtype::f16, 7, 16, 28, 32, 7)
CUOP_DW_SEG_TEST(bf16_nhwc_r7_c16_t16x32_ph4, bf16, dtype::bf16, 7, 16, 16, 32, 4)
CUOP_DW_SEG_TEST(f16_nhwc_r7_c16_t56x16_ph7, __half, dtype::f16, 7, 16, 56, 16, 7)
CUOP_DW_SEG_TEST(f16_nhwc_r5_c16_t16x32_ph2, __half, dtype::f16, 5, 16, 16, 32, 2)
CUOP_DW_SEG_TEST(bf16_nhwc_r3_c16_t16x16_ph2, bf16, dtype::bf16, 3, 16, 16, 16, 2)
CUOP_DW_SEG_TEST(f16_nhwc_r7_c32_t28x32_ph7, __half, dtype::f16, 7, 32, 28, 32, 7)
CUOP_DW_SEG_TEST(bf16_nhwc_r7_c32_t16x32_ph4, bf16, dtype::bf16, 7, 32, 16, 32, 4)
CUOP_DW_SEG_TEST(f16_nhwc_r7_c32_t56x16_ph7, __half, dtype::f16, 7, 32, 56, 16, 7)
CUOP_DW_SEG_TEST(f16_nhwc_r5_c32_t16x32_ph2, __half, dtype::f16, 5, 32, 16, 32, 2)

// via_nhwc: NCHW problems through the NHWC kernel (K, instantiated for NHWC), x and y transposed
// through the workspace; misaligned NCHW tensors too, since the kernel sees only the workspace.
#define CUOP_DW_VIA_TEST(NAME, T, DT, R, ST, V, CV, BC, TH, TW, PH, PW, ALGO, MIN_MAJOR)                        \
  TEST(sm80_conv_depthwise_via_nhwc, NAME) {                                                                    \
    CUOP_REQUIRE_GPU();                                                                                         \
    int device = 0, major = 0;                                                                                  \
    CUOP_CUDA_ASSERT(cudaGetDevice(&device));                                                                   \
    CUOP_CUDA_ASSERT(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));                \
    if (major < MIN_MAJOR) GTEST_SKIP() << "algo " #ALGO " loads through TMA: compute capability 9.0 or newer"; \
    check_config<kc::depthwise<T, true, R, R, ST, V, CV, BC, TH, TW, PH, PW, algo::ALGO>, algo::ALGO>(          \
        via_nhwc(make(DT, true, R, ST, V, CV, BC, TH, TW, PH, PW, algo::ALGO)));                                \
  }

CUOP_DW_VIA_TEST(f16_r3_st2_direct, __half, dtype::f16, 3, 2, 8, 1, 128, 4, 8, 1, 4, direct, 0)
CUOP_DW_VIA_TEST(f32_r9_st1_direct, float, dtype::f32, 9, 1, 4, 1, 64, 4, 8, 1, 4, direct, 0)
CUOP_DW_VIA_TEST(bf16_r13_st2_smem_f32, bf16, dtype::bf16, 13, 2, 4, 1, 32, 8, 8, 2, 2, smem_f32, 0)
CUOP_DW_VIA_TEST(bf16_r31_st1_mma, bf16, dtype::bf16, 31, 1, 8, 2, 16, 32, 32, 1, 1, mma, 0)
CUOP_DW_VIA_TEST(f16_r7_st1_mma_seg, __half, dtype::f16, 7, 1, 8, 4, 32, 16, 32, 4, 1, mma_seg, 9)
