// Convolution shapes (output size, validity, work) and the depthwise family's host side: which
// configurations are malformed and why, names, and the launch plan for a problem.
#include <gtest/gtest.h>

#include <string>

#include "cuop/kernels/conv/family.hpp"

namespace {

namespace kc = cuop::kernels::conv;
using algo = kc::depthwise_algo;
using cuop::dtype;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

kc::conv_shape depthwise_shape(int n, int hw, int c, int r, int stride, int pad) {
  kc::conv_shape sh;
  sh.n = n;
  sh.h = sh.w = hw;
  sh.c = sh.k = sh.groups = c;
  sh.r = sh.s = r;
  sh.stride_h = sh.stride_w = stride;
  sh.pad_h = sh.pad_w = pad;
  return sh;
}

kc::depthwise_config cfg(int vec, int cvecs, int block_c, int tile_h, int tile_w, int ph, int pw,
                         kc::depthwise_algo algo) {
  kc::depthwise_config c;
  c.t = dtype::f16;
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

kc::device_limits h200() {
  kc::device_limits d;
  d.max_threads_per_block = 1024;
  d.max_smem_per_block = 227 * 1024;
  d.cc = 90;
  return d;
}

}  // namespace

TEST(conv_shape, output_size_validity_and_work) {
  auto sh = depthwise_shape(32, 56, 128, 7, 1, 3);
  EXPECT_EQ(sh.p(), 56);
  EXPECT_EQ(sh.q(), 56);
  EXPECT_EQ(kc::check_shape(sh), "");
  EXPECT_DOUBLE_EQ(kc::conv_flops(sh), 2.0 * 32 * 128 * 56 * 56 * 49);
  EXPECT_DOUBLE_EQ(kc::conv_bytes(dtype::f16, sh), 2.0 * (2.0 * 32 * 128 * 56 * 56 + 128 * 49));
  sh = depthwise_shape(1, 224, 3, 7, 2, 3);  // ResNet's stem geometry
  EXPECT_EQ(sh.p(), 112);
  sh.dil_h = sh.dil_w = 2;
  EXPECT_EQ(sh.p(), 109);  // (224 + 6 - 13) / 2 + 1
  sh = depthwise_shape(1, 4, 8, 7, 1, 0);
  EXPECT_EQ(sh.p(), 0);
  EXPECT_TRUE(contains(kc::check_shape(sh), "does not fit the padded 4x4 input")) << kc::check_shape(sh);
  sh = depthwise_shape(1, 8, 6, 3, 1, 1);
  sh.groups = 4;
  EXPECT_TRUE(contains(kc::check_shape(sh), "groups 4 must divide c 6 and k 6"));
  sh.groups = 1;
  sh.pad_h = -1;
  EXPECT_TRUE(contains(kc::check_shape(sh), "padding must be >= 0"));
  // Sizes whose output or tensors leave the kernels' integers are refused, not wrapped.
  sh = depthwise_shape(1, 8, 8, 1, 1, 0);
  sh.h = 2147483647;
  sh.pad_h = 1 << 30;  // p = h + 2^31 - 1 + 1 > INT_MAX (p() would wrap)
  EXPECT_EQ(kc::check_shape(sh), "output 4294967295x8 > 2147483647 in a dimension");
  sh = depthwise_shape(1 << 20, 1 << 14, 1 << 12, 1, 1, 0);  // 2^60 elements of x
  EXPECT_EQ(kc::check_shape(sh), "x, w or y has more than 70368744177664 elements");
  sh = depthwise_shape(1, 1 << 15, 1 << 15, 1, 1, 0);  // 2^45 elements: allowed
  EXPECT_EQ(kc::check_shape(sh), "");
  sh.c = sh.k = sh.groups = 1 << 16;  // x: 2^46 elements, the limit itself
  EXPECT_EQ(kc::check_shape(sh), "");
  sh.n = 2;
  EXPECT_TRUE(contains(kc::check_shape(sh), "more than 70368744177664 elements"));
  sh = depthwise_shape(2147483647, 2147483647, 2147483647, 1, 1, 0);  // products past 2^64 too
  EXPECT_TRUE(contains(kc::check_shape(sh), "more than 70368744177664 elements"));
  kc::layout l = kc::layout::nhwc;
  EXPECT_TRUE(kc::parse_layout("nchw", l));
  EXPECT_EQ(l, kc::layout::nchw);
  EXPECT_FALSE(kc::parse_layout("NHWC", l));
}

TEST(conv_depthwise, well_formed_and_malformed_configurations) {
  EXPECT_EQ(kc::check_config(cfg(8, 1, 32, 4, 8, 1, 4, algo::smem)), "");
  EXPECT_EQ(kc::check_config(cfg(8, 2, 64, 2, 16, 1, 2, algo::direct)), "");
  EXPECT_EQ(kc::check_config(cfg(4, 1, 32, 16, 16, 4, 8, algo::smem_f32)), "");  // 128 accumulators, 128 threads
  kc::depthwise_config f32 = cfg(4, 1, 16, 4, 8, 2, 2, algo::smem);
  f32.t = dtype::f32;
  EXPECT_EQ(kc::check_config(f32), "");
  f32.algo = algo::smem_f32;  // the same code as smem for f32
  EXPECT_TRUE(contains(kc::check_config(f32), "algo smem_f32 (the input staged as f32) is smem for f32"));
  f32.algo = algo::smem;
  f32.vec = 8;  // 32 bytes
  EXPECT_TRUE(contains(kc::check_config(f32), "vec 8 x 4 bytes is not a 2-, 4-, 8- or 16-byte vector"));
  EXPECT_TRUE(contains(kc::check_config(cfg(8, 1, 20, 4, 8, 1, 4, algo::smem)),
                       "block_c 20 is not a multiple of vec x cvecs = 8"));
  EXPECT_TRUE(contains(kc::check_config(cfg(2, 1, 4, 4, 64, 1, 4, algo::smem)), "not a multiple of 16 bytes"));
  EXPECT_TRUE(contains(kc::check_config(cfg(8, 1, 32, 4, 6, 1, 4, algo::smem)), "tile_w 6 is not a multiple of pw 4"));
  EXPECT_TRUE(contains(kc::check_config(cfg(8, 1, 32, 6, 8, 4, 4, algo::smem)), "tile_h 6 is not a multiple of ph 4"));
  EXPECT_TRUE(contains(kc::check_config(cfg(8, 1, 32, 4, 8, 0, 4, algo::smem)), "tile_h 4 is not a multiple of ph 0"));
  EXPECT_TRUE(contains(kc::check_config(cfg(8, 2, 64, 16, 16, 4, 4, algo::smem)),
                       "ph x pw x vec x cvecs = 256 accumulators per thread > 192 (255 registers)"));
  EXPECT_TRUE(contains(kc::check_config(cfg(8, 1, 32, 4, 8, 1, 4, static_cast<algo>(7))),
                       "algo 7 is not one of direct, smem, smem_f32, mma, mma_tma, mma_seg, plane"));
  EXPECT_TRUE(contains(kc::check_config(cfg(8, 1, 8, 1, 8, 1, 8, algo::smem)), "block of 1 threads"));
  EXPECT_EQ(kc::check_config(cfg(8, 1, 32, 8, 16, 2, 4, algo::smem)), "");
  EXPECT_TRUE(
      contains(kc::check_config(cfg(8, 1, 8, 4, 8, 2, 4, algo::smem)),
               "block of 4 threads ((block_c / (vec x cvecs)) x (tile_h / ph) x (tile_w / pw)) outside 32..1024"));
  EXPECT_TRUE(contains(kc::check_config(cfg(8, 1, 256, 8, 32, 1, 1, algo::smem)), "block of 8192 threads"));
  kc::depthwise_config nchw = cfg(8, 1, 32, 4, 8, 1, 4, algo::direct);
  nchw.lay = kc::layout::nchw;
  EXPECT_TRUE(contains(kc::check_config(nchw), "nchw reads its input through the staged patch"));
  kc::depthwise_config big = cfg(8, 1, 64, 8, 16, 1, 4, algo::smem);
  big.r = big.s = 31;  // 31 x 31 f32 taps, then the (8 - 1 + 31) x (16 - 1 + 31) patch of halves
  EXPECT_EQ(kc::smem_bytes(big), 961LL * 64 * 4 + 38LL * 46 * 64 * 2);
  EXPECT_TRUE(contains(
      kc::check_config(big),
      "shared memory of 469760 bytes > 232448 (227 KiB, the largest opt-in shared memory per block of any target)"));
  big.r = 33;
  EXPECT_TRUE(contains(kc::check_config(big), "filter 33x31 outside 1..31"));
}

TEST(conv_depthwise, shared_memory_follows_the_kernel_layout) {
  // 7x7, 32 channels, an 8 x 16 tile: the f32 taps, then the largest of the raw filter copy, the
  // patch (10 + 4 = 14 rows, 15 + 7 = 22 columns) and, for nchw, the f32 output tile.
  kc::depthwise_config c = cfg(8, 1, 32, 8, 16, 2, 4, algo::smem);
  c.r = c.s = 7;
  const long long taps = 49 * 32 * 4;
  EXPECT_EQ(kc::smem_bytes(c), taps + 14 * 22 * 32 * 2);  // smem: halves
  c.algo = algo::smem_f32;
  EXPECT_EQ(kc::smem_bytes(c), taps + 14 * 22 * 32 * 4);  // smem_f32: floats
  c.algo = algo::direct;
  EXPECT_EQ(kc::smem_bytes(c), taps + 49 * 32 * 2);  // no patch: the raw filter copy
  c.algo = algo::smem_f32;
  c.lay = kc::layout::nchw;  // pixels padded by one 16-byte chunk
  EXPECT_EQ(kc::smem_bytes(c), taps + 14 * 22 * (32 + 4) * 4);
  c.algo = algo::smem;
  EXPECT_EQ(kc::smem_bytes(c), taps + 14 * 22 * (32 + 8) * 2);
  c.r = c.s = 1;  // a 1x1 filter: the f32 output tile (8 x 16 pixels of 32 + 4 floats) is larger
  EXPECT_EQ(kc::smem_bytes(c), 32 * 4 + 8 * 16 * (32 + 4) * 4);
}

TEST(conv_depthwise, tensor_core_mma) {
  // cvecs is the channels of a warp: 32 channels, 4 a warp -> 8 warps.
  kc::depthwise_config c = cfg(8, 4, 32, 28, 32, 1, 1, algo::mma);
  c.r = c.s = 7;
  EXPECT_EQ(kc::check_config(c), "");
  EXPECT_EQ(kc::threads_per_block(c), 256);
  // 34 patch rows of 5 16-byte units (4 column blocks + 1 tap chunk, odd) = 680 words, already 8
  // modulo 32 (4 chunks a pixel); then nine words of tap pairs per channel, tap row and chunk.
  EXPECT_EQ(kc::smem_bytes(c), 32 * 680 * 4 + 32 * 7 * 1 * 9 * 4);
  EXPECT_EQ(kc::min_blocks_per_sm(c), 2);  // 2 x (95104 + 1024) <= 228 KiB
  c.block_c = 16;                          // 2 chunks a pixel: the plane padded to 16 modulo 32
  EXPECT_EQ(kc::smem_bytes(c), 16 * 688 * 4 + 16 * 7 * 1 * 9 * 4);
  c.r = c.s = 31;  // four 8-tap chunks a tap row; 58 patch rows of 9 units = 2088 words, padded to 2096
  EXPECT_EQ(kc::smem_bytes(c), 16 * 2096 * 4 + 16 * 31 * 4 * 9 * 4);
  c.r = c.s = 7;
  EXPECT_EQ(kc::instance_name(c),
            "conv_depthwise_f16_nhwc_mma_filter7x7_stride1_vec8_cvecs4_blockc16_tile28x32_ph1_pw1");
  EXPECT_EQ(kc::min_blocks_per_sm(cfg(8, 1, 32, 8, 16, 2, 4, algo::smem)), 1);  // direct, smem, smem_f32

  auto with = [&](auto change) {
    kc::depthwise_config d = c;
    change(d);
    return kc::check_config(d);
  };
  EXPECT_TRUE(contains(with([](auto& d) { d.t = dtype::f32; }), "algo mma (tensor cores) takes f16 or bf16, not f32"));
  EXPECT_TRUE(contains(with([](auto& d) { d.lay = kc::layout::nchw; }), "NHWC only"));
  EXPECT_TRUE(contains(with([](auto& d) { d.stride = 2; }), "stride 1 only"));
  EXPECT_TRUE(contains(with([](auto& d) { d.vec = 4; }), "takes vec 8, ph 1 and pw 1 (got vec 4, ph 1, pw 1)"));
  EXPECT_TRUE(contains(with([](auto& d) { d.tile_h = 8; }), "tile_h 8 < 16"));
  EXPECT_TRUE(contains(with([](auto& d) { d.tile_w = 20; }), "tile_w 20 is not a multiple of 8"));
  EXPECT_TRUE(contains(with([](auto& d) { d.block_c = 12; }), "block_c 12 is not a multiple of 8"));
  EXPECT_TRUE(contains(with([](auto& d) { d.cvecs = 3; }), "block_c 16 is not a multiple of cvecs 3"));
  EXPECT_TRUE(contains(with([](auto& d) { d.cvecs = 0; }), "cvecs 0 < 1"));
  EXPECT_TRUE(contains(with([](auto& d) { d.block_c = 64, d.cvecs = 1; }), "64 warps (block_c / cvecs) > 32"));
  EXPECT_TRUE(contains(with([](auto& d) { d.tile_h = 64, d.tile_w = 64; }), "accumulators per thread"));
  EXPECT_TRUE(contains(with([](auto& d) { d.r = d.s = 31, d.block_c = 64, d.cvecs = 8; }), "shared memory of"));
}

TEST(conv_depthwise, mma_tma) {
  // mma's checks, layout and threads, its shared memory rounded up to 128 bytes plus the
  // copy's mbarrier (16 bytes).
  kc::depthwise_config c = cfg(8, 4, 32, 16, 32, 1, 1, algo::mma_tma);
  c.r = c.s = 7;
  EXPECT_EQ(kc::check_config(c), "");
  EXPECT_EQ(kc::threads_per_block(c), 256);
  kc::depthwise_config three = c;
  three.algo = algo::mma;
  EXPECT_EQ(kc::smem_bytes(c), (kc::smem_bytes(three) + 127) / 128 * 128 + 16);
  // 22 rows of 5 units = 440 words, padded to 456 (8 modulo 32), then the tap pairs: 66432 bytes,
  // a multiple of 128 already.
  EXPECT_EQ(kc::smem_bytes(three), 32 * 456 * 4 + 32 * 7 * 9 * 4);
  EXPECT_EQ(kc::smem_bytes(c), 66432 + 16);
  EXPECT_EQ(kc::min_blocks_per_sm(c), 3);
  EXPECT_EQ(kc::instance_name(c),
            "conv_depthwise_f16_nhwc_mma_tma_filter7x7_stride1_vec8_cvecs4_blockc32_tile16x32_ph1_pw1");
  EXPECT_EQ(kc::template_name(c),
            "cuop::kernels::conv::depthwise<__half, true, 7, 7, 1, 8, 4, 32, 16, 32, 1, 1, "
            "cuop::kernels::conv::depthwise_algo::mma_tma>");

  auto with = [&](auto change) {
    kc::depthwise_config d = c;
    change(d);
    return kc::check_config(d);
  };
  EXPECT_TRUE(
      contains(with([](auto& d) { d.t = dtype::f32; }), "algo mma_tma (tensor cores) takes f16 or bf16, not f32"));
  EXPECT_TRUE(contains(with([](auto& d) { d.lay = kc::layout::nchw; }), "algo mma_tma (tensor cores) is NHWC only"));
  EXPECT_TRUE(contains(with([](auto& d) { d.stride = 2; }), "algo mma_tma (tensor cores) is stride 1 only"));
  EXPECT_TRUE(contains(with([](auto& d) { d.tile_h = 8; }), "algo mma_tma: tile_h 8 < 16"));
  // A thread holds its share of the raw patch in registers: 16 chunks at most. 31x31 with 16
  // channels and 4 warps: 46 rows x 28 words x 2 chunks / 128 threads = 20.1, so 21.
  EXPECT_EQ(with([](auto& d) { d.r = d.s = 31, d.block_c = 16, d.tile_h = d.tile_w = 16; }),
            "algo mma_tma: 21 staged 16-byte chunks per thread (168 registers) > 16");
  EXPECT_EQ(
      with([](auto& d) { d.block_c = 8, d.tile_h = 384, d.tile_w = 8; }),
      "algo mma_tma: the TMA box of block_c x (tile_w + s - 1) x (tile_h + r - 1) = 8 x 14 x 390 has a side > 256");
  EXPECT_EQ(with([](auto& d) { d.algo = static_cast<algo>(7); }),
            "algo 7 is not one of direct, smem, smem_f32, mma, mma_tma, mma_seg, plane");

  // TMA needs sm_90: refused where the device is known to be older, with the reason.
  const auto sh = depthwise_shape(16, 64, 384, 7, 1, 3);
  const auto planned = kc::for_shape(c, dtype::f16, sh);
  kc::launch_plan p;
  EXPECT_EQ(kc::plan_launch(planned, sh, h200(), p), "");
  EXPECT_EQ(p.smem_bytes, static_cast<std::size_t>(kc::smem_bytes(c)));
  EXPECT_EQ(p.grid_x, 4u * 2u);
  kc::device_limits ampere = h200();
  ampere.cc = 80;
  EXPECT_EQ(kc::plan_launch(planned, sh, ampere, p),
            "algo mma_tma loads through TMA, which needs compute capability 9.0 or newer (the device has 8.0)");
  ampere.cc = 0;  // not known (validation without a device)
  EXPECT_EQ(kc::plan_launch(planned, sh, ampere, p), "");
}

TEST(conv_depthwise, names_and_parameters) {
  kc::depthwise_config c =
      kc::for_shape(cfg(8, 1, 32, 8, 8, 2, 4, algo::smem_f32), dtype::bf16, depthwise_shape(8, 32, 1024, 31, 1, 15));
  EXPECT_EQ(kc::instance_name(c),
            "conv_depthwise_bf16_nhwc_smem_f32_filter31x31_stride1_vec8_cvecs1_blockc32_tile8x8_ph2_pw4");
  EXPECT_EQ(kc::template_name(c),
            "cuop::kernels::conv::depthwise<__nv_bfloat16, true, 31, 31, 1, 8, 1, 32, 8, 8, 2, 4, "
            "cuop::kernels::conv::depthwise_algo::smem_f32>");
  EXPECT_EQ(kc::threads_per_block(c), 4 * 4 * 2);
  EXPECT_EQ(kc::depthwise_param_names(),
            (std::vector<std::string_view>{"vec", "cvecs", "block_c", "tile_h", "tile_w", "ph", "pw", "algo"}));
  EXPECT_TRUE(kc::set_param(c, "tile_w", 16));
  EXPECT_EQ(kc::get_param(c, "tile_w"), 16);
  EXPECT_TRUE(kc::set_param(c, "ph", 4));
  EXPECT_EQ(kc::get_param(c, "ph"), 4);
  EXPECT_EQ(kc::instance_name(c),
            "conv_depthwise_bf16_nhwc_smem_f32_filter31x31_stride1_vec8_cvecs1_blockc32_tile8x16_ph4_pw4");
  EXPECT_FALSE(kc::set_param(c, "block_m", 16));
  EXPECT_EQ(kc::get_param(c, "r"), -1);  // from the problem, not a parameter
}

TEST(conv_depthwise, segment_mma_seg) {
  // 7x7 in tiles of 28 x 32: 4 segments of 7 rows x 4 column tiles make one slot set (4 warps).
  kc::depthwise_config c = cfg(8, 4, 16, 28, 32, 7, 1, algo::mma_seg);
  c.r = c.s = 7;
  EXPECT_EQ(kc::check_config(c), "");
  EXPECT_EQ(kc::threads_per_block(c), 128);
  // Two boxes of 34 x 39 pixels of 32 bytes plus a slack pixel, each rounded to 1024 bytes (43008),
  // the tap pairs (16 x 7 x 9 words), the raw taps (16 x 7 x 7 halves), two mbarriers.
  EXPECT_EQ(kc::smem_bytes(c), 2 * 43008 + 16 * 7 * 9 * 4 + 16 * 7 * 7 * 2 + 16);
  EXPECT_EQ(kc::min_blocks_per_sm(c), 2);  // 112 accumulators a lane
  kc::depthwise_config four = c;
  four.tile_h = 16, four.ph = 4;  // 4 segments of 4 rows: 64 accumulators, three blocks fit
  EXPECT_EQ(kc::check_config(four), "");
  EXPECT_EQ(kc::min_blocks_per_sm(four), 3);
  kc::depthwise_config tall = c;
  tall.tile_h = 56, tall.tile_w = 16;  // 8 segments x 2 column tiles
  EXPECT_EQ(kc::check_config(tall), "");
  EXPECT_EQ(kc::threads_per_block(tall), 128);
  tall.tile_w = 32;  // 8 segments x 4 column tiles: two slot sets
  EXPECT_EQ(kc::threads_per_block(tall), 256);
  EXPECT_EQ(kc::instance_name(c),
            "conv_depthwise_f16_nhwc_mma_seg_filter7x7_stride1_vec8_cvecs4_blockc16_tile28x32_ph7_pw1");
  EXPECT_EQ(kc::template_name(c),
            "cuop::kernels::conv::depthwise<__half, true, 7, 7, 1, 8, 4, 16, 28, 32, 7, 1, "
            "cuop::kernels::conv::depthwise_algo::mma_seg>");

  auto with = [&](auto change) {
    kc::depthwise_config d = c;
    change(d);
    return kc::check_config(d);
  };
  EXPECT_EQ(with([](auto& d) { d.t = dtype::f32; }), "algo mma_seg (tensor cores) takes f16 or bf16, not f32");
  EXPECT_EQ(with([](auto& d) { d.lay = kc::layout::nchw; }), "algo mma_seg (tensor cores) is NHWC only");
  EXPECT_EQ(with([](auto& d) { d.stride = 2; }), "algo mma_seg (tensor cores) is stride 1 only");
  EXPECT_EQ(with([](auto& d) { d.r = d.s = 9; }), "algo mma_seg: filter 9x9 > 7x7 (16 input columns a tile row)");
  EXPECT_EQ(with([](auto& d) { d.block_c = 64; }),
            "algo mma_seg takes vec 8, cvecs 4, block_c 16 or 32 and pw 1 (got vec 8, cvecs 4, block_c 64, pw 1)");
  EXPECT_EQ(with([](auto& d) { d.ph = 8, d.tile_h = 32; }),
            "algo mma_seg: segments of ph 8 rows (1..7: 16 ph accumulators a lane)");
  EXPECT_EQ(with([](auto& d) { d.tile_h = 30; }), "algo mma_seg: tile_h 30 is not a multiple of ph 7");
  EXPECT_EQ(with([](auto& d) { d.tile_w = 20; }), "algo mma_seg: tile_w 20 is not a multiple of 8");
  EXPECT_EQ(
      with([](auto& d) { d.tile_w = 24; }),
      "algo mma_seg: 4 segments x 3 column tiles do not make slot sets of 16 (1, 2, 4 or 8 segments x 16, 8, 4 or 2 "
      "column tiles)");
  EXPECT_EQ(
      with([](auto& d) { d.tile_h = 21; }),
      "algo mma_seg: 3 segments x 4 column tiles do not make slot sets of 16 (1, 2, 4 or 8 segments x 16, 8, 4 or 2 "
      "column tiles)");
  EXPECT_EQ(with([](auto& d) { d.tile_h = 14, d.tile_w = 256; }),
            "algo mma_seg: the TMA box of block_c x (tile_w + 7) x (tile_h + r - 1) = 16 x 263 x 20 has a side > 256");
  EXPECT_EQ(with([](auto& d) { d.block_c = 32, d.tile_h = 16, d.ph = 2, d.tile_w = 128; }),
            "algo mma_seg: 64 warps > 32");  // 8 segments x 16 column tiles: eight slot sets of 8 warps
  EXPECT_EQ(
      with([](auto& d) { d.block_c = 32, d.tile_h = 56, d.tile_w = 32; }),
      "shared memory of 322512 bytes > 232448 (227 KiB, the largest opt-in shared memory per block of any target)");

  // 32 channels a block: 64-byte pixels, 8 warps a slot set. Two boxes of 34 x 39 pixels of 64
  // bytes plus a slack pixel (84992 each, rounded to 1024), 32 channels' tap pairs and raw taps;
  // one block (8 warps of 255 registers) an SM.
  kc::depthwise_config wide_c = c;
  wide_c.block_c = 32;
  EXPECT_EQ(kc::check_config(wide_c), "");
  EXPECT_EQ(kc::threads_per_block(wide_c), 256);
  EXPECT_EQ(kc::smem_bytes(wide_c), 2 * 84992 + 32 * 7 * 9 * 4 + 32 * 7 * 7 * 2 + 16);
  EXPECT_EQ(kc::min_blocks_per_sm(wide_c), 1);
  wide_c.tile_h = 16, wide_c.ph = 4;  // 64 accumulators: within 12 warps an SM, still one block
  EXPECT_EQ(kc::min_blocks_per_sm(wide_c), 1);

  // Persistent: as many blocks as run at once (2 x 132), rounded down to a multiple of the 8
  // channel groups; one block a tile where the SMs are not known.
  const auto sh = depthwise_shape(32, 56, 128, 7, 1, 3);
  const auto planned = kc::for_shape(c, dtype::f16, sh);
  kc::device_limits dev = h200();
  dev.sms = 132;
  kc::launch_plan p;
  EXPECT_EQ(kc::plan_launch(planned, sh, dev, p), "");
  EXPECT_EQ(p.grid_x, 264u);
  EXPECT_EQ(p.grid_y, 1u);
  EXPECT_EQ(p.grid_z, 1u);
  EXPECT_EQ(p.block_x, 128u);
  dev.sms = 0;
  EXPECT_EQ(kc::plan_launch(planned, sh, dev, p), "");
  EXPECT_EQ(p.grid_x, 2u * 2u * 8u * 32u);                  // 56 / 28 x 56 / 32 (rounded up) tiles, 8 groups, 32 images
  const auto wide = depthwise_shape(32, 28, 512, 7, 1, 3);  // 32 groups: 264 rounds down to 256
  dev.sms = 132;
  EXPECT_EQ(kc::plan_launch(kc::for_shape(c, dtype::f16, wide), wide, dev, p), "");
  EXPECT_EQ(p.grid_x, 256u);
  // The device's shared memory per SM where the planner knows it: room for one block a SM, so
  // 132 blocks, rounded down to a multiple of the 8 groups.
  dev.smem_per_sm = kc::smem_bytes(c) + 1024;
  EXPECT_EQ(kc::min_blocks_per_sm(c, dev.smem_per_sm), 1);
  EXPECT_EQ(kc::plan_launch(planned, sh, dev, p), "");
  EXPECT_EQ(p.grid_x, 128u);
  dev.smem_per_sm = 0;
  kc::device_limits ampere = h200();
  ampere.cc = 80;
  EXPECT_EQ(kc::plan_launch(planned, sh, ampere, p),
            "algo mma_seg loads through TMA, which needs compute capability 9.0 or newer (the device has 8.0)");
  // TMA only: the tensor's pixels must be whole 16-byte units.
  const auto odd_c = depthwise_shape(2, 17, 13, 7, 1, 3);
  EXPECT_EQ(kc::plan_launch(kc::for_shape(c, dtype::f16, odd_c), odd_c, dev, p),
            "algo mma_seg: c 13 is not a multiple of 8 (TMA needs 16-byte pixel strides)");
  // 32 channels a block: 4 groups on 128 channels, one block an SM.
  kc::depthwise_config c32 = c;
  c32.block_c = 32;
  EXPECT_EQ(kc::plan_launch(kc::for_shape(c32, dtype::f16, sh), sh, dev, p), "");
  EXPECT_EQ(p.grid_x, 132u);
  EXPECT_EQ(p.block_x, 256u);
}

TEST(conv_depthwise, plane_along_each_channel) {
  kc::depthwise_config c = cfg(1, 1, 8, 16, 32, 2, 4, algo::plane);
  c.lay = kc::layout::nchw;
  ASSERT_EQ(kc::check_config(c), "");
  // 8 planes x (16 / 2 rows x 32 / 4 columns of threads); the 3x3 patch of 18 x 34 floats, rows of
  // 36 (the last thread's two 16-byte vectors from column 28), then 3 x 3 taps padded to 12.
  EXPECT_EQ(kc::threads_per_block(c), 512);
  EXPECT_EQ(kc::smem_bytes(c), 8LL * (18 * 36 + 12) * 4);
  EXPECT_EQ(kc::min_blocks_per_sm(c), 1);  // 512 threads within 80 registers each
  EXPECT_EQ(kc::instance_name(c),
            "conv_depthwise_f16_nchw_plane_filter3x3_stride1_vec1_cvecs1_blockc8_tile16x32_ph2_pw4");
  EXPECT_EQ(kc::template_name(c),
            "cuop::kernels::conv::depthwise<__half, false, 3, 3, 1, 1, 1, 8, 16, 32, 2, 4, "
            "cuop::kernels::conv::depthwise_algo::plane>");
  const auto with = [&](auto change) {
    kc::depthwise_config d = c;
    change(d);
    return kc::check_config(d);
  };
  EXPECT_EQ(with([](auto& d) { d.lay = kc::layout::nhwc; }), "algo plane is NCHW only");
  EXPECT_EQ(with([](auto& d) { d.vec = 4; }), "algo plane takes vec 1 and cvecs 1 (got vec 4, cvecs 1)");
  EXPECT_EQ(with([](auto& d) { d.pw = 2; }),
            "algo plane: pw x stride = 2 is not a multiple of 4 (a thread's input columns start on a 16-byte "
            "boundary)");
  EXPECT_EQ(with([](auto& d) { d.pw = 2, d.stride = 2; }), "");
  EXPECT_EQ(with([](auto& d) { d.tile_w = 30; }), "tile_w 30 is not a multiple of pw 4");
  EXPECT_EQ(with([](auto& d) { d.ph = 16, d.pw = 8; }), "algo plane: ph x pw = 128 accumulators per thread > 64");
  EXPECT_EQ(with([](auto& d) { d.block_c = 32; }),
            "block of 2048 threads (block_c x (tile_h / ph) x (tile_w / pw)) outside 32..1024");
  EXPECT_EQ(with([](auto& d) { d.r = d.s = 31, d.block_c = 4, d.tile_h = 64, d.tile_w = 128, d.ph = 8, d.pw = 8; }),
            "shared memory of 256064 bytes > 232448 (227 KiB, the largest opt-in shared memory per block of any "
            "target)");
  kc::launch_plan plan;
  const auto sh = [] {
    kc::conv_shape s = depthwise_shape(3, 56, 20, 3, 1, 1);
    s.lay = kc::layout::nchw;
    return s;
  }();
  ASSERT_EQ(kc::plan_launch(c, sh, h200(), plan), "");
  EXPECT_EQ(plan.grid_x, 4u * 2u);  // 56 x 56 outputs in tiles of 16 x 32
  EXPECT_EQ(plan.grid_y, 3u);       // 20 channels in groups of 8
  EXPECT_EQ(plan.grid_z, 3u);
  EXPECT_EQ(plan.block_x, 512u);
}

TEST(conv_depthwise, launch_plan) {
  const auto sh = depthwise_shape(32, 56, 128, 7, 1, 3);
  const auto c = kc::for_shape(cfg(8, 1, 32, 8, 8, 2, 4, algo::smem), dtype::f16, sh);
  kc::launch_plan p;
  ASSERT_EQ(kc::plan_launch(c, sh, h200(), p), "");
  EXPECT_EQ(p.grid_x, 7u * 7u);  // 56 / 8 rows x 56 / 8 columns of tiles
  EXPECT_EQ(p.grid_y, 4u);       // 128 / 32 channel groups
  EXPECT_EQ(p.grid_z, 32u);
  EXPECT_EQ(p.block_x, 32u);  // 4 channel threads x 4 row threads x 2 column threads
  EXPECT_EQ(p.smem_bytes, static_cast<std::size_t>(49 * 32 * 4 + 14 * 14 * 32 * 2));
  auto other = sh;
  other.r = 5;
  EXPECT_TRUE(contains(kc::plan_launch(c, other, h200(), p), "filter 5x7 is not the configuration's 7x7"));
  other = sh;
  other.groups = 1;
  EXPECT_TRUE(contains(kc::plan_launch(c, other, h200(), p), "not depthwise"));
  other = sh;
  other.stride_h = other.stride_w = 2;
  EXPECT_TRUE(contains(kc::plan_launch(c, other, h200(), p), "stride 2x2 is not the configuration's 1"));
  other = sh;
  other.lay = kc::layout::nchw;
  EXPECT_TRUE(contains(kc::plan_launch(c, other, h200(), p), "layout nchw is not the configuration's nhwc"));
  kc::device_limits small = h200();
  small.max_smem_per_block = 1024;
  EXPECT_TRUE(contains(kc::plan_launch(c, sh, small, p), "> device limit 1024 (opt-in shared memory per block)"));
  small = h200();
  small.max_threads_per_block = 16;
  EXPECT_TRUE(contains(kc::plan_launch(c, sh, small, p), "block of 32 threads > device limit 16 (threads per block)"));
  // A 31x31 f16 tile staged as f32 (192 KiB) fits Hopper (227 KiB) but not Ampere (163 KiB).
  const auto large = depthwise_shape(8, 32, 1024, 31, 1, 15);
  const auto l = kc::for_shape(cfg(4, 1, 16, 16, 16, 2, 4, algo::smem_f32), dtype::f16, large);
  ASSERT_EQ(kc::smem_bytes(l), 961 * 16 * 4 + 46 * 46 * 16 * 4);
  EXPECT_EQ(kc::plan_launch(l, large, h200(), p), "");
  kc::device_limits ampere = h200();
  ampere.max_smem_per_block = 163 * 1024;
  EXPECT_EQ(kc::plan_launch(l, large, ampere, p),
            "shared memory of 196928 bytes > device limit 166912 (opt-in shared memory per block)");
}

// via_nhwc: an NCHW problem on the NHWC kernel of the same tunables, through a workspace holding
// x and y as NHWC. Everything about the kernel (its template, block, shared memory, plan) is the
// NHWC configuration's; the name says the layout and the path.
TEST(conv_depthwise, via_nhwc_runs_nchw_problems_on_the_nhwc_kernel) {
  auto sh = depthwise_shape(4, 56, 96, 7, 1, 3);
  sh.lay = kc::layout::nchw;
  kc::depthwise_config c = kc::for_shape(cfg(8, 4, 32, 16, 32, 4, 1, algo::mma_seg), dtype::f16, sh);
  EXPECT_EQ(kc::check_config(c), "algo mma_seg (tensor cores) is NHWC only");
  EXPECT_EQ(kc::workspace_bytes(c, sh), 0u);
  c.via_nhwc = 1;
  EXPECT_EQ(kc::check_config(c), "");
  EXPECT_EQ(kc::depthwise_optional_param_names(), (std::vector<std::string_view>{"via_nhwc"}));
  EXPECT_EQ(kc::get_param(c, "via_nhwc"), 1);
  EXPECT_EQ(kc::instance_name(c),
            "conv_depthwise_f16_nchw_via_nhwc_mma_seg_filter7x7_stride1_vec8_cvecs4_blockc32_tile16x32_ph4_pw1");
  const kc::depthwise_config k = kc::kernel_config(c);
  EXPECT_EQ(k.lay, kc::layout::nhwc);
  EXPECT_EQ(k.via_nhwc, 0);
  EXPECT_EQ(kc::template_name(c), kc::template_name(k));
  EXPECT_EQ(kc::threads_per_block(c), kc::threads_per_block(k));
  EXPECT_EQ(kc::smem_bytes(c), kc::smem_bytes(k));
  EXPECT_EQ(kc::min_blocks_per_sm(c), kc::min_blocks_per_sm(k));

  // The plan is the NHWC kernel's on the same sizes; the workspace x (rounded up to 256 bytes)
  // then y.
  auto nhwc = sh;
  nhwc.lay = kc::layout::nhwc;
  kc::launch_plan via, direct;
  kc::device_limits dev = h200();
  dev.sms = 132;
  ASSERT_EQ(kc::plan_launch(c, sh, dev, via), "");
  ASSERT_EQ(kc::plan_launch(k, nhwc, dev, direct), "");
  EXPECT_EQ(via.grid_x, direct.grid_x);
  EXPECT_EQ(via.block_x, direct.block_x);
  EXPECT_EQ(via.smem_bytes, direct.smem_bytes);
  const std::size_t x_bytes = 4ull * 96 * 56 * 56 * 2;
  EXPECT_EQ(kc::workspace_y_offset(c, sh), (x_bytes + 255) / 256 * 256);
  EXPECT_EQ(kc::workspace_bytes(c, sh), (x_bytes + 255) / 256 * 256 + x_bytes);
  // The problem must be NCHW, and what the NHWC kernel refuses is refused, saying why.
  EXPECT_EQ(kc::plan_launch(c, nhwc, dev, via), "layout nhwc is not the configuration's nchw");
  auto wrong = c;
  wrong.lay = kc::layout::nhwc;
  EXPECT_EQ(kc::check_config(wrong), "via_nhwc 1 runs an NCHW problem as NHWC; this one is nhwc");
  wrong = c;
  wrong.via_nhwc = 2;
  EXPECT_EQ(kc::check_config(wrong), "via_nhwc 2 is not 0 or 1");
  wrong = c;
  wrong.r = wrong.s = 9;
  EXPECT_EQ(kc::check_config(wrong), "via_nhwc: algo mma_seg: filter 9x9 > 7x7 (16 input columns a tile row)");
  // The transposes' grid: 65535 tiles of 32 output pixels (or channels) at most.
  auto huge = sh;
  huge.n = 1;
  huge.h = huge.w = 1449;  // 2099601 output pixels
  EXPECT_EQ(kc::plan_launch(c, huge, dev, via),
            "via_nhwc: 96 channels or 2099601 output pixels > 2097120 (the transposes' grid)");
  huge.h = huge.w = 1448;
  EXPECT_EQ(kc::plan_launch(c, huge, dev, via), "");
  auto odd = sh;
  odd.c = odd.k = odd.groups = 92;
  EXPECT_EQ(kc::plan_launch(c, odd, dev, via),
            "algo mma_seg: c 92 is not a multiple of 8 (TMA needs 16-byte pixel strides)");
}
