// The library's conv2d dispatch path: cuop::conv2d through whatever the emitted table chooses (our
// depthwise kernels, cuDNN configurations, cuDNN's heuristic, our FFT convolution) on tuned and
// untuned shapes, both layouts, the three types, TF32, alpha and beta, and tensors off their 16-byte
// alignment (staged through aligned buffers), against the reference.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "cuop/conv.hpp"
#include "cuop/reference/conv_reference.hpp"
#include "cuop/reference/softmax_reference.hpp"  // fill_random, fill_nan
#include "gpu_test_support.hpp"

namespace {

using cuop::dtype;
namespace kc = cuop::kernels::conv;

struct device_buffer {
  void* ptr = nullptr;
  explicit device_buffer(std::size_t bytes) { cudaMalloc(&ptr, bytes); }
  ~device_buffer() { cudaFree(ptr); }
};

using cuop::test::to_host;

struct conv_case {
  const char* what;
  dtype t;
  kc::conv_shape sh;
  float alpha = 1.f, beta = 0.f;
  int offset = 0;  // elements added to the x, w and y pointers
};

kc::conv_shape shape(kc::layout l, int n, int h, int w, int c, int k, int r, int stride, int pad, int groups) {
  kc::conv_shape sh;
  sh.lay = l;
  sh.n = n;
  sh.h = h;
  sh.w = w;
  sh.c = c;
  sh.k = k;
  sh.r = sh.s = r;
  sh.stride_h = sh.stride_w = stride;
  sh.pad_h = sh.pad_w = pad;
  sh.groups = groups;
  return sh;
}

void check(const conv_case& c) {
  SCOPED_TRACE(c.what);
  const auto& sh = c.sh;
  const long long xn = 1LL * sh.n * sh.c * sh.h * sh.w, wn = 1LL * sh.k * (sh.c / sh.groups) * sh.r * sh.s,
                  yn = 1LL * sh.n * sh.k * sh.p() * sh.q();
  const std::size_t e = cuop::size_of(c.t);
  device_buffer xb((xn + c.offset) * e), wb((wn + c.offset) * e), yb((yn + c.offset) * e), ref(yn * sizeof(float));
  ASSERT_NE(ref.ptr, nullptr);
  void* const x = static_cast<char*>(xb.ptr) + c.offset * e;
  void* const w = static_cast<char*>(wb.ptr) + c.offset * e;
  void* const y = static_cast<char*>(yb.ptr) + c.offset * e;
  CUOP_CUDA_ASSERT(cuop::reference::fill_random(c.t, x, xn, 1, -1.f, 1.f, nullptr));
  CUOP_CUDA_ASSERT(cuop::reference::fill_random(c.t, w, wn, 2, -1.f, 1.f, nullptr));
  if (c.beta != 0.f) CUOP_CUDA_ASSERT(cuop::reference::fill_random(c.t, y, yn, 3, -1.f, 1.f, nullptr));
  else CUOP_CUDA_ASSERT(cuop::reference::fill_nan(c.t, y, yn, nullptr));
  CUOP_CUDA_ASSERT(cuop::reference::conv2d_reference(c.t, sh, x, w, static_cast<float*>(ref.ptr), nullptr));
  CUOP_CUDA_ASSERT(cudaDeviceSynchronize());
  const auto before = to_host(c.t, y, yn);
  const cuop::conv2d_problem p{c.t, sh, c.alpha, c.beta};
  cuop::conv2d_choice choice;
  ASSERT_EQ(cuop::conv2d_which(p, choice), cuop::status::success);
  SCOPED_TRACE(std::string(choice.instance) + " (" + choice.kind + ", " + choice.source + ")");
  std::printf("  %s: %s (%s, %s%s)\n", c.what, choice.instance, choice.kind, choice.source,
              choice.exact_shape ? ", exact shape" : "");
  ASSERT_EQ(cuop::conv2d(p, x, w, y), cuop::status::success);
  CUOP_CUDA_ASSERT(cudaDeviceSynchronize());
  const auto got = to_host(c.t, y, yn);
  std::vector<float> r(yn);
  CUOP_CUDA_ASSERT(cudaMemcpy(r.data(), ref.ptr, yn * sizeof(float), cudaMemcpyDeviceToHost));
  const double atol = cuop::reference::conv_atol(c.t, sh) * std::fabs(c.alpha) * 2,
               rtol = cuop::reference::conv_rtol(c.t);
  long long bad = 0, first = -1;
  double worst = 0;
  for (long long i = 0; i < yn; ++i) {
    const double expect = c.alpha * static_cast<double>(r[i]) + (c.beta != 0.f ? c.beta * before[i] : 0.0);
    const double err = std::isfinite(got[i]) ? std::fabs(got[i] - expect) : INFINITY;
    if (!(err <= atol + rtol * std::fabs(expect) + (c.beta != 0.f ? rtol : 0.0))) {
      if (first < 0) first = i;
      ++bad;
    }
    worst = std::max(worst, err);
  }
  EXPECT_EQ(bad, 0) << "first bad element " << first << ", max abs error " << worst << ", atol " << atol;
}

}  // namespace

TEST(sm80_conv_dispatch, tuned_shapes) {
  CUOP_REQUIRE_GPU();
  for (const auto& c : std::initializer_list<conv_case>{
           {"ConvNeXt 7x7 depthwise", dtype::f16, shape(kc::layout::nhwc, 32, 28, 28, 512, 512, 7, 1, 3, 512)},
           {"RepLKNet 31x31 depthwise", dtype::f16, shape(kc::layout::nhwc, 8, 32, 32, 1024, 1024, 31, 1, 15, 1024)},
           {"ResNet-50 3x3", dtype::f16, shape(kc::layout::nhwc, 32, 56, 56, 64, 64, 3, 1, 1, 1)},
           {"dense 11x11 f32", dtype::f32, shape(kc::layout::nchw, 4, 256, 256, 32, 32, 11, 1, 5, 1)}})
    check(c);
}

TEST(sm80_conv_dispatch, untuned_shapes_take_a_neighbour_or_the_heuristic) {
  CUOP_REQUIRE_GPU();
  for (const auto& c : std::initializer_list<conv_case>{
           {"7x7 depthwise, odd sizes", dtype::f16, shape(kc::layout::nhwc, 3, 17, 19, 200, 200, 7, 1, 3, 200)},
           {"7x7 depthwise NCHW, batch 1", dtype::f16, shape(kc::layout::nchw, 1, 13, 9, 24, 24, 7, 1, 0, 24)},
           {"3x3 stride 2 depthwise", dtype::f16, shape(kc::layout::nhwc, 2, 15, 15, 13, 13, 3, 2, 1, 13)},
           {"dense 3x3, channels not a multiple of 8", dtype::f16,
            shape(kc::layout::nhwc, 2, 20, 20, 24, 40, 3, 1, 1, 1)},
           {"dense 15x15 f32, smaller", dtype::f32, shape(kc::layout::nchw, 1, 70, 50, 5, 7, 15, 1, 7, 1)},
           {"bf16 (never tuned)", dtype::bf16, shape(kc::layout::nhwc, 2, 12, 12, 16, 32, 3, 1, 1, 1)}})
    check(c);
}

TEST(sm80_conv_dispatch, alpha_beta_and_tf32) {
  CUOP_REQUIRE_GPU();
  conv_case dw{"depthwise, alpha 2, beta 0.5", dtype::f16, shape(kc::layout::nhwc, 2, 28, 28, 512, 512, 7, 1, 3, 512),
               2.f, 0.5f};
  check(dw);
  conv_case dense{"dense, alpha 0.5, beta 1", dtype::f32, shape(kc::layout::nchw, 2, 30, 30, 16, 8, 11, 1, 5, 1), 0.5f,
                  1.f};
  check(dense);
  conv_case tf32{"f32 with TF32 allowed", dtype::f32, shape(kc::layout::nchw, 2, 32, 32, 64, 64, 7, 1, 3, 1)};
  tf32.sh.allow_tf32 = true;
  check(tf32);
}

// The 7x7 depthwise layers' tuned kernel (stage 5 on the H200) moves x and y through TMA and
// cuDNN's plans declare 16-byte alignment: one element off, conv2d stages the tensors through
// aligned buffers (a dense layer too, whichever cuDNN choice it takes).
TEST(sm80_conv_dispatch, misaligned_tensors_are_staged) {
  CUOP_REQUIRE_GPU();
  conv_case dw{"7x7 depthwise, tensors one element off", dtype::f16,
               shape(kc::layout::nhwc, 2, 28, 28, 512, 512, 7, 1, 3, 512)};
  dw.offset = 1;
  check(dw);
  dw.what = "the same, aligned";
  dw.offset = 0;
  check(dw);
  conv_case dense{"dense 3x3, tensors one element off, beta 0.5", dtype::f16,
                  shape(kc::layout::nhwc, 2, 20, 20, 32, 32, 3, 1, 1, 1), 1.f, 0.5f};
  dense.offset = 1;
  check(dense);
}

TEST(sm80_conv_dispatch, bad_arguments_are_refused) {
  CUOP_REQUIRE_GPU();
  int dummy = 0;
  cuop::conv2d_problem p{dtype::f16, shape(kc::layout::nhwc, 1, 8, 8, 6, 6, 3, 1, 1, 4)};  // 4 does not divide 6
  EXPECT_EQ(cuop::conv2d(p, &dummy, &dummy, &dummy), cuop::status::invalid_argument);
  p.shape = shape(kc::layout::nhwc, 1, 2, 2, 4, 4, 5, 1, 0, 1);  // the filter does not fit
  EXPECT_EQ(cuop::conv2d(p, &dummy, &dummy, &dummy), cuop::status::invalid_argument);
  p.shape = shape(kc::layout::nhwc, 1, 8, 8, 4, 4, 3, 1, 1, 1);
  EXPECT_EQ(cuop::conv2d(p, nullptr, &dummy, &dummy), cuop::status::invalid_argument);
}
