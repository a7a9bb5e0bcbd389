// The identity of a cuBLASLt algorithm configuration and its stable text identifier: exact round
// trips, messages that name the problem, distinct identifiers for distinct algorithms.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "cuop/backends/cublaslt.hpp"

namespace {

using cuop::backends::lt_config;
using cuop::backends::lt_config_id;
using cuop::backends::parse_lt_config_id;
using cuop::backends::same_identity;

lt_config make(std::int32_t a, std::uint32_t t, std::uint32_t s, std::int32_t k, std::uint32_t r, std::uint32_t w,
               std::uint32_t c, std::uint16_t i, std::uint16_t cl) {
  lt_config x;
  x.algo_id = a;
  x.tile = t;
  x.stages = s;
  x.split_k = k;
  x.reduction = r;
  x.swizzle = w;
  x.custom = c;
  x.inner_shape = i;
  x.cluster_shape = cl;
  return x;
}

// The message parse_lt_config_id gives for `text`; a test failure if it accepts it.
std::string parse_error(const std::string& text) {
  lt_config out = make(7, 7, 7, 7, 7, 7, 7, 7, 7);
  std::string why;
  EXPECT_FALSE(parse_lt_config_id(text, out, &why)) << "accepted " << text;
  EXPECT_FALSE(why.empty()) << text;
  EXPECT_TRUE(same_identity(out, make(7, 7, 7, 7, 7, 7, 7, 7, 7))) << "out changed by " << text;
  return why;
}

void expect_round_trip(const lt_config& c) {
  const std::string id = lt_config_id(c);
  lt_config back;
  std::string why;
  ASSERT_TRUE(parse_lt_config_id(id, back, &why)) << id << ": " << why;
  EXPECT_TRUE(same_identity(back, c)) << id;
  EXPECT_EQ(lt_config_id(back), id);
}

TEST(cublaslt_config, identifier_format) {
  EXPECT_EQ(lt_config_id(lt_config{}), "lt_a0_t0_s0_k1_r0_w0_c0_i0_cl0");
  EXPECT_EQ(lt_config_id(make(66, 18, 22, 1, 0, 0, 0, 0, 0)), "lt_a66_t18_s22_k1_r0_w0_c0_i0_cl0");
  EXPECT_EQ(lt_config_id(make(21, 20, 8, 4, 2, 1, 3, 4, 6)), "lt_a21_t20_s8_k4_r2_w1_c3_i4_cl6");
}

TEST(cublaslt_config, round_trip_is_exact) {
  expect_round_trip(lt_config{});
  expect_round_trip(make(66, 18, 22, 1, 0, 0, 0, 0, 0));
  expect_round_trip(make(21, 20, 8, 16, 4, 1, 2, 4, 51));
  constexpr auto i32 = std::numeric_limits<std::int32_t>::max();
  constexpr auto u32 = std::numeric_limits<std::uint32_t>::max();
  constexpr auto u16 = std::numeric_limits<std::uint16_t>::max();
  expect_round_trip(make(i32, u32, u32, i32, u32, u32, u32, u16, u16));
  // int32 attributes cuBLASLt never sets negative still round-trip exactly.
  expect_round_trip(make(std::numeric_limits<std::int32_t>::min(), 0, 0, -1, 0, 0, 0, 0, 0));
  // Text -> config -> text.
  for (const char* id : {"lt_a66_t18_s22_k1_r0_w0_c0_i0_cl0", "lt_a0_t0_s0_k0_r0_w0_c0_i0_cl0",
                         "lt_a-5_t1_s2_k-1_r3_w1_c9_i65535_cl2"}) {
    lt_config c;
    std::string why;
    ASSERT_TRUE(parse_lt_config_id(id, c, &why)) << id << ": " << why;
    EXPECT_EQ(lt_config_id(c), id);
  }
}

TEST(cublaslt_config, parse_keeps_what_is_not_identity) {
  lt_config c;
  c.workspace_bytes = 12345;
  c.waves = 1.5f;
  ASSERT_TRUE(parse_lt_config_id("lt_a6_t20_s8_k2_r1_w0_c0_i0_cl0", c, nullptr));
  EXPECT_EQ(c.algo_id, 6);
  EXPECT_EQ(c.tile, 20u);
  EXPECT_EQ(c.stages, 8u);
  EXPECT_EQ(c.split_k, 2);
  EXPECT_EQ(c.reduction, 1u);
  EXPECT_EQ(c.workspace_bytes, 12345u);
  EXPECT_EQ(c.waves, 1.5f);
  // Identity ignores them.
  lt_config d = c;
  d.workspace_bytes = 0;
  d.waves = 0;
  EXPECT_TRUE(same_identity(c, d));
  EXPECT_EQ(lt_config_id(c), lt_config_id(d));
}

TEST(cublaslt_config, unknown_field) {
  const std::string why = parse_error("lt_a66_t18_s22_x3_k1_r0_w0_c0_i0_cl0");
  EXPECT_NE(why.find("unknown field \"x\""), std::string::npos) << why;
  EXPECT_NE(why.find("expected one of: a, t, s, k, r, w, c, i, cl"), std::string::npos) << why;
  EXPECT_NE(parse_error("lt_a66_t18_s22_k1_r0_w0_c0_i0_cl0_z1").find("unknown field \"z\""), std::string::npos);
  // Keys are lowercase.
  EXPECT_NE(parse_error("lt_A66_t18_s22_k1_r0_w0_c0_i0_cl0").find("has no name"), std::string::npos);
}

TEST(cublaslt_config, missing_field) {
  std::string why = parse_error("lt_a66_t18_s22_k1_r0_w0_c0_i0");
  EXPECT_NE(why.find("missing field \"cl\""), std::string::npos) << why;
  why = parse_error("lt_a66_s22_k1_r0_w0_c0_i0_cl0");
  EXPECT_NE(why.find("missing field \"t\""), std::string::npos) << why;
  why = parse_error("lt_a66");
  EXPECT_NE(why.find("missing field \"t\""), std::string::npos) << why;
}

TEST(cublaslt_config, duplicate_and_order) {
  std::string why = parse_error("lt_a66_t18_t18_s22_k1_r0_w0_c0_i0_cl0");
  EXPECT_NE(why.find("duplicate field \"t\""), std::string::npos) << why;
  why = parse_error("lt_t18_a66_s22_k1_r0_w0_c0_i0_cl0");
  EXPECT_NE(why.find("out of order"), std::string::npos) << why;
  EXPECT_NE(why.find("field \"t\""), std::string::npos) << why;
}

TEST(cublaslt_config, bad_values) {
  std::string why = parse_error("lt_a66_t18x_s22_k1_r0_w0_c0_i0_cl0");
  EXPECT_NE(why.find("bad value \"18x\" of field \"t\""), std::string::npos) << why;
  why = parse_error("lt_a66_t018_s22_k1_r0_w0_c0_i0_cl0");  // not canonical: would not round-trip
  EXPECT_NE(why.find("bad value \"018\""), std::string::npos) << why;
  why = parse_error("lt_a66_t_s22_k1_r0_w0_c0_i0_cl0");
  EXPECT_NE(why.find("bad value \"\" of field \"t\""), std::string::npos) << why;
  why = parse_error("lt_a66_t-1_s22_k1_r0_w0_c0_i0_cl0");  // unsigned attribute
  EXPECT_NE(why.find("bad value \"-1\""), std::string::npos) << why;
  why = parse_error("lt_a-0_t1_s22_k1_r0_w0_c0_i0_cl0");
  EXPECT_NE(why.find("bad value \"-0\""), std::string::npos) << why;
  why = parse_error("lt_a66_t18_s22_k1_r0_w0_c0_i0_cl65536");  // uint16 attribute
  EXPECT_NE(why.find("value \"65536\" of field \"cl\""), std::string::npos) << why;
  EXPECT_NE(why.find("out of range (expected 0 to 65535)"), std::string::npos) << why;
  why = parse_error("lt_a2147483648_t18_s22_k1_r0_w0_c0_i0_cl0");  // int32 attribute
  EXPECT_NE(why.find("out of range"), std::string::npos) << why;
  why = parse_error("lt_a66_t99999999999999999999999_s22_k1_r0_w0_c0_i0_cl0");
  EXPECT_NE(why.find("out of range"), std::string::npos) << why;
}

TEST(cublaslt_config, garbage) {
  for (const std::string text : {"", "lt_", "lt", "hello", "LT_a66_t18_s22_k1_r0_w0_c0_i0_cl0",
                                 "cublaslt_gemm_bf16_tn_algo21_tile20_s8_splitk1", "_a66"}) {
    const std::string why = parse_error(text);
    EXPECT_NE(why.find("not a cublaslt config id"), std::string::npos) << text << ": " << why;
    EXPECT_NE(why.find("lt_a66_t18_s22_k1_r0_w0_c0_i0_cl0"), std::string::npos) << why;  // example
  }
  EXPECT_NE(parse_error("lt__a66").find("empty field"), std::string::npos);
  EXPECT_NE(parse_error("lt_a66_t18_s22_k1_r0_w0_c0_i0_cl0_").find("empty field"), std::string::npos);
  EXPECT_NE(parse_error("lt_a66_t18_s22_k1_r0_w0_c0_i0_cl0 ").find("bad value \"0 \""), std::string::npos);
  // Bytes that are not printable are shown escaped, never raw.
  const std::string why = parse_error(std::string("lt_a6\x01_t1"));
  EXPECT_NE(why.find("\\x01"), std::string::npos) << why;
  EXPECT_EQ(why.find('\x01'), std::string::npos);
  // A null `why` is allowed.
  lt_config c;
  EXPECT_FALSE(parse_lt_config_id("nonsense", c, nullptr));
}

TEST(cublaslt_config, distinct_configs_have_distinct_ids) {
  // Changing any one field changes the identifier.
  const lt_config base = make(21, 20, 8, 1, 0, 0, 0, 0, 0);
  std::vector<lt_config> variants{base};
  auto add = [&](auto mutate) {
    lt_config c = base;
    mutate(c);
    variants.push_back(c);
  };
  add([](lt_config& c) { c.algo_id = 22; });
  add([](lt_config& c) { c.tile = 21; });
  add([](lt_config& c) { c.stages = 9; });
  add([](lt_config& c) { c.split_k = 2; });
  add([](lt_config& c) { c.reduction = 1; });
  add([](lt_config& c) { c.swizzle = 1; });
  add([](lt_config& c) { c.custom = 1; });
  add([](lt_config& c) { c.inner_shape = 1; });
  add([](lt_config& c) { c.cluster_shape = 2; });
  // Values whose digits could run together if the keys did not separate them.
  add([](lt_config& c) {
    c.tile = 2;
    c.stages = 18;
  });
  add([](lt_config& c) {
    c.tile = 21;
    c.stages = 88;
  });
  add([](lt_config& c) {
    c.tile = 218;
    c.stages = 8;
  });
  std::set<std::string> ids;
  for (const auto& v : variants) ids.insert(lt_config_id(v));
  EXPECT_EQ(ids.size(), variants.size());

  // Many pseudo-random configurations: equal identifiers exactly when the identities are equal,
  // and every one round-trips.
  std::mt19937 gen(12345);
  auto small = [&](int n) { return static_cast<std::uint32_t>(gen() % n); };
  std::vector<lt_config> configs;
  for (int i = 0; i < 1000; ++i)
    configs.push_back(make(static_cast<std::int32_t>(small(4)), small(3), small(3), static_cast<std::int32_t>(small(3)),
                           small(2), small(2), small(2), static_cast<std::uint16_t>(small(2)),
                           static_cast<std::uint16_t>(small(3))));
  for (std::size_t i = 0; i < configs.size(); ++i) {
    expect_round_trip(configs[i]);
    for (std::size_t j = i + 1; j < configs.size() && j < i + 40; ++j)
      EXPECT_EQ(same_identity(configs[i], configs[j]), lt_config_id(configs[i]) == lt_config_id(configs[j]));
  }
}

TEST(cublaslt_config, identity_order_is_strict) {
  using cuop::backends::identity_less;
  const lt_config a = make(1, 2, 3, 1, 0, 0, 0, 0, 0);
  lt_config b = a;
  EXPECT_FALSE(identity_less(a, b));
  EXPECT_FALSE(identity_less(b, a));
  b.cluster_shape = 1;
  EXPECT_TRUE(identity_less(a, b));
  EXPECT_FALSE(identity_less(b, a));
  b.workspace_bytes = 99;  // not identity
  lt_config c = a;
  c.cluster_shape = 1;
  EXPECT_FALSE(identity_less(b, c));
  EXPECT_FALSE(identity_less(c, b));
}

}  // namespace
