// The Neuron reader, metrics and rules on files with the structure of real neuron-profile 2.27
// output (real_structure.h, issue 39): sections in any order, semaphore waits, active_time rows,
// throttling as the profiler writes it, layer_summary in nanoseconds, warnings with a remedy.
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/analyse_profiles.h"
#include "neuron/real_structure.h"
#include "render/render.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

const NeuronEngineRow* engine(const NeuronTables& t, std::string_view name) {
  for (const NeuronEngineRow& r : t.engines)
    if (r.engine == name) return &r;
  return nullptr;
}

ReportModel gated(const std::string& json) {
  ReportModel r = report_of_json(json, default_book());
  apply_gate(r, default_rules(), nullptr, {});
  return r;
}

// Each of the 21 sections first (and the order reversed): detected and read alike. Real files
// failed with "no 'traceEvents' array" when the first key was semaphore_update, terminology, ...
TEST(NeuronRealStructure, DetectedAndReadWhateverTheSectionOrder) {
  std::string dir = temp_dir();
  auto check = [&](const std::string& json, const std::string& what) {
    std::string path = write_text(dir + "/p.json", json);
    EXPECT_EQ(detect_format(path), "neuron-json") << what;
    Profile p = load_json(json);
    EXPECT_EQ(p.neuron.instructions.size(), 4u) << what;
    EXPECT_EQ(p.neuron.active_spans.size(), 3u) << what;
    EXPECT_EQ(p.neuron.summary_value("total_time"), 0.00187) << what;
  };
  for (std::size_t first = 0; first < real_structure_keys().size(); ++first)
    check(real_structure_json(first), real_structure_keys()[first] + " first");
  std::array<std::string, 21> reversed = real_structure_keys();
  std::reverse(reversed.begin(), reversed.end());
  check(real_structure_json(reversed), "reversed");
}

// summary-json: a node whose first members are text (instance_type) and whose id does not start
// with n_: still a summary by a summary metric's name among its first members.
TEST(NeuronRealStructure, SummaryJsonWithTextFirst) {
  std::string path = write_text(temp_dir() + "/s.json",
                                R"({"fdc71a0b": {"instance_type": "inf2.xlarge", "profiler_version": "2.27.0",
  "nc_idx": 0, "flag": true, "none": null, "total_time": 0.002, "total_active_time_percent": 0.004}})");
  EXPECT_EQ(detect_format(path), "neuron-summary-json");
  // A Kineto trace whose first member is an object of text stays a Kineto trace.
  std::string kineto =
      write_text(temp_dir() + "/k.json", R"({"deviceProperties": {"name": "x"}, "traceEvents": []})");
  EXPECT_EQ(detect_format(kineto), "kineto-json");
}

// TraceLens's Kineto traces begin with "metadata", a Neuron section's name too: nested objects
// there (the profiler's settings) make it a Kineto trace; the Neuron profiler's flat metadata
// followed by another section makes a Neuron profile (DetectedAndReadWhateverTheSectionOrder).
TEST(NeuronRealStructure, KinetoMetadataFirstIsNotANeuronSection) {
  std::string dir = temp_dir();
  EXPECT_EQ(detect_format(write_text(dir + "/k.json", R"({"metadata": {"num_errors": 0, "errors": {},
    "profiler": {"repeats": 1}}, "traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm",
    "pid": 1, "tid": 1, "ts": 1, "dur": 2}]})")),
            "kineto-json");
  EXPECT_EQ(
      detect_format(write_text(dir + "/f.json", R"({"metadata": {"note": "flat"}, "traceEvents": []})")),
      "kineto-json");
  EXPECT_EQ(detect_format(write_text(dir + "/n.json", R"({"metadata": {"ntff_version": 5, "data_version": 8},
    "summary": [{"total_time": 0.5}]})")),
            "neuron-json");
}

// neuron-profile 2.27 writes `metadata` as a list of one flat object, its keys in any order: 7 of
// the 117 real files began with it and were refused ("no 'traceEvents' array"). A Kineto trace's
// metadata is an object (above), and stays Kineto.
TEST(NeuronRealStructure, MetadataListFirstIsANeuronProfile) {
  std::string dir = temp_dir();
  auto sniff = [&](const std::string& json) { return detect_format(write_text(dir + "/p.json", json)); };
  EXPECT_EQ(sniff(R"({"metadata": [{"ntff_version": 5, "data_version": 8, "pe_clock_freq": 1400000000}],
    "summary": [{"total_time": 0.5}]})"),
            "neuron-json");
  EXPECT_EQ(sniff(R"({"metadata":[ {"is_ext": false, "vnc_enabled": "false", "total_point_count": 12,
    "last_ts": 99, "ticks_per_nanosec": 1.4} ],"instruction_usage": []})"),
            "neuron-json");
  // No profiler key, but followed by a section of the profile.
  EXPECT_EQ(sniff(R"({"metadata": [{"a": 1}], "instruction": []})"), "neuron-json");
  // A list of something else is no profile's metadata.
  EXPECT_EQ(sniff(R"({"metadata": [{"a": 1}], "traceEvents": []})"), "kineto-json");
  EXPECT_EQ(sniff(R"({"metadata": [1, 2], "traceEvents": []})"), "kineto-json");
  // The whole file read: metadata's scalars are facts of the profile.
  std::array<std::string, 21> order = real_structure_keys();
  std::rotate(order.begin(), std::find(order.begin(), order.end(), "metadata"), order.end());
  std::string json = real_structure_json(order);
  ASSERT_TRUE(json.starts_with("{\n\"metadata\": [{"));
  EXPECT_EQ(sniff(json), "neuron-json");
  Profile p = load_json(json);
  EXPECT_EQ(p.neuron.instructions.size(), 4u);
  auto fact = [&](std::string_view key) -> std::string {
    for (const auto& [k, v] : p.info.attributes)
      if (k == key) return v;
    return "";
  };
  EXPECT_EQ(fact("ntff_version"), "5");
  EXPECT_EQ(fact("pe_clock_freq"), "1400000000");
}

TEST(NeuronRealStructure, SemaphoreWaitsAreReadAsWaits) {
  Profile p = load_json(real_structure_json());
  ASSERT_EQ(p.neuron.instructions.size(), 4u);
  // In start order: the two waits (t = 0), then the Tensor and Vector instructions.
  EXPECT_TRUE(p.neuron.instructions[0].semaphore_wait);   // EVENT_SEMAPHORE
  EXPECT_TRUE(p.neuron.instructions[1].semaphore_wait);   // EVENT_SEMAPHORE_RANGE_CLEAR
  EXPECT_FALSE(p.neuron.instructions[2].semaphore_wait);  // MultiplyMoving
  ASSERT_EQ(p.neuron.active_spans.size(), 3u);
  EXPECT_EQ(p.neuron.active_spans[1].engine, NeuronEngine::Vector);
  EXPECT_EQ(p.neuron.active_spans[1].duration, 200);
}

// Engine active time is the profiler's: the active_time rows, not the waits.
TEST(NeuronRealStructure, EngineActiveTimeFromTheActiveTimeRows) {
  WorkerAnalysis w = analyse_json(real_structure_json());
  const NeuronTables& t = w.tables.neuron;
  const NeuronEngineRow* vector = engine(t, "vector");
  ASSERT_NE(vector, nullptr);
  EXPECT_EQ(vector->active, 450);                                  // 200 + 250, not the 1,866,000 ns wait
  EXPECT_NEAR(*vector->active_pct, 100.0 * 450 / 1870000, 1e-12);  // 0.0241%
  EXPECT_EQ(vector->instructions, 2u);                             // the summary's count: the wait included
  EXPECT_EQ(vector->instruction_time, 450);
  EXPECT_EQ(vector->semaphore_waits, 1u);
  EXPECT_EQ(vector->semaphore_wait_time, 1866000);
  EXPECT_NEAR(*vector->semaphore_wait_pct, 100.0 * 1866000 / 1870000, 1e-9);  // 99.79%
  // Within 3% of the summary's tensor_engine_active_time 1.3435e-06 s: 1,343 of 1,343.5 ns.
  const NeuronEngineRow* tensor = engine(t, "tensor");
  ASSERT_NE(tensor, nullptr);
  EXPECT_EQ(tensor->active, 1343);
  EXPECT_NEAR(static_cast<double>(tensor->active), 1343.5, 1343.5 * 0.03);
  EXPECT_NEAR(static_cast<double>(vector->active), 450.0,
              450.0 * 0.03);  // vector_engine_active_time 4.5e-07 s
  const NeuronEngineRow* sync = engine(t, "sync");
  ASSERT_NE(sync, nullptr);
  EXPECT_EQ(sync->active, 0);  // only a semaphore range clear: no work
  EXPECT_DOUBLE_EQ(*sync->active_pct, 0.0);
  // The HLO ops: the wait is no op's engine time.
  for (const NeuronOpRow& op : t.ops)
    if (op.name == "(no HLO op)") {
      EXPECT_EQ(op.total, 0);
      EXPECT_EQ(op.semaphore_wait, 1866000 + 1869000);
    }
  // The timeline: the Vector lane draws the 450 ns instruction only, the Sync lane nothing.
  TimeNs vector_drawn = 0;
  std::size_t vector_lane = 0, sync_lane = 0;
  for (std::size_t l = 0; l < t.timeline_lanes.size(); ++l) {
    if (t.timeline_lanes[l] == "Vector") vector_lane = l;
    if (t.timeline_lanes[l] == "Sync") sync_lane = l;
  }
  for (const TimelineBox& b : t.timeline) {
    if (b.device == kNeuronEngineLane && b.stream == vector_lane) vector_drawn += b.duration;
    EXPECT_FALSE(b.device == kNeuronEngineLane && b.stream == sync_lane) << b.op;
  }
  // 1,869,000 ns in 400 buckets of 4,673 ns: the 450 ns instruction is one bucket.
  EXPECT_EQ(vector_drawn, 4673);
}

TEST(NeuronRealStructure, ThrottlingIsTimeUnderALimit) {
  WorkerAnalysis w = analyse_json(real_structure_json());
  // throttle_active_nc0_time_ns 7,854 / 1,870,000 ns = 0.42%; the limit: activity_0's 87.5%, not
  // the product field's 0.37%.
  EXPECT_NEAR(*w.metrics.get(Metric::NeuronThrottleActivePct), 0.42, 1e-9);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::NeuronThrottleUtilLimitPct), 87.5);
  ASSERT_EQ(w.tables.neuron.throttles.size(), 2u);
  EXPECT_EQ(w.tables.neuron.throttles[0].source, "activity_0");
  EXPECT_EQ(w.tables.neuron.throttles[0].core, "nc0");
  EXPECT_DOUBLE_EQ(*w.tables.neuron.throttles[0].limit_pct, 87.5);
  EXPECT_NEAR(*w.tables.neuron.throttles[0].active_pct, 0.416, 1e-12);
  // Throttled 0.42% of the time: the rule passes (it fired on every real file).
  const ReportModel r = gated(real_structure_json());
  const ReportFinding* f = find_finding(r, "neuron.throttled");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->status, FindingStatus::Pass);
  // Throttled 10% of the time (187,000 ns): it fires.
  std::string json = real_structure_json();
  json.replace(json.find("\"throttle_active_nc0_time_ns\": 7854"), 35,
               "\"throttle_active_nc0_time_ns\": 187000");
  const ReportModel hot = gated(json);
  const ReportFinding* g = find_finding(hot, "neuron.throttled");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->status, FindingStatus::Warn);
  EXPECT_DOUBLE_EQ(*g->value, 10.0);
}

// The limit comes only with time spent under it (issue 54: "Throttled time 0.0% · Throttle limit
// 87.5%" was printed on real files).
TEST(NeuronRealStructure, TheThrottleLimitOnlyWithTimeUnderIt) {
  auto with_time = [](const std::string& ns) {
    std::string json = real_structure_json();
    json.replace(json.find("\"throttle_active_nc0_time_ns\": 7854"), 35,
                 "\"throttle_active_nc0_time_ns\": " + ns);
    return json;
  };
  // No time under any limit (though activity_0 says 0.416%): the time is 0%, the limit n/a.
  WorkerAnalysis none = analyse_json(with_time("0"));
  EXPECT_DOUBLE_EQ(*none.metrics.get(Metric::NeuronThrottleActivePct), 0.0);
  EXPECT_FALSE(none.metrics.get(Metric::NeuronThrottleUtilLimitPct).has_value());
  std::string terminal = render_terminal(report_of_json(with_time("0"), default_book()));
  EXPECT_NE(terminal.find("Throttled time 0.0%"), std::string::npos) << terminal;
  EXPECT_EQ(terminal.find("Throttle limit"), std::string::npos) << terminal;
  // 50 ns of 1,870,000 under the limit: 100 x 50 / 1870000 = 0.0026738%, said as such, with the limit.
  std::string little = render_terminal(report_of_json(with_time("50"), default_book()));
  EXPECT_NE(little.find("Throttled time 0.0027% · Throttle limit 87.5%"), std::string::npos) << little;
}

TEST(NeuronRealStructure, LayerSummaryInNanosecondsWithFlops) {
  WorkerAnalysis w = analyse_json(real_structure_json());
  ASSERT_EQ(w.tables.neuron.layers.size(), 1u);
  const NeuronLayerRow& l = w.tables.neuron.layers[0];
  EXPECT_EQ(l.name, "/sg00");
  EXPECT_DOUBLE_EQ(*l.active_us[0], 1.343);  // 1343 ns, not 1,343,000,000 us
  EXPECT_DOUBLE_EQ(*l.active_us[1], 0.45);
  EXPECT_DOUBLE_EQ(*l.model_flops, 33554432.0);
  EXPECT_DOUBLE_EQ(*l.hardware_flops, 37748736.0);
  // The layer holds all of the profile's FLOPs: its MFU is the profile's 0.0002 x 100 = 0.02%,
  // its HFU 0.000225 x 100 x 37748736 / 37748736 = 0.0225%.
  EXPECT_DOUBLE_EQ(*l.mfu_pct, 0.02);
  EXPECT_DOUBLE_EQ(*l.hfu_pct, 0.0225);
}

TEST(NeuronRealStructure, TheMissingDataFindingQuotesTheProfilesRemedy) {
  const ReportModel r = gated(real_structure_json());
  const ReportFinding* f = find_finding(r, "neuron.missing-data");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->status, FindingStatus::Warn);
  ASSERT_EQ(f->offenders.size(), 1u);
  EXPECT_EQ(
      f->offenders[0].label,
      "Try capturing the profile with --enable-dge-notifs or NEURON_RT_ENABLE_DGE_NOTIFICATIONS=1 env flag.");
  EXPECT_EQ(f->recommendation.find("fewer events"), std::string::npos);
  const ReportFinding* first = find_finding(r, "neuron.first-execution");
  ASSERT_NE(first, nullptr);  // kept: 0.096% < 1
  EXPECT_EQ(first->status, FindingStatus::Warn);
}

// A folder whose profile_rank_1 is not a profile: skipped, said once on stderr under -q too, and
// its rank counted as missing.
TEST(NeuronRealStructure, ASkippedRankIsSaidEvenUnderQuietAndCountedMissing) {
  std::string dir = temp_dir();
  write_text(dir + "/profile_rank_0.json", real_structure_json());
  write_text(dir + "/profile_rank_1.json", R"({"semaphore_update": [], "terminology": {}})");
  LoadedRun run = load_run({dir});
  ASSERT_EQ(run.workers.size(), 1u);
  ASSERT_EQ(run.skipped.size(), 2u);
  EXPECT_NE(note_text(run.skipped[0]).find("profile_rank_1.json"), std::string::npos);
  EXPECT_EQ(run.skipped[1].id, NoteId::rank_file_skipped);
  EXPECT_NE(note_text(run.skipped[1]).find("rank 1 is missing from the run"), std::string::npos)
      << note_text(run.skipped[1]);
  CommandResult quiet = run_perfgate("analyze '" + dir + "' -q");
  EXPECT_EQ(quiet.exit_code, 0) << quiet.out;
  // Each once: said as the run loaded, not again with the run's other warnings.
  std::size_t skipped_at = quiet.out.find("perfgate: warning: skipped");
  ASSERT_NE(skipped_at, std::string::npos) << quiet.out;
  EXPECT_EQ(quiet.out.find("perfgate: warning: skipped", skipped_at + 1), std::string::npos) << quiet.out;
  std::size_t missing_at = quiet.out.find("rank 1 is missing from the run");
  ASSERT_NE(missing_at, std::string::npos) << quiet.out;
  EXPECT_EQ(quiet.out.find("rank 1 is missing from the run", missing_at + 1), std::string::npos) << quiet.out;
}

}  // namespace
}  // namespace perfgate::testing
