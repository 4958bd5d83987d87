// Neuron metrics, tables and rules on the hand-built profiles of neuron_fixture.h, with the
// arithmetic in comments.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "baseline/baseline.h"
#include "engine/analyse_profiles.h"
#include "neuron/neuron_fixture.h"
#include "render/format.h"
#include "render/render.h"
#include "support/helpers.h"
#include "support/training_run.h"

namespace perfgate::testing {
namespace {

WorkerAnalysis analyse_full() {
  return analyse_json(neuron_full_json());
}

// The report of `json` with the default rules evaluated (the gate), against `baseline` if given.
ReportModel gated_json(const std::string& json, const Baseline* baseline = nullptr) {
  ReportModel r = report_of_json(json, default_book());
  apply_gate(r, default_rules(), baseline, {});
  return r;
}

// The full profile with `from` replaced by `to` in its text (once).
std::string full_json_with(const std::string& from, const std::string& to) {
  std::string json = neuron_full_json();
  std::size_t at = json.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) json.replace(at, from.size(), to);
  return json;
}

FindingStatus status_of(const ReportModel& r, std::string_view id) {
  const ReportFinding* f = find_finding(r, id);
  return f ? f->status : FindingStatus::Skipped;
}

TEST(NeuronMetrics, TheSummaryInPercentAndMicroseconds) {
  WorkerAnalysis w = analyse_full();
  const MetricValues& m = w.metrics;
  EXPECT_DOUBLE_EQ(*m.get(Metric::NeuronTotalTimeUs), 100.0);   // total_time 0.0001 s
  EXPECT_DOUBLE_EQ(*m.get(Metric::NeuronActiveTimePct), 60.0);  // 0.6, a fraction despite its name
  EXPECT_DOUBLE_EQ(*m.get(Metric::NeuronTensorActivePct), 25.0);
  EXPECT_DOUBLE_EQ(*m.get(Metric::NeuronVectorActivePct), 10.0);  // written as the string "0.1"
  EXPECT_DOUBLE_EQ(*m.get(Metric::NeuronScalarActivePct), 5.0);
  EXPECT_DOUBLE_EQ(*m.get(Metric::NeuronSyncActivePct), 2.0);
  EXPECT_DOUBLE_EQ(*m.get(Metric::NeuronMfuPct), 12.5);
  EXPECT_DOUBLE_EQ(*m.get(Metric::NeuronHfuPct), 15.0);
  EXPECT_DOUBLE_EQ(*m.get(Metric::NeuronMbuPct), 30.0);
  EXPECT_DOUBLE_EQ(*m.get(Metric::NeuronDmaActivePct), 50.0);
  EXPECT_DOUBLE_EQ(*m.get(Metric::NeuronDmaBytes), 4096.0);
  EXPECT_DOUBLE_EQ(*m.get(Metric::NeuronHbmReadBytes), 1000.0);
  EXPECT_DOUBLE_EQ(*m.get(Metric::NeuronHbmWriteBytes), 2000.0);
  EXPECT_DOUBLE_EQ(*m.get(Metric::NeuronSpillSaveBytes), 512.0);
  EXPECT_DOUBLE_EQ(*m.get(Metric::NeuronSpillReloadBytes), 256.0);
  // No throttle_active_<core>_time_ns: the highest source's active share, max(0.02, 0.05) = 5%;
  // the source's own avg_util_limit (0.875) is not an active time.
  EXPECT_DOUBLE_EQ(*m.get(Metric::NeuronThrottleActivePct), 5.0);
  // The lowest limit of a source active for some time: activity_0's 0.875 = 87.5%, not the
  // weighted products throttle_avg_util_limit_nc0/nc1 (1.0967, 0.9).
  EXPECT_DOUBLE_EQ(*m.get(Metric::NeuronThrottleUtilLimitPct), 87.5);
  EXPECT_DOUBLE_EQ(*m.get(Metric::NeuronWarningsMissingData), 2.0);
  EXPECT_DOUBLE_EQ(*m.get(Metric::NeuronWarningsCount), 3.0);
}

TEST(NeuronMetrics, InstructionCountsComeFromTheRowsAndNaNIsNotApplicable) {
  const MetricValues& m = analyse_full().metrics;
  // Tensor: rows 1, 2 (TensorMatrix) and 4 = 3, not the summary's 99; Vector: row 3.
  EXPECT_DOUBLE_EQ(*m.get(Metric::NeuronTensorInstructions), 3.0);
  EXPECT_DOUBLE_EQ(*m.get(Metric::NeuronVectorInstructions), 1.0);
  EXPECT_DOUBLE_EQ(*m.get(Metric::NeuronScalarInstructions), 0.0);
  // gpsimd_engine_active_time_percent was NaN and the GpSimd engine ran no instruction: n/a.
  EXPECT_FALSE(m.get(Metric::NeuronGpsimdActivePct));
}

TEST(NeuronMetrics, GpuMetricsAreNotApplicableNeverZero) {
  const MetricValues& m = analyse_full().metrics;
  for (Metric metric : {Metric::GpuCount, Metric::GpuUtilizationPct, Metric::GpuIdlePct, Metric::WindowWallUs,
                        Metric::StepsCount, Metric::BreakdownKernelPct, Metric::TensorCoreKernelTimePct})
    EXPECT_FALSE(m.get(metric)) << metric_name(metric);
}

TEST(NeuronMetrics, AProfileOfAnotherFormatHasNoNeuronMetric) {
  WorkerAnalysis w =
      analyse_json(R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1,
    "tid": 1, "ts": 0, "dur": 5}]})");
  EXPECT_FALSE(w.metrics.get(Metric::NeuronTotalTimeUs));
  EXPECT_FALSE(w.metrics.get(Metric::NeuronTensorInstructions));
}

TEST(NeuronTables, EnginesFromTheRows) {
  const NeuronTables& t = analyse_full().tables.neuron;
  ASSERT_GE(t.engines.size(), 2u);
  const NeuronEngineRow& tensor = t.engines[0];
  EXPECT_EQ(tensor.engine, "tensor");
  EXPECT_EQ(tensor.lanes, "Tensor, TensorMatrix");
  EXPECT_EQ(tensor.instructions, 3u);
  EXPECT_EQ(tensor.instruction_time, 230);     // 100 + 100 + 30
  EXPECT_EQ(tensor.active, 180);               // [1000, 1150) and [3000, 3030)
  EXPECT_DOUBLE_EQ(*tensor.active_pct, 0.18);  // 180 ns of 100,000 ns
  EXPECT_DOUBLE_EQ(*tensor.summary_active_pct, 25.0);
}

TEST(NeuronTables, HloOpsTimePerEngineAndShareOfTheEngine) {
  const NeuronTables& t = analyse_full().tables.neuron;
  ASSERT_EQ(t.ops.size(), 3u);
  const NeuronOpRow& dot = t.ops[0];  // 200 ns, the most
  EXPECT_EQ(dot.name, "%dot.1 = dot(%p0, %p1)");
  EXPECT_EQ(dot.time[0], 200);
  EXPECT_EQ(dot.instructions[0], 2u);
  EXPECT_NEAR(*dot.share_pct[0], 100.0 * 200 / 230, 1e-9);  // of the Tensor engine's 230 ns
  EXPECT_EQ(dot.dma_transfers, 1u);
  EXPECT_EQ(dot.dma_bytes, 3000u);
  const NeuronOpRow& add = t.ops[1];  // 50 + 30 = 80 ns
  EXPECT_EQ(add.total, 80);
  EXPECT_NEAR(*add.share_pct[0], 100.0 * 30 / 230, 1e-9);
  EXPECT_DOUBLE_EQ(*add.share_pct[1], 100.0);  // the Vector engine's only instruction
  EXPECT_FALSE(add.share_pct[2]);              // no Scalar instruction: n/a, not 0
}

TEST(NeuronTables, DmaQueuesLayersAndNotes) {
  const NeuronTables& t = analyse_full().tables.neuron;
  ASSERT_EQ(t.dma_queues.size(), 2u);
  const NeuronDmaQueueRow& sync = t.dma_queues[0];  // 3000 + 1096 bytes, the most
  EXPECT_EQ(sync.queue, "qSyncIO");
  EXPECT_EQ(sync.transfers, 2u);
  EXPECT_EQ(sync.bytes, 4096u);
  EXPECT_EQ(sync.time, 400);
  EXPECT_EQ(sync.active, 300);                       // [1000, 1300)
  EXPECT_DOUBLE_EQ(*sync.gb_per_s, 4096.0 / 300.0);  // bytes per ns = GB/s
  EXPECT_FALSE(sync.collective);
  EXPECT_TRUE(t.dma_queues[1].collective);
  ASSERT_EQ(t.layers.size(), 1u);
  EXPECT_DOUBLE_EQ(*t.layers[0].active_us[0], 20.0);  // 20000 ns
  EXPECT_DOUBLE_EQ(*t.layers[0].mfu_pct, 20.0);
  ASSERT_EQ(t.notes.size(), 2u);
  EXPECT_EQ(t.notes[0].count, 2u);  // the two Missing Data warnings, one row
}

TEST(NeuronTables, TheTimelineHasALanePerEngineRowAndQueueNamedByOp) {
  const NeuronTables& t = analyse_full().tables.neuron;
  // Lanes: Tensor, TensorMatrix, Vector, CC-core 0, then qSyncIO, qCollective.
  ASSERT_EQ(t.timeline_lanes.size(), 6u);
  EXPECT_EQ(t.timeline_lanes[4], "qSyncIO");
  ASSERT_FALSE(t.timeline.empty());
  EXPECT_EQ(t.timeline[0].op, "%dot.1 = dot(%p0, %p1)");
  EXPECT_EQ(t.timeline[0].start, 0);  // the capture's first row
  EXPECT_LE(t.timeline.size(), 6u * 400u);
}

// A lane per DMA queue, however many: 2,000 queues of one 10 ns transfer each, 10 ns apart, make
// 2,000 lanes of one box (the capture is 20,000 ns: 400 buckets of 50 ns).
TEST(NeuronTables, ThousandsOfQueuesAreALaneEach) {
  std::string rows;
  for (int q = 0; q < 2000; ++q)
    rows += fmt::format(R"({}{{"timestamp": {}, "duration": 10, "transfer_size": 64, "dma_queue": "q{}"}})",
                        q == 0 ? "" : ",", q * 10, q);
  WorkerAnalysis w = analyse_json(R"({"summary": [{"total_time": 0.00002}], "dma": [)" + rows + "]}");
  const NeuronTables& t = w.tables.neuron;
  ASSERT_EQ(t.timeline_lanes.size(), 2000u);
  ASSERT_EQ(t.timeline.size(), 2000u);
  EXPECT_EQ(t.timeline[1999].start, 19950);  // bucket 399 of 50 ns
  EXPECT_EQ(t.timeline[1999].duration, 50);
}

TEST(NeuronRun, AFolderOfRanksCombinesAsDocumented) {
  std::string dir = temp_dir();
  write_text(dir + "/profile_rank_0.json", neuron_full_json());
  std::string slower = neuron_full_json();
  slower.replace(slower.find("\"total_time\": 0.0001"), 20, "\"total_time\": 0.0003");
  slower.replace(slower.find("\"total_active_time_percent\": 0.6"), 32, "\"total_active_time_percent\": 0.2");
  write_text(dir + "/profile_rank_1.json", slower);
  ReportModel r = report_of_files({dir}, default_book());
  auto metric = [&](Metric id) { return r.metric(id); };
  EXPECT_DOUBLE_EQ(*metric(Metric::NeuronTotalTimeUs), 300.0);       // the slowest rank's 0.0003 s
  EXPECT_DOUBLE_EQ(*metric(Metric::NeuronActiveTimePct), 40.0);      // mean of 60 and 20
  EXPECT_DOUBLE_EQ(*metric(Metric::NeuronTensorInstructions), 6.0);  // 3 + 3
  EXPECT_DOUBLE_EQ(*metric(Metric::NeuronSpillSaveBytes), 1024.0);   // 512 + 512
  EXPECT_FALSE(metric(Metric::GpuCount));
  EXPECT_DOUBLE_EQ(*metric(Metric::RanksCount), 2.0);
}

TEST(NeuronRules, FireOnTheFullProfile) {
  ReportModel r = gated_json(neuron_full_json());
  auto status = [&](std::string_view id) { return status_of(r, id); };
  // DMA 50% - Tensor 25% = 25 < 30: passes.
  EXPECT_EQ(status("neuron.dma-bound"), FindingStatus::Pass);
  // max(Vector 10, Scalar 5, GpSimd n/a) - Tensor 25: GpSimd's share is n/a (NaN in the summary,
  // no instruction row), and an expression with an n/a term has no value (docs/rules.md,
  // "Expressions"), so the rule does not apply. With a GpSimd share it passes: TheEngineAndDmaRules.
  EXPECT_EQ(status("neuron.tensor-idle"), FindingStatus::NotApplicable);
  EXPECT_EQ(status("neuron.spills"), FindingStatus::Warn);           // 512 + 256 > 0
  EXPECT_EQ(status("neuron.low-mfu"), FindingStatus::Warn);          // 12.5 < 20
  EXPECT_EQ(status("neuron.throttled"), FindingStatus::Pass);        // throttled 5% of the time, not > 5
  EXPECT_EQ(status("neuron.missing-data"), FindingStatus::Warn);     // 2 > 0
  EXPECT_EQ(status("neuron.first-execution"), FindingStatus::Pass);  // 60 >= 1
  EXPECT_EQ(find_finding(r, "gpu.low-utilization"), nullptr);        // a GPU rule: not listed for Neuron
  EXPECT_EQ(status("regression.neuron-total-time"), FindingStatus::Skipped);  // no baseline
}

TEST(NeuronRules, AFirstExecutionCaptureIsCalledOutAndSummaryJsonPassesNoDmaRule) {
  std::string path = write_text(temp_dir() + "/summary.json", neuron_summary_json());
  ReportModel r = report_of_files({path}, default_book());
  apply_gate(r, default_rules(), nullptr, {});
  const ReportFinding* first = find_finding(r, "neuron.first-execution");
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->status, FindingStatus::Warn);  // mean of 0.4% and 0.6% = 0.5% < 1
  EXPECT_NE(first->recommendation.find("--profile-nth-exec=2"), std::string::npos);
  const ReportFinding* dma = find_finding(r, "neuron.dma-bound");
  ASSERT_NE(dma, nullptr);
  EXPECT_EQ(dma->status, FindingStatus::NotApplicable);  // applies_if active >= 1 is false
  const ReportFinding* spills = find_finding(r, "neuron.spills");
  ASSERT_NE(spills, nullptr);
  EXPECT_EQ(spills->status, FindingStatus::Pass);  // 0 + 0
}

// neuron.tensor-idle and neuron.dma-bound on either side of their thresholds.
TEST(NeuronRules, TheEngineAndDmaRules) {
  // GpSimd 0.1 in place of NaN: max(Vector 10, Scalar 5, GpSimd 10) - Tensor 25 = -15 < 20: passes.
  std::string gpsimd = full_json_with("\"gpsimd_engine_active_time_percent\": NaN",
                                      "\"gpsimd_engine_active_time_percent\": 0.1");
  EXPECT_EQ(status_of(gated_json(gpsimd), "neuron.tensor-idle"), FindingStatus::Pass);
  // And Vector 0.5: max(50, 5, 10) - 25 = 25 > 20: warns.
  std::string vector_bound = gpsimd;
  vector_bound.replace(vector_bound.find("\"vector_engine_active_time_percent\": \"0.1\""), 42,
                       "\"vector_engine_active_time_percent\": 0.5");
  const ReportModel vr = gated_json(vector_bound);
  const ReportFinding* idle = find_finding(vr, "neuron.tensor-idle");
  ASSERT_NE(idle, nullptr);
  EXPECT_EQ(idle->status, FindingStatus::Warn);
  EXPECT_DOUBLE_EQ(*idle->value, 25.0);
  // DMA 0.6: 60 - Tensor 25 = 35 > 30: warns.
  const ReportModel dr =
      gated_json(full_json_with("\"dma_active_time_percent\": 0.5", "\"dma_active_time_percent\": 0.6"));
  const ReportFinding* dma = find_finding(dr, "neuron.dma-bound");
  ASSERT_NE(dma, nullptr);
  EXPECT_EQ(dma->status, FindingStatus::Warn);
  EXPECT_DOUBLE_EQ(*dma->value, 35.0);
}

// The regression rules against the profile itself as the baseline, then against slower runs.
TEST(NeuronRules, RegressionsAgainstABaseline) {
  Baseline base =
      baseline_from_report(report_of_json(neuron_full_json(), default_book()), "base.json", "report");
  ReportModel same = gated_json(neuron_full_json(), &base);
  for (const char* id :
       {"regression.neuron-total-time", "regression.neuron-active-time", "regression.neuron-spills"})
    EXPECT_EQ(status_of(same, id), FindingStatus::Pass) << id;
  // total_time 0.0001 -> 0.000104 s: 100 -> 104 us, +4% > +3%: warns (not +5%: no failure).
  ReportModel slower =
      gated_json(full_json_with("\"total_time\": 0.0001", "\"total_time\": 0.000104"), &base);
  EXPECT_EQ(status_of(slower, "regression.neuron-total-time"), FindingStatus::Warn);
  // total_active_time_percent 0.6 -> 0.53: 60% -> 53%, -7 pts: warns (-5), not fails (-10).
  ReportModel idler = gated_json(
      full_json_with("\"total_active_time_percent\": 0.6", "\"total_active_time_percent\": 0.53"), &base);
  EXPECT_EQ(status_of(idler, "regression.neuron-active-time"), FindingStatus::Warn);
  // spill_save_bytes 512 -> 513: any increase fails.
  ReportModel spills =
      gated_json(full_json_with("\"spill_save_bytes\": 512", "\"spill_save_bytes\": 513"), &base);
  EXPECT_EQ(status_of(spills, "regression.neuron-spills"), FindingStatus::Fail);
}

// The terminal and the Markdown summary lead with the Neuron numbers, not n/a GPU metrics alone.
TEST(NeuronReport, TheTerminalAndMarkdownShowTheSummaryNumbers) {
  ReportModel r = gated_json(neuron_full_json());
  std::string terminal = render_terminal(r);
  EXPECT_NE(terminal.find("Neuron total time 100.0 us"), std::string::npos) << terminal;
  EXPECT_NE(terminal.find("tensor 25.0%"), std::string::npos) << terminal;
  for (const char* gpu_line : {"\nGPU ", "\nBreakdown ", "\nTensor Cores ", "\nResources "})
    EXPECT_EQ(terminal.find(gpu_line), std::string::npos) << gpu_line;  // no GPU: no n/a lines
  std::string md = render_markdown(r);
  EXPECT_NE(md.find("| Neuron MFU | 12.5% |"), std::string::npos) << md;
  EXPECT_EQ(md.find("| GPU utilization |"), std::string::npos) << md;
}

TEST(NeuronReport, TablesAndEscapedNamesReachTheReport) {
  ReportModel r = report_of_json(neuron_full_json(), default_book());
  ASSERT_EQ(r.workers.size(), 1u);
  for (const char* name : {"neuron_ops", "neuron_engines", "neuron_dma_queues", "neuron_layers",
                           "neuron_notes", "neuron_timeline"})
    EXPECT_NE(find_table(r.workers[0].tables, name), nullptr) << name;
  EXPECT_EQ(find_table(r.workers[0].tables, "kernels"), nullptr);  // GPU tables are left out
  bool warned = false;
  for (const std::string& w : note_lines(r.warnings))
    warned = warned || w.find("Missing Data") != std::string::npos;
  EXPECT_TRUE(warned);
}

// The page's Neuron section: the summary cards (total time 100 us, Tensor engine 25%), a bar per
// engine, and the device timeline with a lane per engine row (Tensor, TensorMatrix, Vector, the
// CC core) and DMA queue, its boxes named by HLO op, the trace's strings escaped.
TEST(NeuronReport, ThePageHasTheDeviceViewersCore) {
  ReportModel r = gated_json(neuron_full_json());
  std::string page = render_html(r).page;
  std::size_t at = page.find("<section id=\"neuron\"");
  ASSERT_NE(at, std::string::npos);
  std::string section = page.substr(at, page.find("</section>", at) - at);
  EXPECT_NE(section.find("<dd>100.0 us</dd>"), std::string::npos) << section;
  EXPECT_NE(section.find("Engines: active share of the capture"), std::string::npos);
  EXPECT_NE(section.find("25.0%"), std::string::npos);
  for (const char* lane : {">Tensor<", ">TensorMatrix<", ">Vector<"})
    EXPECT_NE(section.find(lane), std::string::npos) << lane;
  EXPECT_NE(section.find("%dot.1 = dot(%p0, %p1)"), std::string::npos);
  EXPECT_EQ(section.find("<script>"), std::string::npos);  // "NaN <script>" is an HLO name, escaped
  EXPECT_NE(page.find("href=\"#neuron\""), std::string::npos);
  // A GPU trace has no such section.
  EXPECT_EQ(
      render_html(report_of_json(training_trace(TrainingRun{}), default_book())).page.find("id=\"neuron\""),
      std::string::npos);
}

}  // namespace
}  // namespace perfgate::testing
