// Report invariants (common/invariant_catalog.def): each on a hand-built trace whose numbers
// break it, the number withheld (n/a) and the assumption in doubt named in the warnings and the
// JSON report; and the same traces' numbers kept where the invariant holds.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include <boost/json.hpp>

#include "analyse/invariants.h"
#include "render/format.h"
#include "render/render.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

const char* kH100 = "NVIDIA H100 80GB HBM3";

const InvariantViolation* find_violation(const std::vector<InvariantViolation>& all, ReportInvariant id) {
  for (const InvariantViolation& v : all)
    if (v.invariant == id) return &v;
  return nullptr;
}

// One 1 ms step on an H100 SXM: aten::mm [8192, 8192] x [8192, 8192] in FP32 (2 x 8192^3 = 1.0995e12
// FLOPs), TC-eligible, so held to the TF32 peak (494.7 TFLOP/s), whose kernel takes 500 us: 2,199
// TFLOP/s. MFU = 1.0995e12 / 494.7e12 s / 1 ms = 222.3%: the kernel cannot have run at TF32.
std::string fp32_faster_than_its_peak() {
  TraceBuilder t;
  t.device(0, kH100, 9, 0, 80000000000, 132);
  t.step(1, 0, 1000);
  t.op("aten::mm", 10, 20, 1, 1,
       R"("Input Dims": [[8192, 8192], [8192, 8192]], "Input type": ["float", "float"])");
  t.launch("my_gemm_kernel", 15, 100, 500, 1);
  return t.json();
}

TEST(ReportInvariants, MfuOverThePeakIsWithheldAndItsAssumptionNamed) {
  WorkerAnalysis w = analyse_json(fp32_faster_than_its_peak());
  EXPECT_FALSE(w.metrics.get(Metric::ComputeMfuPct));         // 222.3% withheld
  EXPECT_TRUE(w.metrics.get(Metric::ComputeTflopsAchieved));  // the FLOPs over the window stand
  const InvariantViolation* v = find_violation(w.invariants, ReportInvariant::UtilizationAtMostPeak);
  ASSERT_NE(v, nullptr);
  EXPECT_NE(v->found.find("compute.mfu_pct 222.3% > 100%"), std::string::npos) << v->found;
  EXPECT_EQ(v->withheld, std::vector<std::string>{"compute.mfu_pct"});
  EXPECT_NE(v->assumption.find("the peaks of NVIDIA H100 SXM"), std::string::npos) << v->assumption;
  EXPECT_NE(v->assumption.find("tf32 100.0%"), std::string::npos) << v->assumption;
  // The report's own check, not a warning about the input (the reports' Data quality).
  EXPECT_FALSE(has_line(w.warnings, "report invariant"));

  // The same op in 20 ms of a 25 ms step (2.223 ms at the TF32 peak): MFU 8.89%, within the peak,
  // and nothing is withheld.
  TraceBuilder slow;
  slow.device(0, kH100, 9, 0, 80000000000, 132);
  slow.step(1, 0, 25000);
  slow.op("aten::mm", 10, 20, 1, 1,
          R"("Input Dims": [[8192, 8192], [8192, 8192]], "Input type": ["float", "float"])");
  slow.launch("my_gemm_kernel", 15, 100, 20000, 1);
  WorkerAnalysis ok = analyse_json(slow.json());
  ASSERT_TRUE(ok.metrics.get(Metric::ComputeMfuPct));
  EXPECT_NEAR(*ok.metrics.get(Metric::ComputeMfuPct), 100.0 * 1.0995116e12 / 494.7e12 / 0.025, 0.01);
  EXPECT_TRUE(ok.invariants.empty());
}

// Each share over 100% names its own assumption, written only for a share that is over (issue 78):
// the five shares' texts, in the case's values, and the roofline's savings withheld with it.
TEST(ReportInvariants, EachShareOverThePeakNamesItsAssumption) {
  MetricInputs in;
  in.compute.peak_name = "NVIDIA H100 SXM";
  in.compute.ideal_seconds_by_precision = {{"bf16", 3.0}, {"", 1.0}};
  MetricValues m;
  for (Metric share : {Metric::ComputeMfuPct, Metric::ComputeMbuPct, Metric::RooflinePct,
                       Metric::NeuronMfuPct, Metric::NeuronMbuPct})
    m.set(share, 150.0);
  m.set(Metric::RooflineSavingPct, 10.0);
  std::vector<std::pair<std::vector<std::string>, std::string>> found;
  for (const InvariantViolation& v : check_metric_invariants(in, m))
    if (v.invariant == ReportInvariant::UtilizationAtMostPeak) found.emplace_back(v.withheld, v.assumption);
  std::vector<std::pair<std::vector<std::string>, std::string>> expected = {
      {{"compute.mfu_pct"},
       "the peaks of NVIDIA H100 SXM at the precision each kernel ran in (time at the peak: bf16 75.0%, "
       "unknown "
       "25.0%): a kernel's precision taken from its name rather than from what its op ran in, or another GPU "
       "than the one named"},
      {{"compute.mbu_pct"},
       "the peaks of NVIDIA H100 SXM' memory bandwidth, and the performance model's bytes crossing that "
       "memory "
       "once (operands that fit in the L2 cache are read faster)"},
      {{"roofline.pct", "roofline.saving_pct"},
       "the peaks of NVIDIA H100 SXM at each op's precision, and the performance model's bytes crossing "
       "memory "
       "once"},
      {{"neuron.mfu_pct"}, "the Tensor engine's peak the Neuron profile states"},
      {{"neuron.mbu_pct"}, "the device memory bandwidth the Neuron profile states"},
  };
  EXPECT_EQ(found, expected);
  for (Metric share : {Metric::ComputeMfuPct, Metric::ComputeMbuPct, Metric::RooflinePct,
                       Metric::NeuronMfuPct, Metric::NeuronMbuPct, Metric::RooflineSavingPct})
    EXPECT_FALSE(m.get(share)) << metric_name(share);
}

TEST(ReportInvariants, TheJsonReportAndTheRunStateTheViolation) {
  ReportModel report = report_of_json(fp32_faster_than_its_peak(), default_book());
  EXPECT_FALSE(report.metric(Metric::ComputeMfuPct));
  boost::json::object json = boost::json::parse(render_json(report)).as_object();
  const boost::json::array& run = json.at("invariants").as_array();
  ASSERT_FALSE(run.empty());
  EXPECT_EQ(run[0].at("invariant").as_string(), "compute.at_most_peak");
  EXPECT_EQ(run[0].at("withheld").as_array()[0].as_string(), "compute.mfu_pct");
  EXPECT_TRUE(json.at("metrics").at("compute.mfu_pct").is_null());
  const boost::json::array& worker = json.at("workers").as_array()[0].at("invariants").as_array();
  ASSERT_FALSE(worker.empty());
  // A lone worker's violations are stated once, in Data quality, and among no warnings: its MFU,
  // its roofline.pct (444.5%) and its roofline row.
  EXPECT_FALSE(has_line(report.warnings, "report invariant"));
  EXPECT_FALSE(has_line(report.run_warnings, "report invariant"));
  std::vector<std::string> checks = data_quality_lines(report);
  ASSERT_EQ(checks.size(), 3u);
  EXPECT_EQ(checks[0].rfind("report invariant compute.at_most_peak does not hold (compute.mfu_pct 222.3%", 0),
            0u)
      << checks[0];
}

// Two ranks of the trace above: MFU 222.3% on each and on the run, withheld. The checks follow the
// advice in every report: no banner above "What to fix first", the run's line and each rank's in
// Data quality after the findings, and "n/a (... does not hold: Data quality)" where MFU would be.
TEST(ReportInvariants, TheChecksFollowTheAdviceInEveryReport) {
  std::string dir = temp_dir() + "/two-ranks";
  std::filesystem::create_directories(dir);
  write_text(dir + "/rank-0.json", fp32_faster_than_its_peak());
  write_text(dir + "/rank-1.json", fp32_faster_than_its_peak());
  ReportModel report = report_of_files({dir}, default_book());
  apply_gate(report, default_rules(), nullptr, {});
  EXPECT_FALSE(has_line(report.run_warnings, "report invariant"));
  std::vector<std::string> checks = data_quality_lines(report);
  // The run's MFU, roofline.pct and roofline row (3), then the ranks' same 3, each said once for both.
  ASSERT_EQ(checks.size(), 6u);
  EXPECT_EQ(checks[0].rfind("report invariant compute.at_most_peak does not hold (compute.mfu_pct 222.3%", 0),
            0u)
      << checks[0];
  EXPECT_EQ(checks[3].rfind("rank-0 and rank-1: report invariant compute.at_most_peak", 0), 0u) << checks[3];
  const std::string na = "n/a (compute.at_most_peak does not hold: Data quality)";

  std::string html = render_html(report).page;
  EXPECT_EQ(html.find("<strong>Warning.</strong> report invariant"), std::string::npos);
  std::size_t advice = html.find("id=\"findings-title\"");
  std::size_t quality = html.find("<h3>Data quality</h3>");
  ASSERT_NE(advice, std::string::npos);
  ASSERT_NE(quality, std::string::npos);
  EXPECT_LT(advice, quality);
  EXPECT_NE(html.find(na), std::string::npos);

  std::string terminal = render_terminal(report);
  std::size_t findings = terminal.find("Verdict");
  std::size_t line = terminal.find("Data quality report invariant compute.at_most_peak");
  ASSERT_NE(findings, std::string::npos) << terminal;
  ASSERT_NE(line, std::string::npos) << terminal;
  EXPECT_LT(findings, line);
  EXPECT_EQ(terminal.find("Warning      report invariant"), std::string::npos) << terminal;
  EXPECT_NE(terminal.find("MFU " + na), std::string::npos) << terminal;

  std::string markdown = render_markdown(report);
  std::size_t md_findings = markdown.find("### Findings");
  std::size_t md_quality = markdown.find("### Data quality\n\n- report invariant compute.");
  ASSERT_NE(md_quality, std::string::npos) << markdown;
  EXPECT_LT(md_findings, md_quality);
  EXPECT_EQ(markdown.find("> ⚠️ report invariant"), std::string::npos);
}

// One 1 ms step on an H100 (3,350 GB/s): aten::add of two [4096, 4096] BF16 tensors (100,663,296
// bytes read and written) in a 10 us kernel: 10.07 TB/s, 300.5% of the memory roofline (the
// model's 30.05 us at the bandwidth over 10 us). And an aten::mul of the same size in 100 us:
// 30.05% of its roofline, kept.
TEST(ReportInvariants, ARooflineRowAboveItsRooflineIsWithheld) {
  TraceBuilder t;
  t.device(0, kH100, 9, 0, 80000000000, 132);
  t.step(1, 0, 1000);
  const char* args =
      R"("Input Dims": [[4096, 4096], [4096, 4096]], "Input type": ["c10::BFloat16", "c10::BFloat16"])";
  t.op("aten::add", 10, 20, 1, 1, args);
  t.launch("vectorized_elementwise_kernel", 15, 100, 10, 1);
  t.op("aten::mul", 40, 20, 2, 1, args);
  t.launch("vectorized_elementwise_kernel", 45, 200, 100, 2);
  WorkerAnalysis w = analyse_json(t.json());
  const RooflineRow* add = find_row(w.tables.roofline, "aten::add");
  const RooflineRow* mul = find_row(w.tables.roofline, "aten::mul");
  ASSERT_TRUE(add && mul);
  EXPECT_TRUE(add->withheld);
  EXPECT_FALSE(mul->withheld);
  const InvariantViolation* v = find_violation(w.invariants, ReportInvariant::RooflineRowAtMostPeak);
  ASSERT_NE(v, nullptr);
  EXPECT_NE(v->found.find("1 roofline row above 100% of the roofline, the furthest aten::add "
                          "[[4096,4096],[4096,4096]] at 300.5% (memory-bound)"),
            std::string::npos)
      << v->found;
  EXPECT_NE(v->assumption.find("L2 cache"), std::string::npos);

  ReportModel report = report_of_json(t.json(), default_book());
  const ReportTable* table = find_table(report.workers[0].tables, Table::Roofline);
  ASSERT_NE(table, nullptr);
  for (std::size_t row = 0; row < table->rows.size(); ++row) {
    const ReportCell* name = find_cell(*table, row, "name");
    const ReportCell* pct = find_cell(*table, row, "roofline_pct");
    ASSERT_TRUE(name && pct);
    bool is_add = std::get<std::string>(*name) == "aten::add";
    EXPECT_EQ(cell_number(*pct).has_value(), !is_add);  // n/a for the add, 30.05% for the mul
    if (!is_add) {
      EXPECT_NEAR(*cell_number(*pct), 30.05, 0.01);
    }
  }
}

// TFLOP/s and MFU of two spans. Under a clock offset both are over the GPUs' span now (issue 72,
// ClockOffset.ThroughputAndMfuAreOverOneSpan); a run whose two workers' windows differ (100 and
// 200 us, one GPU each) still has them apart: its TFLOP/s is over the longer window (1e9 FLOPs /
// 200 us = 5 TFLOP/s), its MFU over both (ideal 1e9 / 989.4e12 s over 300 GPU-us = 0.337%), and
// MFU x 2 GPUs x peak is 1e9 / 150 us = 6.67 TFLOP/s: the throughput is withheld.
TEST(ReportInvariants, ThroughputOverAnotherSpanThanMfuIsWithheld) {
  GpuMetrics gpu;
  MetricInputs in;
  in.gpus = {&gpu, &gpu};
  in.window = 200'000;
  in.gpu_seconds = 300e-6;
  in.compute.flops = 1e9;
  in.compute.ideal_seconds = 1e9 / 989.4e12;
  MetricValues m;
  m.set(Metric::ComputeTflopsAchieved, 1e9 / 200e-6 / 1e12);
  m.set(Metric::ComputeMfuPct, 100.0 * in.compute.ideal_seconds / in.gpu_seconds);
  std::vector<InvariantViolation> found = check_metric_invariants(in, m);
  EXPECT_FALSE(m.get(Metric::ComputeTflopsAchieved));
  EXPECT_TRUE(m.get(Metric::ComputeMfuPct));
  const InvariantViolation* v = find_violation(found, ReportInvariant::ThroughputMatchesMfu);
  ASSERT_NE(v, nullptr);
  EXPECT_NE(v->found.find("5 TFLOP/s over the window, where MFU 0.3% of 2 GPUs gives 6.67 TFLOP/s"),
            std::string::npos)
      << v->found;
  EXPECT_NE(v->assumption.find("window's wall time (0.200 ms) is the GPUs' time (0.150 ms per GPU"),
            std::string::npos)
      << v->assumption;
}

// One 2 ms step on an H100: an aten::add (BF16, modelled) launching a 100 us kernel, and 900 us of
// kernels no op launched (a graph replay without its capture trace): ops own 10% of the kernel
// time, of which the roofline models all. The roofline's "100% coverage" is of a tenth of the
// work: it and the MBU it gates are withheld.
TEST(ReportInvariants, CoverageOfTheKernelTimeOpsDoNotOwnIsWithheld) {
  TraceBuilder t;
  t.device(0, kH100, 9, 0, 80000000000, 132);
  t.step(1, 0, 2000);
  t.op("aten::add", 10, 20, 1, 1,
       R"("Input Dims": [[4096, 4096], [4096, 4096]], "Input type": ["c10::BFloat16", "c10::BFloat16"])");
  t.launch("vectorized_elementwise_kernel", 15, 50, 100, 1);
  t.kernel("graph_replayed_kernel", 200, 900, 99999);
  WorkerAnalysis w = analyse_json(t.json());
  EXPECT_NEAR(*w.metrics.get(Metric::TensorCoreJudgedKernelTimePct), 10.0, 1e-9);
  EXPECT_FALSE(w.metrics.get(Metric::RooflineCoveragePct));
  EXPECT_FALSE(w.metrics.get(Metric::ComputeMbuPct));
  const InvariantViolation* v = find_violation(w.invariants, ReportInvariant::CoverageAgreesWithCount);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->found, "roofline.coverage_pct 100.0% of the kernel time, where ops own 10.0% of it");
  EXPECT_EQ(v->withheld, (std::vector<std::string>{"roofline.coverage_pct", "compute.mbu_pct"}));
}

// Partitions are shares of their sum by construction; the checker withholds one that is not (a
// breakdown whose parts overlap), here on metrics set by hand.
TEST(ReportInvariants, APartitionThatDoesNotAddUpIsWithheld) {
  MetricInputs in;
  MetricValues m;
  m.set(Metric::BreakdownKernelPct, 80);
  m.set(Metric::BreakdownRuntimePct, 40);
  m.set(Metric::ResourcesTcKernelsPct, 60);
  m.set(Metric::ResourcesOtherPct, 40);
  std::vector<InvariantViolation> found = check_metric_invariants(in, m);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].invariant, ReportInvariant::PartitionsAddUp);
  EXPECT_EQ(found[0].found, "the breakdown adds up to 120.0%");
  EXPECT_FALSE(m.get(Metric::BreakdownKernelPct));
  EXPECT_FALSE(m.get(Metric::BreakdownRuntimePct));
  EXPECT_DOUBLE_EQ(*m.get(Metric::ResourcesTcKernelsPct), 60);  // the resources add up: kept
}

// Issue 91, item 6: a snapshot's peak below the memory allocated at the dump (a replay in requested
// bytes against a dump in block bytes: 19,352,504,320 against 19,498,420,224) is withheld, with the
// peak's share of the device.
TEST(ReportInvariants, ASnapshotPeakBelowTheDumpIsWithheld) {
  MetricInputs in;
  in.memory.snapshot.devices = 1;
  MetricValues m;
  m.set(Metric::MemorySnapshotPeakBytes, 19'352'504'320.0);
  m.set(Metric::MemorySnapshotAllocatedBytes, 19'498'420'224.0);
  m.set(Metric::MemorySnapshotPeakPct, 24.0);
  // The metrics alone do not compare (the peak is the highest device's, the allocated total the
  // devices' sum): the check is per device, from the analysis.
  EXPECT_TRUE(check_metric_invariants(in, m).empty());
  in.memory.snapshot.peak_below_allocated = SnapshotSums::PeakBelow{3, 19'352'504'320, 19'498'420'224};
  std::vector<InvariantViolation> found = check_metric_invariants(in, m);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].invariant, ReportInvariant::SnapshotPeakAtLeastAllocated);
  EXPECT_EQ(
      found[0].found,
      "device 3's snapshot peak 19352504320 bytes is below the 19498420224 bytes allocated at the dump");
  EXPECT_EQ(found[0].withheld,
            (std::vector<std::string>{"memory.snapshot_peak_bytes", "memory.snapshot_peak_pct"}));
  EXPECT_FALSE(m.get(Metric::MemorySnapshotPeakBytes));
  EXPECT_FALSE(m.get(Metric::MemorySnapshotPeakPct));
  EXPECT_TRUE(m.get(Metric::MemorySnapshotAllocatedBytes));
}

TEST(ReportInvariants, EveryInvariantIsDeclaredOnceWithItsAssumption) {
  std::set<std::string_view> names;
  for (const InvariantInfo& i : invariant_catalog()) {
    EXPECT_TRUE(names.insert(i.name).second) << i.name;
    EXPECT_FALSE(i.statement.empty()) << i.name;
    EXPECT_FALSE(i.withheld.empty()) << i.name;
    EXPECT_FALSE(i.assumption.empty()) << i.name;
  }
  EXPECT_EQ(invariant_info(ReportInvariant::ThroughputMatchesMfu).name, "compute.throughput_matches_mfu");
}

}  // namespace
}  // namespace perfgate::testing
