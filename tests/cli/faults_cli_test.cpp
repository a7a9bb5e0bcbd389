// The fault-injection suite without a GPU (tests/faults/faults.yaml): the compile-validation sweep
// finishes, and the two faults caught before any launch are rejected for every target with the
// limit they exceed named; every other configuration builds. tests/gpu/isolated/faults_test.cpp
// runs the whole suite on a GPU.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <map>
#include <string>

#include "cli_support.hpp"

using cuop::test::run_cli;
using cuop::test::temp_dir;

TEST(cli_faults, limits_are_checked_before_any_launch_and_named) {
  temp_dir tmp;
  const std::string suite = std::string(CUOP_SOURCE_DIR) + "/tests/faults/faults.yaml";
  const auto r = run_cli("sweep --validate-only --db " + tmp / "f.db" + " --cache " + tmp / "cache " + suite + " 2>&1");
  ASSERT_EQ(r.code, 0) << r.out;
  for (const char* target : {"sm_80", "sm_90a", "sm_100a"})
    EXPECT_NE(r.out.find(std::string(target) + ": 7 configurations compile and fit, 2 rejected"), std::string::npos)
        << r.out;

  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open_v2((tmp / "f.db").c_str(), &h, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(h,
                               "SELECT c.instance, b.target, b.status, b.message FROM builds b "
                               "JOIN configs c ON c.id = b.config_id ORDER BY 1, 2",
                               -1, &s, nullptr),
            SQLITE_OK);
  int ok = 0, rows = 0;
  while (sqlite3_step(s) == SQLITE_ROW) {
    ++rows;
    const std::string instance = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
    const std::string target = reinterpret_cast<const char*>(sqlite3_column_text(s, 1));
    const std::string status = reinterpret_cast<const char*>(sqlite3_column_text(s, 2));
    const std::string message = reinterpret_cast<const char*>(sqlite3_column_text(s, 3));
    if (instance.find("_fault4_") != std::string::npos) {  // 300000 bytes of dynamic shared memory
      EXPECT_EQ(status, "over_limit") << instance;
      EXPECT_NE(message.find("+ 300000 bytes > "), std::string::npos) << message;
      EXPECT_NE(message.find("bytes per block on " + target), std::string::npos) << message;
    } else if (instance.find("_fault5_") != std::string::npos) {  // 96 accumulators, 1024 threads
      EXPECT_EQ(status, "over_limit") << instance;
      EXPECT_NE(message.find(" x 1024 threads = "), std::string::npos) << message;
      EXPECT_NE(message.find("> 65536 registers per block on " + target), std::string::npos) << message;
    } else {
      EXPECT_EQ(status, "ok") << instance << " " << target << ": " << message;
      ++ok;
    }
  }
  sqlite3_finalize(s);
  sqlite3_close(h);
  EXPECT_EQ(rows, 27);  // 9 configurations x 3 targets
  EXPECT_EQ(ok, 21);
}
