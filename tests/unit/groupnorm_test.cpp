// GroupNorm on the CPU: the family's names, shapes, configurations and launch plans (the library's
// kernels against the default rule: tests/gpu/groupnorm_test.cu, which links the library).
#include <gtest/gtest.h>

#include <string>

#include "cuop/kernels/groupnorm/family.hpp"

namespace kg = cuop::kernels::groupnorm;
using cuop::dtype;

namespace {

const kg::device_limits h200{90, 132, 1024};

TEST(groupnorm_family, names_templates_and_parameters) {
  kg::groupnorm_config c{kg::family::group_loop, dtype::bf16, kg::layout::nhwc, true};
  EXPECT_TRUE(kg::set_param(c, "vec", 8));
  EXPECT_TRUE(kg::set_param(c, "block_threads", 512));
  EXPECT_FALSE(kg::set_param(c, "chunks", 2));
  EXPECT_FALSE(kg::set_param(c, "vec", -1));
  EXPECT_EQ(kg::get_param(c, "block_threads"), 512);
  EXPECT_EQ(kg::get_param(c, "chunks"), -1);
  EXPECT_EQ(kg::instance_name(c), "groupnorm_bf16_nhwc_silu_group_loop_vec8_threads512");
  EXPECT_EQ(kg::template_name(c), "cuop::kernels::groupnorm::group_loop<__nv_bfloat16, 8, 512, 0, 1>");
  c = {kg::family::group_loop, dtype::f32, kg::layout::nchw, false, 4, 256};
  EXPECT_EQ(kg::instance_name(c), "groupnorm_f32_nchw_group_loop_vec4_threads256");
  EXPECT_EQ(kg::template_name(c), "cuop::kernels::groupnorm::group_loop<float, 4, 256, 1, 0>");
  kg::layout l{};
  EXPECT_TRUE(kg::parse_layout("nhwc", l));
  EXPECT_EQ(l, kg::layout::nhwc);
  EXPECT_FALSE(kg::parse_layout("chwn", l));
  kg::family f{};
  EXPECT_TRUE(kg::parse_family("group_loop", f));
  EXPECT_FALSE(kg::parse_family("warp_row", f));
}

TEST(groupnorm_family, malformed_shapes_and_configurations_say_why) {
  EXPECT_EQ(kg::check_shape({2, 64, 100, 32}), "");
  EXPECT_EQ(kg::check_shape({2, 64, 100, 30}), "channels 64 do not divide into 30 groups");
  EXPECT_EQ(kg::check_shape({2, 64, 100, 0}), "c and groups must be >= 1");
  EXPECT_EQ(kg::check_shape({-1, 64, 100, 32}), "n and hw must be >= 0");
  EXPECT_EQ(kg::check_shape({1, 1LL << 31, 1, 1}), "c must be < 2^31");
  EXPECT_EQ(kg::check_shape({1, 1 << 16, 1 << 15, 1}), "a group of 65536 x 32768 elements >= 2^31");
  kg::groupnorm_config c{kg::family::group_loop, dtype::f32, kg::layout::nchw, false, 8, 256};
  EXPECT_EQ(kg::check_config(c), "vec * sizeof(element) > 16 bytes");
  c.vec = 4;
  c.block_threads = 100;
  EXPECT_EQ(kg::check_config(c), "threads per block must be a multiple of 32");
  c.block_threads = 256;
  kg::launch_plan plan;
  EXPECT_EQ(kg::plan_launch(c, {3, 64, 100, 32}, h200, plan), "");
  EXPECT_EQ(plan.grid_x, 96u);  // one block per group
  EXPECT_EQ(plan.block_x, 256u);
  EXPECT_EQ(kg::plan_launch(c, {3, 64, 100, 30}, h200, plan), "channels 64 do not divide into 30 groups");
  EXPECT_EQ(kg::plan_launch(c, {3, 64, 100, 32}, {75, 40, 1024}, plan), "needs sm_80 or newer");
}

}  // namespace
