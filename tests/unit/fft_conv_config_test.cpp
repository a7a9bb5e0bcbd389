// FFT convolution configurations without a GPU: identifiers (exact round trips, precise
// refusals), the problems a configuration refuses and why, transform sizes, and size plans.
#include <gtest/gtest.h>

#include <string>

#include "cuop/backends/fft_conv.hpp"

namespace {

using namespace cuop::backends;
namespace kc = cuop::kernels::conv;
using cuop::dtype;

kc::conv_shape shape(int n, int c, int hw, int k, int r, int pad) {
  kc::conv_shape sh;
  sh.n = n;
  sh.c = c;
  sh.h = sh.w = hw;
  sh.k = k;
  sh.r = sh.s = r;
  sh.pad_h = sh.pad_w = pad;
  return sh;
}

}  // namespace

TEST(fft_conv_config, identifiers_round_trip) {
  for (const fft_conv_config& c : {fft_conv_config{}, fft_conv_config{64, 0, 4}, fft_conv_config{8, 1, 1},
                                   fft_conv_config{16384, 1, 8}, fft_conv_config{32, 0, 2}}) {
    const std::string id = fft_conv_config_id(c);
    fft_conv_config back{99, 99, 99};
    std::string why;
    ASSERT_TRUE(parse_fft_conv_config_id(id, back, &why)) << id << ": " << why;
    EXPECT_EQ(back, c) << id;
    EXPECT_EQ(fft_conv_config_id(back), id);
  }
  EXPECT_EQ(fft_conv_config_id({64, 0, 4}), "fft_t64_p0_kb4");
  EXPECT_EQ(fft_conv_config_id({}), "fft_t0_p0_kb4");
}

TEST(fft_conv_config, malformed_identifiers_are_refused_and_out_is_untouched) {
  const fft_conv_config keep{16, 1, 2};
  const std::pair<const char*, const char*> cases[] = {
      {"dnn_e1", "does not start with \"fft_t\""},
      {"", "does not start with \"fft_t\""},
      {"fft_t", "bad tile"},
      {"fft_t-8_p0_kb4", "bad tile"},
      {"fft_t+8_p0_kb4", "bad tile"},
      {"fft_t08_p0_kb4", "bad tile"},
      {"fft_t99999999999_p0_kb4", "bad tile"},
      {"fft_t8", "expected \"_p<pad>\""},
      {"fft_t8_q0_kb4", "expected \"_p<pad>\""},
      {"fft_t8_p_kb4", "bad pad"},
      {"fft_t8_p0", "expected \"_kb<kb>\""},
      {"fft_t8_p0_k4", "expected \"_kb<kb>\""},
      {"fft_t8_p0_kb", "bad kb"},
      {"fft_t8_p0_kb4_", "unexpected \"_\" at the end"},
      {"fft_t8_p0_kb4x", "unexpected \"x\" at the end"},
      {"fft_t8_p0_kb3", "kb 3 is not one of 1, 2, 4, 8"},
      {"fft_t8_p0_kb16", "kb 16 is not one of 1, 2, 4, 8"},
      {"fft_t8_p2_kb4", "pad 2 is not 0"},
      {"fft_t4_p0_kb4", "tile 4 is neither 0"},
      {"fft_t16385_p0_kb4", "tile 16385 is neither 0"},
  };
  for (const auto& [text, message] : cases) {
    fft_conv_config out = keep;
    std::string why;
    EXPECT_FALSE(parse_fft_conv_config_id(text, out, &why)) << text;
    EXPECT_NE(why.find(message), std::string::npos) << text << ": " << why;
    if (std::string(text).size() > 0) {
      EXPECT_NE(why.find(std::string("\"") + text + "\""), std::string::npos) << why;
    }
    EXPECT_EQ(out, keep) << text;
  }
  fft_conv_config out = keep;
  EXPECT_FALSE(parse_fft_conv_config_id("fft_t0_p0", out, nullptr));  // no message wanted: fine
}

TEST(fft_conv_config, fast_sizes) {
  EXPECT_EQ(fast_fft_size(270, 0), 270);  // 2 * 3^3 * 5
  EXPECT_EQ(fast_fft_size(271, 0), 280);  // 271..279 have a factor above 7; 280 = 2^3 * 5 * 7
  EXPECT_EQ(fast_fft_size(97, 0), 98);    // 2 * 7^2
  EXPECT_EQ(fast_fft_size(11, 0), 12);
  EXPECT_EQ(fast_fft_size(13, 0), 14);
  EXPECT_EQ(fast_fft_size(1, 0), 1);
  EXPECT_EQ(fast_fft_size(7, 0), 7);
  EXPECT_EQ(fast_fft_size(0, 0), 1);
  EXPECT_EQ(fast_fft_size(97, 1), 128);
  EXPECT_EQ(fast_fft_size(128, 1), 128);
  EXPECT_EQ(fast_fft_size(129, 1), 256);
  EXPECT_EQ(fast_fft_size(1, 1), 1);
  EXPECT_EQ(fast_fft_size(1 << 30, 1), 1 << 30);
  EXPECT_EQ(fast_fft_size((1 << 30) + 1, 1), 0);  // beyond an int's powers of two
  EXPECT_EQ(fast_fft_size(100, 2), 0);            // unknown mode
  const auto smooth = [](int m) {
    for (int f : {2, 3, 5, 7})
      while (m % f == 0) m /= f;
    return m == 1;
  };
  for (int n = 1; n < 2000; ++n) {  // smooth, not below n, and the smallest such
    const int m = fast_fft_size(n, 0);
    ASSERT_GE(m, n);
    ASSERT_TRUE(smooth(m)) << n << " -> " << m;
    for (int between = n; between < m; ++between) ASSERT_FALSE(smooth(between)) << n << " -> " << m;
  }
}

TEST(fft_conv_config, unsupported_problems_say_why) {
  const fft_conv_config any{};
  EXPECT_EQ(check_fft_conv(dtype::f16, shape(2, 16, 32, 32, 3, 1), any), "");
  EXPECT_EQ(check_fft_conv(dtype::bf16, shape(1, 3, 7, 5, 7, 0), any), "");  // one output

  auto grouped = shape(2, 16, 32, 32, 3, 1);
  grouped.groups = 4;
  EXPECT_NE(check_fft_conv(dtype::f32, grouped, any).find("needs groups 1, not 4"), std::string::npos);

  auto strided = shape(2, 16, 32, 32, 3, 1);
  strided.stride_h = 2;
  EXPECT_NE(check_fft_conv(dtype::f32, strided, any).find("needs stride 1, not 2x1"), std::string::npos);

  auto invalid = shape(2, 16, 4, 32, 7, 0);  // the filter does not fit
  EXPECT_NE(check_fft_conv(dtype::f32, invalid, any).find("does not fit"), std::string::npos);

  EXPECT_NE(check_fft_conv(dtype::f32, shape(2, 16, 32, 32, 3, 1), {4, 0, 4}).find("tile 4 is neither 0"),
            std::string::npos);
  EXPECT_NE(check_fft_conv(dtype::f32, shape(2, 16, 32, 32, 3, 1), {8, 0, 3}).find("kb 3"), std::string::npos);
  // A tile covering the whole output is tile 0 under another name.
  EXPECT_NE(check_fft_conv(dtype::f32, shape(2, 16, 32, 32, 3, 1), {32, 0, 4})
                .find("tile 32 covers the whole 32x32 output: the same as tile 0"),
            std::string::npos);
  auto wide = shape(2, 16, 32, 32, 3, 1);
  wide.w = 100;  // 32 x 100 output: tile 32 is one tile high but four wide
  EXPECT_EQ(check_fft_conv(dtype::f32, wide, {32, 0, 4}), "");

  auto huge = shape(1, 1, 20000, 1, 3, 1);
  EXPECT_NE(check_fft_conv(dtype::f32, huge, any).find("input patch 20002x20002 exceeds"), std::string::npos);
  EXPECT_EQ(check_fft_conv(dtype::f32, huge, {256, 0, 4}), "");  // tiled, it fits
  EXPECT_EQ(plan_fft_conv(dtype::f32, huge, any).lh, 0);         // refused: all zero
  EXPECT_EQ(plan_fft_conv(dtype::f32, huge, any).workspace_bytes, 0);
}

TEST(fft_conv_config, whole_output_plan) {
  // 2 x 3 x 13 x 13, k 5, 3x3, "same": one 13 x 13 tile, 15 x 15 patch -> 15 (3 * 5) or 16.
  const auto sh = shape(2, 3, 13, 5, 3, 1);
  const fft_conv_sizes z = plan_fft_conv(dtype::f32, sh, {0, 0, 4});
  EXPECT_EQ(z.p, 13);
  EXPECT_EQ(z.q, 13);
  EXPECT_EQ(z.tile_h, 13);
  EXPECT_EQ(z.tile_w, 13);
  EXPECT_EQ(z.tiles_h, 1);
  EXPECT_EQ(z.tiles_w, 1);
  EXPECT_EQ(z.in_h, 15);
  EXPECT_EQ(z.in_w, 15);
  EXPECT_EQ(z.lh, 15);
  EXPECT_EQ(z.lw, 15);
  EXPECT_EQ(z.bins, 15 * 8);
  EXPECT_EQ(z.x_batch, 2 * 3);
  EXPECT_EQ(z.w_batch, 5 * 3);
  EXPECT_EQ(z.y_batch, 2 * 5);
  EXPECT_EQ(z.real_bytes, 13568);       // the most transforms (15) of 225 floats: 13500 -> 256s
  EXPECT_EQ(z.x_spectra_bytes, 5888);   // 6 * 120 * 8 = 5760
  EXPECT_EQ(z.w_spectra_bytes, 14592);  // 15 * 120 * 8 = 14400
  EXPECT_EQ(z.y_spectra_bytes, 9728);   // 10 * 120 * 8 = 9600
  EXPECT_EQ(z.buffer_bytes, 13568 + 5888 + 14592 + 9728);
  EXPECT_EQ(z.fft_work_bytes, 14592);
  EXPECT_EQ(z.workspace_bytes, z.buffer_bytes + z.fft_work_bytes);
  EXPECT_EQ(plan_fft_conv(dtype::f32, sh, {0, 1, 4}).lh, 16);  // power of two
}

TEST(fft_conv_config, tiled_plan_with_dilation_and_uneven_edges) {
  // 1 x 5 x 37 x 45, k 7, 7x7 dilation 2 (extent 13), pad 6: output 37 x 45.
  auto sh = shape(1, 5, 37, 7, 7, 6);
  sh.w = 45;
  sh.dil_h = sh.dil_w = 2;
  const fft_conv_sizes z = plan_fft_conv(dtype::f16, sh, {16, 0, 2});
  EXPECT_EQ(z.p, 37);
  EXPECT_EQ(z.q, 45);
  EXPECT_EQ(z.tile_h, 16);
  EXPECT_EQ(z.tiles_h, 3);  // 16 + 16 + 5
  EXPECT_EQ(z.tiles_w, 3);  // 16 + 16 + 13
  EXPECT_EQ(z.in_h, 16 + 12);
  EXPECT_EQ(z.lh, 28);  // 2^2 * 7
  EXPECT_EQ(z.x_batch, 1 * 9 * 5);
  EXPECT_EQ(z.y_batch, 1 * 9 * 7);
  EXPECT_EQ(plan_fft_conv(dtype::f16, sh, {16, 1, 2}).lw, 32);
  // A tile taller than the output is clamped to it, per dimension: 10 rows, 3 taps 2 apart, no
  // padding give 6 output rows (still 45 columns).
  sh.h = 10;
  sh.pad_h = 0;
  sh.r = 3;
  const fft_conv_sizes t = plan_fft_conv(dtype::f16, sh, {32, 0, 2});
  EXPECT_EQ(t.p, 6);
  EXPECT_EQ(t.tile_h, 6);
  EXPECT_EQ(t.tiles_h, 1);
  EXPECT_EQ(t.tile_w, 32);
  EXPECT_EQ(t.tiles_w, 2);
  EXPECT_EQ(t.in_h, 6 + 2 * 2);
  EXPECT_EQ(t.in_w, 32 + 12);
}
