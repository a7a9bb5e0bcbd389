// GPU tests' main: a run in which every selected test was skipped (no GPU) exits with 77, which
// CTest reports as skipped (SKIP_RETURN_CODE), never as passed.
#include <gtest/gtest.h>

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  const int result = RUN_ALL_TESTS();
  const auto& unit = *testing::UnitTest::GetInstance();
  if (result == 0 && unit.test_to_run_count() > 0 && unit.skipped_test_count() == unit.test_to_run_count()) return 77;
  return result;
}
