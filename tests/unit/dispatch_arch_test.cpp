// Which emitted table serves a GPU (kernels/src/dispatch/dispatch_common.hpp): its own
// architecture's, else the nearest portable one below it, never an arch-specific table of
// another generation (docs/ci.md, the compatibility matrix).
#include <gtest/gtest.h>

#include <vector>

#include "../../kernels/src/dispatch/dispatch_common.hpp"

namespace {

struct entry {
  int arch;
};

int pick(const std::vector<int>& archs, int cc) {
  std::vector<entry> table;
  for (int a : archs) table.push_back({a});
  return cuop::dispatch::table_arch_for(table, cc);
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

}  // namespace
