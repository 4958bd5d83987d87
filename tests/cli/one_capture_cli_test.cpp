// Issue 76, item 6: inputs that are not one capture are not one run. Before: `perfgate analyze` of
// an Nsight Systems export and an unrelated Kineto trace exited 0 with a "different clocks" warning,
// "GPU utilization 97.0%" beside "Kernel 1.7%". Now refused with exit 4, naming the files, unless
// --one-run says they are one run.
#include <gtest/gtest.h>

#include <filesystem>

#include <fmt/format.h>

#include "support/helpers.h"

namespace perfgate::testing {
namespace {

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// Microseconds since 1970, as PyTorch wrote them before baseTimeNanoseconds: 2021-06-08 08:57:03 UTC.
constexpr double kJune2021 = 1623142623e6;

// Two 1 ms steps with a kernel each, from `start` (µs).
TraceBuilder worker(double start) {
  TraceBuilder t;
  for (int i = 0; i < 2; ++i) {
    double s = start + 1000.0 * i;
    t.step(i + 1, s, 1000);
    t.launch("gemm_kernel", s + 10, s + 20, 500);
  }
  return t;
}

TEST(OneCaptureCli, TracesOnDifferentClocksAreRefusedUnlessOneRun) {
  std::string dir = temp_dir();
  std::string epoch = worker(kJune2021).write(dir + "/epoch.json");
  TraceBuilder based = worker(1000);
  based.top_level("baseTimeNanoseconds", "1711964646000000000");
  std::string other = based.write(dir + "/based.json");
  std::string json = dir + "/r.json";
  CommandResult refused = run_perfgate("analyze " + epoch + " " + other + " --json " + json);
  EXPECT_EQ(refused.exit_code, 4) << refused.out;
  EXPECT_TRUE(
      contains(refused.out, fmt::format("perfgate: {}, {}: not one capture, so not one run: The workers' "
                                        "traces count time on different clocks",
                                        epoch, other)))
      << refused.out;
  EXPECT_TRUE(contains(refused.out, "give --one-run if they are one run")) << refused.out;
  EXPECT_FALSE(std::filesystem::exists(json)) << "no report of a refused run";

  CommandResult together = run_perfgate("analyze " + epoch + " " + other + " --one-run --json " + json);
  EXPECT_EQ(together.exit_code, 0) << together.out;
  EXPECT_TRUE(contains(read_text(json), "count time on different clocks")) << "the note stays in the report";
}

TEST(OneCaptureCli, WindowsADayApartAreRefusedAndOverlappingOnesAreOneRun) {
  std::string dir = temp_dir();
  std::string first = worker(kJune2021).write(dir + "/rank-0.json");
  std::string later = worker(kJune2021 + 86400e6).write(dir + "/rank-1.json");
  CommandResult refused = run_perfgate("analyze -q " + dir);
  EXPECT_EQ(refused.exit_code, 4) << refused.out;
  EXPECT_TRUE(
      contains(refused.out, "not one capture, so not one run: The workers' windows do not overlap in time"))
      << refused.out;
  EXPECT_TRUE(contains(refused.out, first) && contains(refused.out, later)) << refused.out;
  // Half a step apart they overlap: one capture, analysed as before.
  worker(kJune2021 + 500).write(later);
  CommandResult overlapping = run_perfgate("analyze -q " + dir);
  EXPECT_EQ(overlapping.exit_code, 0) << overlapping.out;
}

}  // namespace
}  // namespace perfgate::testing
