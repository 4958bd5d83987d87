// The executable allocates through mimalloc where it was built with it (PERFGATE_MIMALLOC, the
// default outside the sanitizers): its malloc, not glibc's, serves perfgate's operator new and
// every library's malloc (issue 78; docs/performance.md).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "support/helpers.h"

namespace perfgate::testing {
namespace {

TEST(AllocatorCli, TheExecutableAllocatesThroughMimalloc) {
#if !defined(PERFGATE_MIMALLOC)
  GTEST_SKIP() << "built without mimalloc (PERFGATE_MIMALLOC=OFF, or under the sanitizers)";
#else
  // mimalloc alone reads MIMALLOC_SHOW_STATS, and prints its heap's statistics at exit.
  ::setenv("MIMALLOC_SHOW_STATS", "1", 1);
  CommandResult run = run_perfgate(std::string("analyze '") + PERFGATE_SOURCE_DIR +
                                   "/examples/small_training.pt.trace.json.gz' -q --fail-on never");
  ::unsetenv("MIMALLOC_SHOW_STATS");
  EXPECT_EQ(run.exit_code, 0) << run.out;
  EXPECT_NE(run.out.find("heap stats:"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("committed:"), std::string::npos) << run.out;
#endif
}

}  // namespace
}  // namespace perfgate::testing
