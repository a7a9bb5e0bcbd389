// The guard in front of yaml-cpp (tuner/spec/yaml_guard.hpp): a ',' that starts a value outside a
// flow collection is refused with its place; everything else reaches yaml-cpp unchanged.
#include <gtest/gtest.h>

#include <string>

#include "tuner/spec/yaml_guard.hpp"

namespace {

using cuop::spec::detail::find_yaml_hazard;

std::string place(const char* text) {
  const auto h = find_yaml_hazard(text);
  return h ? std::to_string(h->line) + ":" + std::to_string(h->column) : "none";
}

TEST(yaml_guard, a_comma_that_starts_a_value_is_found) {
  EXPECT_EQ(place(", a\n"), "1:1");
  EXPECT_EQ(place("  , a\n"), "1:3");
  EXPECT_EQ(place("- a\n, b\n"), "2:1");
  EXPECT_EQ(place("&x , a\n"), "1:4");
  EXPECT_EQ(place("!t , a\n"), "1:4");
  EXPECT_EQ(place("&g, "), "1:3");  // an anchor's name ends at the ',' (a fuzz finding)
  EXPECT_EQ(place("--- , a\n"), "1:5");
  EXPECT_EQ(place("a: 1\n---\n, b\n"), "3:1");
  EXPECT_EQ(place("k: , a\n"), "1:4");
  EXPECT_EQ(place("k:\n  - , a\n"), "2:5");
  EXPECT_EQ(place(", dtype: f16}\ncandidates:\n  - family: x [vec, chunks]\n"), "1:1");
}

TEST(yaml_guard, commas_inside_scalars_flows_quotes_comments_and_block_scalars_pass) {
  EXPECT_EQ(place("k: a, b\n"), "none");
  EXPECT_EQ(place("k: a , b\n"), "none");
  EXPECT_EQ(place("k: [a, b, {c: 1, d: 2}]\n"), "none");
  EXPECT_EQ(place("k: [a,\n  , b]\n"), "none");  // yaml-cpp's to judge: inside a flow
  EXPECT_EQ(place("k: ', a'\n"), "none");
  EXPECT_EQ(place("k: \", a\" # , b\n"), "none");
  EXPECT_EQ(place("# , a\nk: 1\n"), "none");
  EXPECT_EQ(place("k: |\n  , a\n  , b\nj: 2\n"), "none");
  EXPECT_EQ(place("k: >-\n  , a\n"), "none");
  EXPECT_EQ(place("constraints:\n  - \"vec * threads >= cols\"\n"), "none");
  EXPECT_EQ(place(""), "none");
  EXPECT_EQ(place("k: \"a\\"), "none");  // a quote left open by an escape at the end (a fuzz finding)
  EXPECT_EQ(place("k: \"a\\\n, b\"\n"), "none");
}

}  // namespace
