// `sweep --batch-plan FILE`: how the file is read, what it refuses, and what a problem it does not
// name gets (the timer decides).
#include <gtest/gtest.h>

#include <fstream>

#include "test_support.hpp"
#include "tuner/core/files.hpp"
#include "tuner/runner/batch_plan.hpp"

namespace {

using namespace cuop;

struct scratch : test::scratch {
  scratch() : test::scratch("cuop-batch-plan-test") {}
};

std::string plan_file(const scratch& s, const std::string& text) {
  std::ofstream(s / "plan.json") << text;
  return s / "plan.json";
}

}  // namespace

TEST(batch_plan, written_and_read_back) {
  scratch s;
  runner::batch_plan_map plan;
  plan["softmax_f16_65536x128"].launches = 241;
  plan["gemm_bf16_4096x4096x4096"].launches = 1;
  plan["conv2d_x"] = {11, {{"cudnn_heuristic", 1}, {"cudnn_e72", 11}}};
  runner::write_batch_plan(s / "plan.json", plan);
  EXPECT_EQ(runner::read_batch_plan(s / "plan.json"), plan);
  EXPECT_NE(core::read_file(s / "plan.json").value_or("").find("\"*\": 11"), std::string::npos);
  EXPECT_EQ(runner::planned_launches(plan, "softmax_f16_65536x128"), 241);
  EXPECT_EQ(runner::planned_launches(plan, "softmax_f16_65536x128", "any"), 241);
  EXPECT_EQ(runner::planned_launches(plan, "gemm_bf16_4096x4096x4096"), 1);     // single launches, forced
  EXPECT_EQ(runner::planned_launches(plan, "conv2d_x", "cudnn_heuristic"), 1);  // its own
  EXPECT_EQ(runner::planned_launches(plan, "conv2d_x", "fft_t64"), 11);         // the problem's
  EXPECT_EQ(runner::planned_launches(plan, "softmax_f32_8x32"), 0);             // not named: the timer decides
}

TEST(batch_plan, per_configuration_entries_are_read) {
  scratch s;
  const auto plan = runner::read_batch_plan(plan_file(s, R"({"p": {"a": 1, "*": 8}, "q": {"b": 3}})"));
  EXPECT_EQ(runner::planned_launches(plan, "p", "a"), 1);
  EXPECT_EQ(runner::planned_launches(plan, "p", "z"), 8);
  EXPECT_EQ(runner::planned_launches(plan, "q", "b"), 3);
  EXPECT_EQ(runner::planned_launches(plan, "q", "z"), 0);  // no "*": the timer decides
  const auto m = test::error_of([&] { runner::read_batch_plan(plan_file(s, R"({"p": {"a": 0}})")); });
  EXPECT_NE(m.find("plan.json: \"p a\": launches per sample must be a whole number from 1 to 4096, got 0"),
            std::string::npos)
      << m;
}

TEST(batch_plan, bad_files_are_refused_naming_the_file_and_entry) {
  scratch s;
  auto m = test::error_of([&] { runner::read_batch_plan(s / "missing.json"); });
  EXPECT_NE(m.find("missing.json: cannot open batch plan (No such file or directory)"), std::string::npos) << m;
  m = test::error_of([&] { runner::read_batch_plan(plan_file(s, "{\"a\": 8,")); });
  EXPECT_NE(m.find("plan.json: not JSON"), std::string::npos) << m;
  m = test::error_of([&] { runner::read_batch_plan(plan_file(s, "[8]")); });
  EXPECT_NE(m.find("plan.json: a batch plan is a JSON object"), std::string::npos) << m;
  for (const char* bad : {"0", "-3", "2.5", "\"8\"", "5000"}) {
    m = test::error_of([&] { runner::read_batch_plan(plan_file(s, std::string("{\"p\": ") + bad + "}")); });
    EXPECT_NE(m.find("plan.json: \"p\": launches per sample must be a whole number from 1 to 4096, got "),
              std::string::npos)
        << bad << ": " << m;
  }
  EXPECT_TRUE(runner::read_batch_plan(plan_file(s, "{}")).empty());
}
