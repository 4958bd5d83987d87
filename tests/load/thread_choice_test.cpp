#include <gtest/gtest.h>

#include "load/load.h"

namespace perfgate {
namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

// The default thread count (issue 77): one thread where it cannot help.
TEST(ThreadChoice, OneThreadForASmallInput) {
  EXPECT_EQ(default_threads(0, 16, 0.0), 1u);
  EXPECT_EQ(default_threads(kSmallInputBytes - 1, 16, 0.0), 1u);
  EXPECT_EQ(default_threads(kSmallInputBytes, 16, 0.0), 16u);
}

TEST(ThreadChoice, OneThreadWhereOneCoreIsAllowed) {
  EXPECT_EQ(default_threads(500 * kMiB, 1, 0.0), 1u);
  EXPECT_EQ(default_threads(500 * kMiB, 0, 0.0), 1u);
}

TEST(ThreadChoice, OnePerCoreTheLoadLeavesFree) {
  EXPECT_EQ(default_threads(500 * kMiB, 2, 0.0), 2u);
  EXPECT_EQ(default_threads(500 * kMiB, 2, 0.4), 2u);  // 1.6 cores free: 2
  EXPECT_EQ(default_threads(500 * kMiB, 2, 0.6), 1u);  // 1.4: 1
  EXPECT_EQ(default_threads(500 * kMiB, 2, 2.0), 1u);  // none free: still one
  EXPECT_EQ(default_threads(500 * kMiB, 2, 9.0), 1u);
  EXPECT_EQ(default_threads(500 * kMiB, 16, 3.2), 13u);
  EXPECT_EQ(default_threads(500 * kMiB, 16, -1.0), 16u);  // never more than allowed
}

TEST(ThreadChoice, ThisProcessHasACoreAndALoad) {
  CoreState cores = core_state();
  EXPECT_GE(cores.allowed, 1u);
  EXPECT_GE(cores.load, 0.0);
  unsigned threads = default_threads(kNotSmall, cores.allowed, cores.load);
  EXPECT_GE(threads, 1u);
  EXPECT_LE(threads, cores.allowed);
}

TEST(ThreadChoice, ThreadsPerInputFollowTheDefault) {
  LoadOptions options;
  EXPECT_EQ(threads_per_input(options, 1, 1000), 1u);  // small
  options.max_threads = 4;                             // --threads 4: what was asked, whatever the size
  EXPECT_EQ(threads_per_input(options, 1, 1000), 4u);
  EXPECT_EQ(threads_per_input(options, 2, 1000), 2u);
}

}  // namespace
}  // namespace perfgate
