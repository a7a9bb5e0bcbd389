// `sweep --devices`: which devices a text names, and which devices pool their results.
#include <gtest/gtest.h>

#include "test_support.hpp"
#include "tuner/runner/device_pool.hpp"

namespace {

using namespace cuop;

trial::device_info gpu(int index, const std::string& name, const std::string& uuid, int cc = 90) {
  trial::device_info d;
  d.present = true;
  d.index = index;
  d.name = name;
  d.uuid = uuid;
  d.cc = cc;
  d.sm_count = 132;
  d.l2_bytes = 60 << 20;
  d.driver = "13.0";
  d.runtime = "13.0";
  return d;
}

}  // namespace

TEST(device_pool, all_or_a_list_of_indices) {
  EXPECT_EQ(runner::parse_devices("all", 4), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(runner::parse_devices("2,0", 4), (std::vector<int>{2, 0}));
  EXPECT_EQ(runner::parse_devices("1", 2), (std::vector<int>{1}));
}

TEST(device_pool, bad_lists_are_refused_naming_the_entry) {
  const auto message = [](const std::string& text, int count) {
    return test::error_of([&] { runner::parse_devices(text, count); });
  };
  EXPECT_EQ(message("0,x", 2), "--devices \"0,x\": \"x\" is not a device index (all, or indices like 0,1)");
  EXPECT_EQ(message("0,,1", 2), "--devices \"0,,1\": \"\" is not a device index (all, or indices like 0,1)");
  EXPECT_EQ(message("-1", 2), "--devices \"-1\": \"-1\" is not a device index (all, or indices like 0,1)");
  EXPECT_EQ(message("0,3", 2), "--devices \"0,3\": device 3 requested but 2 present");
  EXPECT_EQ(message("1,1", 2), "--devices \"1,1\": device 1 is named twice");
  EXPECT_EQ(message("all", 0), "--devices all: no GPU is present");
}

TEST(device_pool, identical_gpus_pool_and_other_models_are_kept_apart) {
  auto absent = gpu(3, "", "");
  absent.present = false;
  const auto pools = runner::pools_by_model(
      {gpu(0, "NVIDIA H200", "GPU-b"), gpu(1, "NVIDIA L4", "GPU-c", 89), gpu(2, "NVIDIA H200", "GPU-a"), absent});
  ASSERT_EQ(pools.size(), 2u);
  ASSERT_EQ(pools[0].devices.size(), 2u);
  EXPECT_EQ(pools[0].uuid(), "GPU-a,GPU-b");  // sorted: the same pool, however it is listed
  EXPECT_EQ(pools[0].describe(), "NVIDIA H200 x2 (devices 0, 2)");
  EXPECT_EQ(pools[1].uuid(), "GPU-c");  // one GPU: its own UUID, as a one-GPU sweep keys it
  EXPECT_EQ(pools[1].describe(), "NVIDIA L4 (device 1)");

  auto other_driver = gpu(1, "NVIDIA H200", "GPU-d");
  other_driver.driver = "13.1";
  EXPECT_EQ(runner::pools_by_model({gpu(0, "NVIDIA H200", "GPU-a"), other_driver}).size(), 2u);
}
