// The CSV cells of `--format csv`: quoted where a separator, quote or line break needs it, formula
// starts defused, control characters escaped, numbers in their shortest exact form.
#include <gtest/gtest.h>

#include <cmath>

#include "tuner/report/csv.hpp"

namespace report = cuop::report;

TEST(csv, plain_text_and_numbers_stay_as_they_are) {
  EXPECT_EQ(report::csv_text("softmax_f32_4096x4096"), "softmax_f32_4096x4096");
  EXPECT_EQ(report::csv_number(34.656), "34.656");
  EXPECT_EQ(report::csv_number(-1.5), "-1.5");
  EXPECT_EQ(report::csv_number(NAN), "");
  EXPECT_EQ(report::csv_row({"a", "1"}), "a,1\r\n");
}

TEST(csv, separators_and_quotes_are_quoted) {
  EXPECT_EQ(report::csv_text("a,b"), "\"a,b\"");
  EXPECT_EQ(report::csv_text("say \"hi\""), "\"say \"\"hi\"\"\"");
}

TEST(csv, a_formula_start_is_defused_and_control_characters_escaped) {
  EXPECT_EQ(report::csv_text("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
  EXPECT_EQ(report::csv_text("+1"), "'+1");
  EXPECT_EQ(report::csv_text("@sum"), "'@sum");
  EXPECT_EQ(report::csv_text("a\nb"), "a\\nb");
  EXPECT_EQ(report::csv_text("\x1b[31m"), "\\x1b[31m");
}
