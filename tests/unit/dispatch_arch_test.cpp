// Which emitted table serves a GPU (kernels/src/dispatch/dispatch_common.hpp): its own
// architecture's, else the nearest portable one below it, never an arch-specific table of
// another generation (docs/ci.md, the compatibility matrix).
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "../../kernels/src/dispatch/dispatch_common.hpp"

namespace {

struct entry {
  int arch;
};

// `specific`: the architectures built arch-specific (the default build's 90a and 100a).
int pick(const std::vector<int>& archs, int cc, const std::vector<int>& specific = {90, 100}) {
  std::vector<entry> table;
  for (int a : archs) table.push_back({a});
  return cuop::dispatch::table_arch_for(
      table, cc, [&](int arch) { return std::find(specific.begin(), specific.end(), arch) != specific.end(); });
}

TEST(dispatch_arch, own_table_first_then_the_nearest_portable_one) {
  const std::vector<int> all = {80, 80, 90, 100};  // the default build: sm_80, sm_90a, sm_100a
  EXPECT_EQ(pick(all, 80), 80);
  EXPECT_EQ(pick(all, 86), 80);    // A10, RTX 30: sm_80 SASS
  EXPECT_EQ(pick(all, 89), 80);    // L4, RTX 40
  EXPECT_EQ(pick(all, 90), 90);    // H100 / H200: sm_90a
  EXPECT_EQ(pick(all, 100), 100);  // B200: sm_100a
  // Newer GPUs than a table's arch-specific code: the sm_80 table, run from compute_80 PTX,
  // never the sm_100a table (whose kernels such a GPU would only have as PTX stubs).
  EXPECT_EQ(pick(all, 103), 80);
  EXPECT_EQ(pick(all, 120), 80);
}

TEST(dispatch_arch, no_table_can_serve) {
  EXPECT_EQ(pick({100}, 90), 0);  // an sm_100a-only build on an H200: no_kernel_image
  EXPECT_EQ(pick({90}, 120), 0);
  EXPECT_EQ(pick({80}, 75), 0);  // older than every table
  EXPECT_EQ(pick({}, 90), 0);
  EXPECT_EQ(pick({80}, 90), 80);  // an sm_80-only build on an H200: through JIT
}

TEST(dispatch_arch, portable_builds_of_newer_architectures_serve_later_gpus) {
  // CMAKE_CUDA_ARCHITECTURES 75;86;90;120: each its own table, none arch-specific.
  const std::vector<int> portable = {75, 86, 90, 120};
  EXPECT_EQ(pick(portable, 75, {}), 75);
  EXPECT_EQ(pick(portable, 80, {}), 75);   // A100: sm_75 SASS
  EXPECT_EQ(pick(portable, 89, {}), 86);   // L4: sm_86 SASS
  EXPECT_EQ(pick(portable, 90, {}), 90);   // H100: sm_90, not sm_90a
  EXPECT_EQ(pick(portable, 100, {}), 90);  // B200: compute_90 PTX
  EXPECT_EQ(pick(portable, 121, {}), 120);
  // The same compute capability built arch-specific serves that capability alone.
  EXPECT_EQ(pick({80, 90}, 100, {90}), 80);
  EXPECT_EQ(pick({80, 90}, 100, {}), 90);
}

}  // namespace
