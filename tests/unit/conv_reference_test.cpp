// The host f64 reference convolution on cases small enough to check by hand: padding, stride,
// dilation, groups and both layouts.
#include <gtest/gtest.h>

#include <vector>

#include "cuop/reference/conv_reference.hpp"

namespace {

namespace kc = cuop::kernels::conv;

kc::conv_shape shape(int c, int k, int hw, int r, int stride, int pad, int groups) {
  kc::conv_shape sh;
  sh.c = c;
  sh.k = k;
  sh.h = sh.w = hw;
  sh.r = sh.s = r;
  sh.stride_h = sh.stride_w = stride;
  sh.pad_h = sh.pad_w = pad;
  sh.groups = groups;
  return sh;
}

}  // namespace

TEST(conv_reference, box_filter_with_padding) {
  const auto sh = shape(1, 1, 3, 3, 1, 1, 1);
  const std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8, 9}, w(9, 1.f);
  std::vector<double> y(9);
  cuop::reference::conv2d_reference_cpu(sh, x.data(), w.data(), y.data());
  EXPECT_EQ(y, (std::vector<double>{12, 21, 16, 27, 45, 33, 24, 39, 28}));
}

TEST(conv_reference, stride_dilation_and_cross_correlation_order) {
  auto sh = shape(1, 1, 5, 3, 2, 0, 1);  // 2 x 2 outputs
  std::vector<float> x(25);
  for (int i = 0; i < 25; ++i) x[i] = static_cast<float>(i);
  std::vector<float> w(9, 0.f);
  w[2] = 1.f;  // tap (0, 2): not flipped, so y(p, q) = x(2p, 2q + 2)
  std::vector<double> y(4);
  cuop::reference::conv2d_reference_cpu(sh, x.data(), w.data(), y.data());
  EXPECT_EQ(y, (std::vector<double>{2, 4, 12, 14}));
  sh = shape(1, 1, 5, 3, 1, 0, 1);
  sh.dil_h = sh.dil_w = 2;  // one output: the 3x3 taps at 0, 2, 4
  std::fill(w.begin(), w.end(), 1.f);
  std::vector<double> one(1);
  cuop::reference::conv2d_reference_cpu(sh, x.data(), w.data(), one.data());
  EXPECT_EQ(one[0], 0 + 2 + 4 + 10 + 12 + 14 + 20 + 22 + 24);
}

TEST(conv_reference, depthwise_groups_in_both_layouts) {
  // Two channels, 1x1 filters 2 and 3 (depthwise), two pixels: y = (2 x0, 3 x1) per pixel.
  auto sh = shape(2, 2, 1, 1, 1, 0, 2);
  sh.w = 2;
  const std::vector<float> w = {2, 3};
  const std::vector<float> nchw = {1, 2, 10, 20};  // c0: 1 2, c1: 10 20
  std::vector<double> y(4);
  sh.lay = kc::layout::nchw;
  cuop::reference::conv2d_reference_cpu(sh, nchw.data(), w.data(), y.data());
  EXPECT_EQ(y, (std::vector<double>{2, 4, 30, 60}));
  const std::vector<float> nhwc = {1, 10, 2, 20};  // pixel 0: c0 c1, pixel 1: c0 c1
  sh.lay = kc::layout::nhwc;
  cuop::reference::conv2d_reference_cpu(sh, nhwc.data(), w.data(), y.data());
  EXPECT_EQ(y, (std::vector<double>{2, 30, 4, 60}));
}

TEST(conv_reference, dense_groups_sum_only_their_channels) {
  // c 4, k 2, groups 2: output 0 sums channels 0-1, output 1 channels 2-3 (1x1 filters of 1).
  auto sh = shape(4, 2, 1, 1, 1, 0, 2);
  sh.lay = kc::layout::nchw;
  const std::vector<float> x = {1, 2, 4, 8}, w(4, 1.f);
  std::vector<double> y(2);
  cuop::reference::conv2d_reference_cpu(sh, x.data(), w.data(), y.data());
  EXPECT_EQ(y, (std::vector<double>{3, 12}));
}

TEST(conv_reference, the_filter_follows_the_layout) {
  // c 2, k 1, a 1x2 filter on a 1x2 image, no padding: one output, x . w in the layout's order.
  auto sh = shape(2, 1, 1, 1, 1, 0, 1);
  sh.w = 2;
  sh.s = 2;
  // NCHW: x[c][w] = {1, 2 | 3, 4}; w[k][c][s] = {10, 20 | 30, 40} -> 1*10 + 2*20 + 3*30 + 4*40.
  sh.lay = kc::layout::nchw;
  std::vector<double> y(1);
  const std::vector<float> x_nchw = {1, 2, 3, 4}, w_kcrs = {10, 20, 30, 40};
  cuop::reference::conv2d_reference_cpu(sh, x_nchw.data(), w_kcrs.data(), y.data());
  EXPECT_EQ(y[0], 300);
  // NHWC: the same tensors as x[w][c] = {1, 3 | 2, 4} and w[k][s][c] = {10, 30 | 20, 40}.
  sh.lay = kc::layout::nhwc;
  const std::vector<float> x_nhwc = {1, 3, 2, 4}, w_krsc = {10, 30, 20, 40};
  cuop::reference::conv2d_reference_cpu(sh, x_nhwc.data(), w_krsc.data(), y.data());
  EXPECT_EQ(y[0], 300);
}

TEST(conv_reference, tolerance_grows_with_the_reduction) {
  auto small = shape(16, 16, 8, 3, 1, 1, 16), large = shape(16, 16, 40, 31, 1, 15, 16);
  EXPECT_LT(cuop::reference::conv_atol(cuop::dtype::f16, small), cuop::reference::conv_atol(cuop::dtype::f16, large));
  EXPECT_GT(cuop::reference::conv_rtol(cuop::dtype::bf16), cuop::reference::conv_rtol(cuop::dtype::f16));
}
