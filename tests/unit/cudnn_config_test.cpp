// cuDNN engine configurations without a GPU: stable identifiers (exact round trips, precise
// refusals) and the budgeted, deterministic enumeration of engines' knob spaces.
#include <gtest/gtest.h>

#include <string>

#include "cuop/backends/cudnn.hpp"

namespace {

using namespace cuop::backends;

cudnn_config cfg(std::int64_t engine, std::vector<cudnn_knob> knobs) { return {engine, std::move(knobs)}; }

}  // namespace

TEST(cudnn_config, identifiers_round_trip) {
  for (const auto& c : {cfg(0, {}), cfg(12, {{3, 1}}), cfg(7, {{1, 0}, {3, 64}, {10, -1}})}) {
    const std::string id = cudnn_config_id(c);
    cudnn_config back;
    std::string why;
    ASSERT_TRUE(parse_cudnn_config_id(id, back, &why)) << id << ": " << why;
    EXPECT_EQ(back, c) << id;
    EXPECT_EQ(cudnn_config_id(back), id);
  }
  EXPECT_EQ(cudnn_config_id(cfg(7, {{1, 0}, {3, 64}, {10, -1}})), "dnn_e7_k1v0_k3v64_k10v-1");
}

TEST(cudnn_config, malformed_identifiers_are_refused_and_out_is_untouched) {
  const cudnn_config keep = cfg(5, {{2, 2}});
  const std::pair<const char*, const char*> cases[] = {
      {"lt_a1", "does not start with \"dnn_e\""},
      {"dnn_e", "bad engine index"},
      {"dnn_e01", "bad engine index"},
      {"dnn_e-1", "bad engine index"},
      {"dnn_e1_x2", "expected \"_k<type>v<value>\""},
      {"dnn_e1_k2", "knob type without \"v<value>\""},
      {"dnn_e1_k2v", "bad knob value"},
      {"dnn_e1_k2v-0", "bad knob value"},
      {"dnn_e1_k3v0_k2v0", "knob types not increasing"},
      {"dnn_e1_k3v0_k3v1", "knob types not increasing"},
      {"dnn_e1_k3v99999999999999999999", "bad knob value"},
  };
  for (const auto& [text, message] : cases) {
    cudnn_config out = keep;
    std::string why;
    EXPECT_FALSE(parse_cudnn_config_id(text, out, &why)) << text;
    EXPECT_NE(why.find(message), std::string::npos) << text << ": " << why;
    EXPECT_EQ(out, keep) << text;
  }
}

TEST(cudnn_config, knob_spaces_are_enumerated_round_robin_within_the_budget) {
  const std::vector<cudnn_engine_knobs> engines = {
      {3, {{5, 0, 2, 1}, {1, 16, 32, 16}}},  // 2 x 3 combinations; knobs sorted by type
      {9, {}},                               // no knobs: one configuration
      {4, {{2, 1, 0, 1}}},                   // an empty range: the knob is skipped
  };
  const auto all = enumerate_cudnn_knobs(engines, 100);
  ASSERT_EQ(all.size(), 8u);
  // Round robin: the first of each engine, then the rest of engine 3.
  EXPECT_EQ(cudnn_config_id(all[0]), "dnn_e3_k1v16_k5v0");
  EXPECT_EQ(cudnn_config_id(all[1]), "dnn_e9");
  EXPECT_EQ(cudnn_config_id(all[2]), "dnn_e4");
  EXPECT_EQ(cudnn_config_id(all[3]), "dnn_e3_k1v16_k5v1");
  EXPECT_EQ(cudnn_config_id(all[7]), "dnn_e3_k1v32_k5v2");
  // A small budget still reaches every engine; answers already listed do not count.
  const auto three = enumerate_cudnn_knobs(engines, 3, {cfg(9, {})});
  ASSERT_EQ(three.size(), 3u);
  EXPECT_EQ(cudnn_config_id(three[0]), "dnn_e3_k1v16_k5v0");
  EXPECT_EQ(cudnn_config_id(three[1]), "dnn_e4");
  EXPECT_EQ(cudnn_config_id(three[2]), "dnn_e3_k1v16_k5v1");
  EXPECT_EQ(enumerate_cudnn_knobs(engines, 3, {cfg(9, {})}), three);  // deterministic
  EXPECT_TRUE(enumerate_cudnn_knobs(engines, 0).empty());
}
