// Which validated table serves each CUDA architecture a build names (tuner/emit/arch_map.hpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tuner/core/error.hpp"
#include "tuner/emit/arch_map.hpp"

using cuop::emit::serve;
using cuop::emit::serve_all;

namespace {

std::string table_of(const std::string& arch) { return serve(arch).table; }

std::string error_of(const std::vector<std::string>& archs) {
  try {
    serve_all(archs);
  } catch (const cuop::error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(arch_map, each_validated_architecture_gets_its_own_table) {
  for (const char* arch : {"75", "80", "86", "89", "90", "90a", "100a", "120"})
    EXPECT_EQ(table_of(arch), std::string("sm_") + arch) << arch;
  // CMake's and nvcc's spellings.
  EXPECT_EQ(table_of("86-real"), "sm_86");
  EXPECT_EQ(table_of("90a-virtual"), "sm_90a");
  EXPECT_EQ(table_of("sm_89"), "sm_89");
  EXPECT_EQ(table_of("compute_120"), "sm_120");
}

TEST(arch_map, others_get_the_newest_portable_table_below_them) {
  EXPECT_EQ(table_of("87"), "sm_86");  // Orin: sm_86's limits hold (163 KB there)
  EXPECT_EQ(table_of("88"), "sm_86");
  EXPECT_EQ(table_of("100"), "sm_90");  // portable Blackwell code: not sm_100a's table
  EXPECT_EQ(table_of("100f"), "sm_90");
  EXPECT_EQ(table_of("103a"), "sm_90");  // an arch-specific table of another generation never serves
  EXPECT_EQ(table_of("110"), "sm_90");
  EXPECT_EQ(table_of("121"), "sm_120");
  EXPECT_EQ(table_of("120a"), "sm_120");
}

TEST(arch_map, arch_and_family_specific_builds_serve_their_own_capability_only) {
  EXPECT_TRUE(serve("90a").specific);
  EXPECT_TRUE(serve("100f").specific);
  EXPECT_FALSE(serve("90").specific);
  EXPECT_FALSE(serve("120-real").specific);
  EXPECT_EQ(serve("103a").cc, 103);
}

TEST(arch_map, unknown_architectures_are_errors_naming_them) {
  EXPECT_EQ(error_of({"80", "91a"}), "unknown target \"91a\" (did you mean \"90a\"?)");
  EXPECT_NE(error_of({"70"}).find("unknown target \"70\""), std::string::npos);          // CUDA 13 builds 7.5 and up
  EXPECT_NE(error_of({"80a"}).find("unknown target \"80a\""), std::string::npos);        // 'a' from 9.0
  EXPECT_NE(error_of({"90f"}).find("unknown target \"90f\""), std::string::npos);        // 'f' from 10.0
  EXPECT_NE(error_of({"native"}).find("unknown target \"native\""), std::string::npos);  // CMake resolves it
  EXPECT_NE(error_of({""}).find("unknown target \"\""), std::string::npos);
  EXPECT_NE(error_of({"sm_"}).find("unknown target \"sm_\""), std::string::npos);
  EXPECT_NE(error_of({"99999999999"}).find("unknown target"), std::string::npos);
}

TEST(arch_map, one_compute_capability_one_kind_of_code) {
  EXPECT_EQ(error_of({"90", "90a"}), "targets \"90\" and \"90a\" both compile for compute capability 9.0: name one");
  const auto same = serve_all({"86-real", "86", "sm_86"});
  ASSERT_EQ(same.size(), 1u);
  EXPECT_EQ(same[0].spelling, "86-real");
}

TEST(arch_map, in_order_of_compute_capability) {
  const auto all = serve_all({"120", "75", "90a", "86"});
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[0].cc, 75);
  EXPECT_EQ(all[1].cc, 86);
  EXPECT_EQ(all[2].cc, 90);
  EXPECT_EQ(all[3].cc, 120);
  EXPECT_EQ(cuop::emit::describe(all[2]),
            "CUDA architecture 90a (compute capability 9.0, its own only): the sm_90a table");
}
