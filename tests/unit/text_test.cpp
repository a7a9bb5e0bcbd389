// core::printable, quoted and is_utf8: what a message may show of a user's value.
#include <gtest/gtest.h>

#include <string>

#include "tuner/core/text.hpp"

namespace {

using cuop::core::is_utf8;
using cuop::core::printable;
using cuop::core::printable_lines;

TEST(text, control_characters_are_escaped) {
  EXPECT_EQ(printable("a\nb\rc\td"), "a\\nb\\rc\\td");
  EXPECT_EQ(printable("\x1b[31mred\x07\x7f"), "\\x1b[31mred\\x07\\x7f");
  EXPECT_EQ(printable(std::string("nul\0here", 8)), "nul\\x00here");
  EXPECT_EQ(printable_lines("a\nb\x1b"), "a\nb\\x1b");
}

TEST(text, valid_utf8_stays_as_it_is) {
  EXPECT_EQ(printable("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80"),
            "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80");
  EXPECT_EQ(printable("quotes \" and \\ backslashes"), "quotes \" and \\ backslashes");
}

TEST(text, bytes_that_are_not_utf8_are_escaped_one_by_one) {
  EXPECT_EQ(printable("a\xff"
                      "b"),
            "a\\xffb");
  EXPECT_EQ(printable("\xc0\x80"), "\\xc0\\x80");                    // overlong NUL
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // a surrogate
  EXPECT_EQ(printable("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // above U+10FFFF
  EXPECT_EQ(printable("\xe6\x97"), "\\xe6\\x97");                    // cut short
}

TEST(text, terminal_controls_beyond_ascii_are_escaped) {
  EXPECT_EQ(printable("\xc2\x9b"
                      "2J"),
            "\\u009b2J");  // C1 CSI
  EXPECT_EQ(printable("abc\xe2\x80\xae"
                      "def"),
            "abc\\u202edef");                                            // right-to-left override
  EXPECT_EQ(printable("\xe2\x81\xa6x\xe2\x80\xa8"), "\\u2066x\\u2028");  // isolate, line separator
}

TEST(text, printable_is_idempotent_and_its_output_utf8) {
  const char bytes[] = "\x1b]0;t\x07\xff\xc2\x9b\xe2\x80\xae\n\\x41";
  const std::string hostile(bytes, sizeof bytes - 1);
  EXPECT_EQ(printable(printable(hostile)), printable(hostile));
  EXPECT_TRUE(is_utf8(printable(hostile)));
  EXPECT_FALSE(is_utf8(hostile));
  EXPECT_TRUE(is_utf8("plain \xc3\xa9"));
}

TEST(text, a_long_value_is_quoted_in_part_at_a_character_boundary) {
  EXPECT_EQ(cuop::core::quoted("x"), "\"x\"");
  EXPECT_EQ(cuop::core::quoted(std::string(200, 'a')), "\"" + std::string(200, 'a') + "\"");
  EXPECT_EQ(cuop::core::quoted(std::string(201, 'a')), "\"" + std::string(160, 'a') + "...\" (201 bytes)");
  // 159 ASCII bytes then two-byte characters: the cut at 160 would split one.
  std::string mixed(159, 'a');
  for (int i = 0; i < 40; ++i) mixed += "\xc3\xa9";
  EXPECT_EQ(cuop::core::quoted(mixed), "\"" + std::string(159, 'a') + "...\" (239 bytes)");
}

}  // namespace
