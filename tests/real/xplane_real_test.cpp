// Issue 59 on real XSpace profiles: the shared MI300X JAX convolution against TraceLens's
// gpu_timeline.csv and xla_summary.csv (beside it in ../shared/references/xplane/), and our H200
// JAX training capture (/work/rec, where present) against an independent walk of its protobuf
// (tests/real/xplane_expected.py, with xplane_dump.py: a wire-format decoder of its own in Python).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <vector>

#include "load/xplane/xplane_reader.h"
#include "perfgate/analysis.h"
#include "perfgate/load.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

// The length of the union of the ranges, in nanoseconds.
TimeNs union_ns(std::vector<std::pair<TimeNs, TimeNs>> ranges) {
  std::sort(ranges.begin(), ranges.end());
  TimeNs total = 0, start = 0, end = -1;
  for (auto [s, e] : ranges) {
    if (s > end) {
      if (end >= 0) total += end - start;
      start = s;
      end = e;
    } else {
      end = std::max(end, e);
    }
  }
  return end >= 0 ? total + end - start : 0;
}

struct DeviceTimes {
  std::size_t kernels = 0, copies = 0;
  TimeNs computation = 0, copy = 0, busy = 0, span = 0;
};

// TraceLens's per-GPU timeline: computation is the union of the kernels, copies the union of
// memcpy and memset, busy their union, total the span from the GPU's first event to its last.
std::map<std::int32_t, DeviceTimes> device_times(const Profile& p) {
  std::map<std::int32_t, std::vector<std::pair<TimeNs, TimeNs>>> kernels, copies;
  for (const GpuActivity& a : p.gpu_activities)
    (a.kind == GpuActivityKind::Kernel ? kernels : copies)[a.device].emplace_back(a.start, a.end);
  std::map<std::int32_t, DeviceTimes> out;
  for (const DeviceInfo& d : p.devices) {
    DeviceTimes& t = out[d.id];
    auto& k = kernels[d.id];
    auto& c = copies[d.id];
    t.kernels = k.size();
    t.copies = c.size();
    t.computation = union_ns(k);
    t.copy = union_ns(c);
    std::vector<std::pair<TimeNs, TimeNs>> all = k;
    all.insert(all.end(), c.begin(), c.end());
    t.busy = union_ns(all);
    TimeNs first = kMaxTimeNs, last = 0;
    for (auto [s, e] : all) {
      first = std::min(first, s);
      last = std::max(last, e);
    }
    t.span = last - first;
  }
  return out;
}

double ms(TimeNs ns) {
  return static_cast<double>(ns) / 1e6;
}

TEST(XplaneReal, Mi300JaxConvMatchesTraceLensTimeline) {
  std::string path = shared_reference("xplane/mi300_jax_conv_legacy.xplane.pb");
  if (path.empty()) GTEST_SKIP() << "../shared/references/xplane is absent";
  LoadedRun run = load_run({path});
  ASSERT_EQ(run.workers.size(), 1u);
  const Profile& p = run.workers[0];
  EXPECT_EQ(p.info.format, "xplane");
  std::map<std::int32_t, DeviceTimes> t = device_times(p);
  // Only GPU:0 (copies) and GPU:7 (kernels) ran anything; the six others are listed by the file
  // with no event and are not devices of the run.
  ASSERT_EQ(t.size(), 2u);
  // gpu_timeline.csv, gpu_pid 8 (/device:GPU:7): computation 3.586492999999318 ms, busy the same,
  // idle 12.17480800000066 ms, total 15.76130099999998 ms; within 0.1%.
  EXPECT_EQ(t[7].kernels, 25u);
  EXPECT_NEAR(ms(t[7].computation), 3.586493, 3.586493e-3);
  EXPECT_NEAR(ms(t[7].busy), 3.586493, 3.586493e-3);
  EXPECT_NEAR(ms(t[7].span - t[7].busy), 12.174808, 12.174808e-3);
  EXPECT_NEAR(ms(t[7].span), 15.761301, 15.761301e-3);
  // gpu_pid 1 (/device:GPU:0): memcpy 0.889027999999933 ms, idle 26.97870000000018 ms, total
  // 27.86772800000012 ms, no computation.
  EXPECT_EQ(t[0].kernels, 0u);
  EXPECT_EQ(t[0].copies, 53u);
  EXPECT_NEAR(ms(t[0].copy), 0.889028, 0.889028e-3);
  EXPECT_NEAR(ms(t[0].span - t[0].busy), 26.9787, 26.9787e-3);
  EXPECT_NEAR(ms(t[0].span), 27.867728, 27.867728e-3);
  // The GPUs as the plane's stats describe them: an MI300X by gpu_peaks.
  ASSERT_EQ(p.devices.size(), 2u);
  EXPECT_EQ(p.devices[1].name, "AMD GPU compute 9.4, 304 CUs, 192 GiB");

  // xla_summary.csv: kernel time per XLA fusion (µs): input_transpose_fusion 1950.96 (5 calls),
  // input_transpose_fusion_ (TraceLens's name for input_transpose_fusion.1) 69.261, loop_transpose_fusion
  // 26.44. The reader records each kernel's XLA op as a GPU range over it.
  std::map<std::string, TimeNs> per_op;
  for (const GpuRange& r : p.gpu_ranges) per_op[std::string(p.str(r.name))] += r.end - r.start;
  EXPECT_NEAR(static_cast<double>(per_op["input_transpose_fusion"]) / 1e3, 1950.96, 1e-3);
  EXPECT_NEAR(static_cast<double>(per_op["input_transpose_fusion.1"]) / 1e3, 69.261, 1e-3);
  EXPECT_NEAR(static_cast<double>(per_op["loop_transpose_fusion"]) / 1e3, 26.44, 1e-3);
  // The cuDNN convolution (a custom call, TraceLens's "Conv" category: kernel_launchers_summary_by_category
  // 1.539832 ms for its Im3d2Col and Cijk_ kernels).
  EXPECT_NEAR(static_cast<double>(per_op["cudnn-conv.1.0"]) / 1e3, 1539.832, 1e-3);

  // The same sums through the analysis: the regions table's GPU range time per XLA op.
  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  const RegionRow* fusion = find_row(w.tables.regions, "input_transpose_fusion");
  ASSERT_NE(fusion, nullptr);
  EXPECT_EQ(fusion->gpu_range, 1950960);
}

// Our H200 capture (5 jitted training steps under StepTraceAnnotation("train", step_num=i)), against
// xplane_expected.py: 120 kernels, 11 copies and 10 memsets on GPU:0; kernel union 2.732472 ms,
// busy (kernels, copies, memsets) 4.626578 ms.
TEST(XplaneReal, H200JaxTrainMatchesAnIndependentWalk) {
  std::string path = "/work/rec/h200_jax_train.xplane.pb";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent";
  Profile p = std::move(load_run({path}).workers.at(0));
  std::map<std::int32_t, DeviceTimes> t = device_times(p);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].kernels, 120u);
  EXPECT_EQ(t[0].copies, 21u);
  EXPECT_EQ(t[0].computation, 2'732'472);
  EXPECT_EQ(t[0].busy, 4'626'578);
  ASSERT_EQ(p.devices.size(), 1u);
  EXPECT_EQ(p.devices[0].name, "NVIDIA H200");
  // The five steps the capture marked.
  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  ASSERT_EQ(w.steps.steps.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i)
    EXPECT_EQ(w.steps.steps[i].number.value_or(-1), static_cast<std::int64_t>(i));
}

}  // namespace
}  // namespace perfgate::testing
