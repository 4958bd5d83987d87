// Issue 59 on real XSpace profiles: the shared MI300X JAX convolution against TraceLens's
// gpu_timeline.csv and xla_summary.csv (beside it in ../shared/references/xplane/), and our H200
// JAX training capture (/work/rec, where present) against an independent walk of its protobuf
// (tests/real/xplane_expected.py, with xplane_dump.py: a wire-format decoder of its own in Python).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <vector>

#include "analyse/analysis.h"
#include "gate/gate.h"
#include "load/load.h"
#include "load/xplane/xplane_reader.h"
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
  // The GPUs as the plane's stats describe them, with the engine clock (clock_rate 2,100,000 kHz,
  // the MI300X's 2,100 MHz peak engine clock): an MI300X by gpu_peaks.
  ASSERT_EQ(p.devices.size(), 2u);
  EXPECT_EQ(p.devices[1].name, "AMD GPU compute 9.4, 304 CUs, 192 GiB, 2100 MHz");

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

// Issue 59, item 1: the XLA ops' FLOPs and bytes from the HLO the profile carries, against
// tests/real/xplane_hlo_expected.py (a decoder of the HLO of its own): per run of cudnn-conv.1.0
// 36,609,720,320 FLOPs and 579,072,000 bytes, 5 runs and 1,539,832 ns of kernels; the transposes
// no FLOPs and their operand read and result written. TraceLens's op_conv.csv says 2.288 GFLOPs and
// 551.6 MB: it drops the 16 input channels and reads the filter as 4 elements (docs/metrics.md, "XLA
// ops").
TEST(XplaneReal, Mi300JaxConvRooflineFromItsHlo) {
  std::string path = shared_reference("xplane/mi300_jax_conv_legacy.xplane.pb");
  if (path.empty()) GTEST_SKIP() << "../shared/references/xplane is absent";
  Profile p = std::move(load_run({path}).workers.at(0));
  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  auto row = [&](std::string_view name) -> const RooflineRow* {
    for (const RooflineRow& r : w.tables.roofline)
      if (r.name == name) return &r;
    return nullptr;
  };
  const RooflineRow* conv = row("cudnn-conv.1.0");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->input_dims, "[[1,16,32,60,104],[5120,16,1,2,2]]");
  EXPECT_EQ(conv->calls, 5u);
  EXPECT_EQ(conv->kernel_ns, 1'539'832);
  EXPECT_EQ(conv->flop, 5u * 36'609'720'320u);
  EXPECT_EQ(conv->bytes, 5u * 579'072'000u);
  EXPECT_EQ(conv->precision, "bf16");
  // MI300X: 1,307.4 TFLOP/s BF16, 5.3 TB/s: per run 28.0 us of compute, 109.26 us of memory.
  ASSERT_TRUE(conv->has_roofline);
  EXPECT_NEAR(static_cast<double>(conv->roofline_ps), 5 * 579072000.0 / 5300e9 * 1e12, 10);
  struct Transpose {
    const char* name;
    std::uint64_t bytes;
    TimeNs kernel;
  };
  for (Transpose t : {Transpose{"input_transpose_fusion", 1'144'053'760, 1'950'960},
                      Transpose{"input_transpose_fusion.1", 12'779'520, 69'261},
                      Transpose{"loop_transpose_fusion", 1'310'720, 26'440}}) {
    const RooflineRow* r = row(t.name);
    ASSERT_NE(r, nullptr) << t.name;
    EXPECT_EQ(r->calls, 5u) << t.name;
    EXPECT_EQ(r->flop, 0u) << t.name;
    EXPECT_EQ(r->bytes, 5 * t.bytes) << t.name;
    EXPECT_EQ(r->kernel_ns, t.kernel) << t.name;
  }
  // MFU counts the convolution: 5 x 36,609,720,320 FLOPs.
  ASSERT_TRUE(w.metrics.get(Metric::ComputeFlops));
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::ComputeFlops), 183'048'601'600.0);
}

// Issue 59, item 2: the findings on the shared JAX profile are worded for JAX (gpu.idle,
// critical-path.cpu-bound and compute.low-mfu fire on it), not for PyTorch.
TEST(XplaneReal, Mi300JaxAdviceIsWordedForJax) {
  std::string path = shared_reference("xplane/mi300_jax_conv_legacy.xplane.pb");
  if (path.empty()) GTEST_SKIP() << "../shared/references/xplane is absent";
  ReportModel report = report_of_files({path}, default_book());
  apply_gate(report, default_rules(), nullptr, {});
  std::size_t fired = 0;
  for (const ReportFinding& f : report.findings) {
    if (f.status != FindingStatus::Warn && f.status != FindingStatus::Fail) continue;
    ++fired;
    for (const char* word : {"torch", "record_shapes", "DataLoader", "cudaProfilerStart"})
      EXPECT_EQ(f.recommendation.find(word), std::string::npos) << f.id << ": " << f.recommendation;
  }
  EXPECT_GE(fired, 3u);
  const ReportFinding* idle = find_finding(report, "gpu.idle");
  ASSERT_NE(idle, nullptr);
  EXPECT_NE(idle->recommendation.find("jit"), std::string::npos) << idle->recommendation;
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
  // Issue 59, item 1, against tests/real/xplane_hlo_expected.py: XLA's own host event for each thunk
  // is the op (newer XLA writes them), its workspace memsets part of it; per run the convolution's
  // 9,663,676,416 FLOPs and 50,626,560 bytes, the cuBLASLt GEMM custom call's 8,589,934,592 FLOPs
  // (its contracting dimensions from the backend config) and 151,060,480 bytes.
  auto row = [&](std::string_view name, bool modelled) -> const RooflineRow* {
    for (const RooflineRow& r : w.tables.roofline)
      if (r.name == name && r.family.empty() != modelled) return &r;
    return nullptr;
  };
  const RooflineRow* conv = row("cudnn-conv.1", true);
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->calls, 5u);
  EXPECT_EQ(conv->kernel_ns, 194'912);
  EXPECT_EQ(conv->flop, 5u * 9'663'676'416u);
  EXPECT_EQ(conv->bytes, 5u * 50'626'560u);
  EXPECT_EQ(row("cudnn-conv.1", false), nullptr);  // the memsets are the convolution's
  const RooflineRow* gemm = row("custom-call.4", true);
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->flop, 5u * 8'589'934'592u);
  EXPECT_EQ(gemm->bytes, 5u * 151'060'480u);
  EXPECT_EQ(gemm->kernel_ns, 219'360);
  EXPECT_EQ(row("custom-call.4", false), nullptr);
}

// Held out: a JAX model recorded on an H100 after the reader was written (tests/data, a Transformer
// block; with XLA's command buffers and without), against xplane_command_buffer_expected.py's walk
// (each end rounded down to the ns): 324 kernels and 6 memsets on GPU:0; kernels' union 2,285,580 and
// busy 2,290,092 ns with command buffers, 2,330,094 and 2,334,447 ns without.
TEST(XplaneReal, H100JaxBlockMatchesAnIndependentWalk) {
  struct Expected {
    const char* file;
    TimeNs computation, busy;
  };
  for (const Expected& e : {Expected{"h100_jax_block.xplane.pb.gz", 2'285'580, 2'290'092},
                            Expected{"h100_jax_block_nocmdbuf.xplane.pb.gz", 2'330'094, 2'334'447}}) {
    SCOPED_TRACE(e.file);
    Profile p =
        std::move(load_run({std::string(PERFGATE_SOURCE_DIR) + "/tests/data/" + e.file}).workers.at(0));
    std::map<std::int32_t, DeviceTimes> t = device_times(p);
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t[0].kernels, 324u);
    EXPECT_EQ(t[0].copies, 6u);
    EXPECT_EQ(t[0].computation, e.computation);
    EXPECT_EQ(t[0].busy, e.busy);
    ASSERT_EQ(p.devices.size(), 1u);
    EXPECT_EQ(p.devices[0].name, "NVIDIA H100 80GB HBM3");
  }
}

}  // namespace
}  // namespace perfgate::testing
