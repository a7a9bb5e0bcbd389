// core::process_id: whether a run's sweep process is still there.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tuner/core/process.hpp"

namespace {

using cuop::core::process_alive;
using cuop::core::this_process;

TEST(process, this_process_is_alive) {
  const auto me = this_process();
  EXPECT_EQ(me.pid, ::getpid());
  EXPECT_GT(me.start, 0);  // Linux: /proc/self/stat
  EXPECT_TRUE(process_alive(me));
  EXPECT_TRUE(process_alive({me.pid, 0}));  // start unknown: the pid is enough
}

TEST(process, a_pid_given_to_another_process_is_not_the_run_s) {
  const auto me = this_process();
  EXPECT_FALSE(process_alive({me.pid, me.start + 1}));
}

TEST(process, a_process_that_ended_is_gone) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(0);
  const auto start_before = cuop::core::process_id{child, 0};
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_FALSE(process_alive(start_before));
  EXPECT_FALSE(process_alive({0, 0}));
  EXPECT_FALSE(process_alive({-5, 0}));
}

}  // namespace
