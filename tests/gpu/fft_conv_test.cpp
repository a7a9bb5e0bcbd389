// The cuFFT conv2d back end on the GPU, against the host f64 reference, on awkward shapes: odd and
// rectangular sizes, batch 1 and 3, one channel, C and K not multiples of 8 nor of kb, filters
// 3x3 to 15x15 and 3x5, dilation 2, no padding and "same" padding, NHWC and NCHW, f32 / f16 /
// bf16, the whole output as one tile and tiles of 8, 16 and 32 (edge tiles cut short), both
// transform-size modes, every kb, alpha and beta. Outputs and the whole workspace are poisoned
// with NaN first, so a scratch element the kernels forget to write shows up. Also: refusals say
// why, run() refuses bad arguments, and a moved plan still runs.
#include <gtest/gtest.h>

#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "cuop/backends/fft_conv_backend.hpp"
#include "cuop/reference/conv_reference.hpp"
#include "cuop/reference/softmax_reference.hpp"
#include "gpu_test_support.hpp"

namespace {

namespace kc = cuop::kernels::conv;
namespace bk = cuop::backends;
namespace ref = cuop::reference;
using cuop::dtype;

using cuop::test::to_host;

struct variant {
  dtype t;
  kc::layout lay;
  int n, c, h, w, k, r, s;
  int pad_h, pad_w, dil;
  bk::fft_conv_config cfg;
  float alpha, beta;
};

constexpr auto nhwc = kc::layout::nhwc;
constexpr auto nchw = kc::layout::nchw;

// n * tiles of 3 (two per thread with a tail), 1 (one per thread) and >= 4 all occur; so do k
// below, equal to and above kb.
const variant variants[] = {
    // whole output, 13 x 13 "same" 3x3, three images, odd transform size 15
    {dtype::f32, nchw, 3, 3, 13, 13, 5, 3, 3, 1, 1, 1, {0, 0, 4}, 1.f, 0.f},
    // no padding, 7x7, k 7 < kb 8, powers of two
    {dtype::f32, nhwc, 2, 13, 17, 19, 7, 7, 7, 0, 0, 1, {0, 1, 8}, 1.f, 0.f},
    // 11x11 "same", 16-tiles with short edge tiles
    {dtype::f16, nhwc, 2, 5, 31, 29, 9, 11, 11, 5, 5, 1, {16, 0, 2}, 1.f, 0.f},
    // 15x15 "same", 32-tiles, powers of two, batch 1
    {dtype::bf16, nchw, 1, 6, 33, 33, 3, 15, 15, 7, 7, 1, {32, 1, 1}, 1.f, 0.f},
    // dilation 2, "same" padding 2, alpha and beta
    {dtype::f32, nhwc, 3, 4, 23, 21, 6, 3, 3, 2, 2, 2, {16, 0, 4}, 1.5f, 0.5f},
    // 7x7 dilation 2 (extent 13), padding 1, negative alpha and beta
    {dtype::f16, nchw, 2, 9, 30, 30, 10, 7, 7, 1, 1, 2, {0, 0, 8}, -1.f, 0.25f},
    // 15x15 without padding: a 6 x 10 output, tile 8 clamped to 6 rows
    {dtype::f32, nchw, 1, 2, 20, 24, 4, 15, 15, 0, 0, 1, {8, 0, 2}, 1.f, 0.f},
    // a 3x5 filter on one channel to one channel, batch 1: a single transform each
    {dtype::f32, nhwc, 1, 1, 9, 40, 1, 3, 5, 1, 2, 1, {0, 0, 1}, 1.f, 0.f},
    // more than 32 channels each way (two shared-memory blocks), 8-tiles
    {dtype::bf16, nhwc, 2, 37, 16, 16, 35, 3, 3, 1, 1, 1, {8, 0, 8}, 1.f, 0.f},
    // f16 NHWC with powers of two and beta
    {dtype::f16, nhwc, 1, 12, 19, 19, 11, 5, 5, 2, 2, 1, {8, 1, 4}, 2.f, -1.f},
};

kc::conv_shape shape_of(const variant& v) {
  kc::conv_shape sh;
  sh.n = v.n;
  sh.c = v.c;
  sh.h = v.h;
  sh.w = v.w;
  sh.k = v.k;
  sh.r = v.r;
  sh.s = v.s;
  sh.pad_h = v.pad_h;
  sh.pad_w = v.pad_w;
  sh.dil_h = sh.dil_w = v.dil;
  sh.lay = v.lay;
  return sh;
}

std::string describe(const variant& v) {
  char text[256];
  std::snprintf(text, sizeof text, "%s %s n%d c%d %dx%d k%d r%dx%d pad %dx%d dil %d %s alpha %g beta %g",
                std::string(cuop::name_of(v.t)).c_str(), std::string(kc::name_of(v.lay)).c_str(), v.n, v.c, v.h, v.w,
                v.k, v.r, v.s, v.pad_h, v.pad_w, v.dil, bk::fft_conv_config_id(v.cfg).c_str(), v.alpha, v.beta);
  return text;
}

void run_variant(const variant& v, cudaStream_t stream) {
  const kc::conv_shape sh = shape_of(v);
  SCOPED_TRACE(describe(v));
  ASSERT_EQ(kc::check_shape(sh), "");
  bk::fft_conv conv;
  std::string why;
  ASSERT_EQ(conv.init(v.t, sh, v.cfg, &why), cuop::status::success) << why;
  ASSERT_TRUE(conv.ready());
  const bk::fft_conv_sizes& z = conv.sizes();
  EXPECT_EQ(conv.workspace_bytes(), static_cast<std::size_t>(z.workspace_bytes));
  EXPECT_GE(z.workspace_bytes, z.buffer_bytes);
  EXPECT_EQ(z.buffer_bytes, bk::plan_fft_conv(v.t, sh, v.cfg).buffer_bytes);

  const long long xn = 1LL * sh.n * sh.c * sh.h * sh.w, wn = 1LL * sh.k * sh.c * sh.r * sh.s,
                  yn = 1LL * sh.n * sh.k * sh.p() * sh.q();
  const std::size_t es = cuop::size_of(v.t);
  void *x = nullptr, *w = nullptr, *y = nullptr, *ws = nullptr;
  CUOP_CUDA_ASSERT(cudaMalloc(&x, xn * es));
  CUOP_CUDA_ASSERT(cudaMalloc(&w, wn * es));
  CUOP_CUDA_ASSERT(cudaMalloc(&y, yn * es));
  CUOP_CUDA_ASSERT(cudaMalloc(&ws, conv.workspace_bytes()));
  const unsigned long long seed = 101ULL * v.c + 13ULL * v.k + v.r;
  CUOP_CUDA_ASSERT(ref::fill_random(v.t, x, xn, seed, -1.f, 1.f, stream));
  CUOP_CUDA_ASSERT(ref::fill_random(v.t, w, wn, seed + 1, -1.f, 1.f, stream));
  if (v.beta != 0.f) CUOP_CUDA_ASSERT(ref::fill_random(v.t, y, yn, seed + 2, -1.f, 1.f, stream));
  else CUOP_CUDA_ASSERT(ref::fill_nan(v.t, y, yn, stream));
  CUOP_CUDA_ASSERT(ref::fill_nan(dtype::f32, ws, static_cast<long long>(conv.workspace_bytes() / 4), stream));
  CUOP_CUDA_ASSERT(cudaStreamSynchronize(stream));
  const auto hx = to_host(v.t, x, xn), hw = to_host(v.t, w, wn), hy0 = to_host(v.t, y, yn);
  std::vector<double> expect(yn);
  ref::conv2d_reference_cpu(sh, hx.data(), hw.data(), expect.data());

  ASSERT_EQ(conv.run(x, w, y, v.alpha, v.beta, ws, stream, &why), cudaSuccess) << why;
  CUOP_CUDA_ASSERT(cudaStreamSynchronize(stream));
  const auto got = to_host(v.t, y, yn);
  const double atol = ref::conv_atol(v.t, sh) * (std::fabs(v.alpha) + 1.0), rtol = ref::conv_rtol(v.t);
  long long bad = 0, first = -1;
  double worst = 0, worst_err = 0;  // the largest error as a fraction of its tolerance
  for (long long i = 0; i < yn; ++i) {
    const double want = v.alpha * expect[i] + (v.beta != 0.f ? v.beta * hy0[i] : 0.0);
    const double err = std::fabs(got[i] - want), tol = atol + rtol * std::fabs(want);
    const bool ok = std::isfinite(got[i]) && err <= tol;
    if (!ok && bad++ == 0) first = i;
    if (std::isfinite(got[i]) && err / tol > worst) worst = err / tol, worst_err = err;
  }
  std::printf("[ fft_conv ] %s: lh x lw %dx%d, %dx%d tiles, largest error %.3g = %.3f of its tolerance\n",
              describe(v).c_str(), z.lh, z.lw, z.tiles_h, z.tiles_w, worst_err, worst);
  EXPECT_EQ(bad, 0) << "first bad element " << first << ": got " << (first >= 0 ? got[first] : 0.f) << ", want "
                    << (first >= 0 ? v.alpha * expect[first] + (v.beta != 0.f ? v.beta * hy0[first] : 0.0) : 0.0);

  if (v.beta == 0.f) {  // the plans are reused as they are: a second run gives the same bits
    CUOP_CUDA_ASSERT(ref::fill_nan(v.t, y, yn, stream));
    CUOP_CUDA_ASSERT(ref::fill_nan(dtype::f32, ws, static_cast<long long>(conv.workspace_bytes() / 4), stream));
    ASSERT_EQ(conv.run(x, w, y, v.alpha, v.beta, ws, stream, &why), cudaSuccess) << why;
    CUOP_CUDA_ASSERT(cudaStreamSynchronize(stream));
    const auto again = to_host(v.t, y, yn);
    EXPECT_EQ(std::memcmp(again.data(), got.data(), got.size() * sizeof(float)), 0);
  }
  cudaFree(x);
  cudaFree(w);
  cudaFree(y);
  cudaFree(ws);
}

}  // namespace

TEST(sm80_fft_conv, awkward_shapes_match_the_host_reference) {
  CUOP_REQUIRE_GPU();
  cudaStream_t stream = nullptr;
  CUOP_CUDA_ASSERT(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (const variant& v : variants) {
    run_variant(v, stream);
    if (testing::Test::HasFatalFailure()) break;
  }
  cudaStreamDestroy(stream);
}

TEST(sm80_fft_conv, refusals_say_why_and_leave_the_object_not_ready) {
  CUOP_REQUIRE_GPU();
  kc::conv_shape sh;
  sh.n = 1;
  sh.c = sh.k = 4;
  sh.h = sh.w = 16;
  sh.r = sh.s = 3;
  bk::fft_conv conv;
  std::string why;
  ASSERT_EQ(conv.init(dtype::f32, sh, {}, &why), cuop::status::success) << why;
  ASSERT_TRUE(conv.ready());

  kc::conv_shape strided = sh;
  strided.stride_h = strided.stride_w = 2;
  EXPECT_EQ(conv.init(dtype::f32, strided, {}, &why), cuop::status::unsupported);
  EXPECT_NE(why.find("stride 1"), std::string::npos) << why;
  EXPECT_FALSE(conv.ready());  // a failed init forgets the earlier plan

  kc::conv_shape grouped = sh;
  grouped.groups = 2;
  EXPECT_EQ(conv.init(dtype::f16, grouped, {}, &why), cuop::status::unsupported);
  EXPECT_NE(why.find("groups 1"), std::string::npos) << why;

  kc::conv_shape broken = sh;
  broken.pad_h = -1;
  EXPECT_EQ(conv.init(dtype::f16, broken, {}, &why), cuop::status::invalid_argument);
  EXPECT_NE(why.find("padding"), std::string::npos) << why;

  EXPECT_EQ(conv.init(dtype::f16, sh, {8, 0, 3}, &why), cuop::status::unsupported);
  EXPECT_NE(why.find("kb 3"), std::string::npos) << why;

  // run() without a plan, or without a workspace, refuses before touching anything.
  void* buffer = nullptr;
  CUOP_CUDA_ASSERT(cudaMalloc(&buffer, 1 << 20));
  EXPECT_EQ(conv.run(buffer, buffer, buffer, 1.f, 0.f, buffer, nullptr, &why), cudaErrorInvalidValue);
  EXPECT_NE(why.find("before a successful init"), std::string::npos) << why;
  ASSERT_EQ(conv.init(dtype::f32, sh, {}, &why), cuop::status::success) << why;
  EXPECT_EQ(conv.run(buffer, buffer, buffer, 1.f, 0.f, nullptr, nullptr, &why), cudaErrorInvalidValue);
  EXPECT_NE(why.find("no workspace"), std::string::npos) << why;
  EXPECT_EQ(conv.run(buffer, buffer, buffer, 1.f, 0.f, static_cast<char*>(buffer) + 4, nullptr, &why),
            cudaErrorInvalidValue);
  EXPECT_NE(why.find("aligned"), std::string::npos) << why;
  cudaFree(buffer);
}

TEST(sm80_fft_conv, a_moved_plan_runs_and_the_moved_from_one_is_not_ready) {
  CUOP_REQUIRE_GPU();
  const variant v = {dtype::f32, nhwc, 2, 3, 11, 11, 4, 3, 3, 1, 1, 1, {0, 0, 4}, 1.f, 0.f};
  const kc::conv_shape sh = shape_of(v);
  bk::fft_conv first;
  std::string why;
  ASSERT_EQ(first.init(v.t, sh, v.cfg, &why), cuop::status::success) << why;
  bk::fft_conv second = std::move(first);
  EXPECT_FALSE(first.ready());  // NOLINT(bugprone-use-after-move): the moved-from state is specified
  ASSERT_TRUE(second.ready());
  bk::fft_conv third;
  third = std::move(second);
  ASSERT_TRUE(third.ready());
  EXPECT_FALSE(second.ready());  // NOLINT(bugprone-use-after-move)

  const long long xn = 1LL * sh.n * sh.c * sh.h * sh.w, wn = 1LL * sh.k * sh.c * sh.r * sh.s,
                  yn = 1LL * sh.n * sh.k * sh.p() * sh.q();
  void *x = nullptr, *w = nullptr, *y = nullptr, *ws = nullptr;
  CUOP_CUDA_ASSERT(cudaMalloc(&x, xn * 4));
  CUOP_CUDA_ASSERT(cudaMalloc(&w, wn * 4));
  CUOP_CUDA_ASSERT(cudaMalloc(&y, yn * 4));
  CUOP_CUDA_ASSERT(cudaMalloc(&ws, third.workspace_bytes()));
  CUOP_CUDA_ASSERT(ref::fill_random(v.t, x, xn, 5, -1.f, 1.f, nullptr));
  CUOP_CUDA_ASSERT(ref::fill_random(v.t, w, wn, 6, -1.f, 1.f, nullptr));
  CUOP_CUDA_ASSERT(ref::fill_nan(v.t, y, yn, nullptr));
  ASSERT_EQ(third.run(x, w, y, 1.f, 0.f, ws, nullptr, &why), cudaSuccess) << why;
  CUOP_CUDA_ASSERT(cudaDeviceSynchronize());
  const auto hx = to_host(v.t, x, xn), hw = to_host(v.t, w, wn), got = to_host(v.t, y, yn);
  std::vector<double> expect(yn);
  ref::conv2d_reference_cpu(sh, hx.data(), hw.data(), expect.data());
  const double atol = ref::conv_atol(v.t, sh), rtol = ref::conv_rtol(v.t);
  long long bad = 0;
  for (long long i = 0; i < yn; ++i)
    bad += !(std::isfinite(got[i]) && std::fabs(got[i] - expect[i]) <= atol + rtol * std::fabs(expect[i]));
  EXPECT_EQ(bad, 0);
  cudaFree(x);
  cudaFree(w);
  cudaFree(y);
  cudaFree(ws);
}
