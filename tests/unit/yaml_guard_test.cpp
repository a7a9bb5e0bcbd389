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

// yaml-cpp 0.7 loops the same way on text after a node that ended on its line, when a complex
// key or a ',' comes after (fuzz findings: `""l` then `?`, and `[],`).
TEST(yaml_guard, text_after_a_closed_quote_or_flow_is_found) {
  EXPECT_EQ(place("\"\"l\n?\n"), "1:3");
  EXPECT_EQ(place("\"a\" l\n? x\n: y\n"), "1:5");
  EXPECT_EQ(place("'a' l\n?\n"), "1:5");
  EXPECT_EQ(place("[a] l\n?\n"), "1:5");
  EXPECT_EQ(place("{a: 1} l\n"), "1:8");
  EXPECT_EQ(place("[],\n"), "1:3");
  EXPECT_EQ(place("\"a\" ,\n"), "1:5");
  EXPECT_EQ(place("k: \"a\"b\n"), "1:7");
  EXPECT_EQ(place("k: \"a\n  b\" c\n"), "2:6");  // the quote closes on the next line
  EXPECT_EQ(place("k: [1,\n  2] x\n"), "2:6");
  EXPECT_EQ(place("\"a\"#c\n"), "1:4");  // a comment starts after a blank
}

TEST(yaml_guard, keys_comments_and_flows_after_a_closed_node_pass) {
  EXPECT_EQ(place("\"a\": 1\n'b':\n  - 2\n"), "none");
  EXPECT_EQ(place("k: \"a\"  # note\n"), "none");
  EXPECT_EQ(place("k: [1, \"a\"x, {b: 'c'}]\n"), "none");  // inside a flow: yaml-cpp's to judge
  EXPECT_EQ(place("k: [1, 2]\t\nj: {a: 1}\n"), "none");
  EXPECT_EQ(place("[a, b]: 1\n"), "none");
  EXPECT_EQ(place("k: \"a\n  b\"\nj: 1\n"), "none");
  EXPECT_EQ(place("k: it's \"fine\" here\n"), "none");  // quotes inside a plain scalar
  EXPECT_EQ(place("k: a[1] b{c} d\n"), "none");         // brackets too
  EXPECT_EQ(place("- &x \"a\"\n- !t [1]  \n"), "none");
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
