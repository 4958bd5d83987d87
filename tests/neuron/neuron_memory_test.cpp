// The Device Viewer's memory lanes (issue 54): SBUF and PSUM occupancy over time (instruction_usage)
// and device memory by use (nc_mem_usage), on profiles with the real files' structure
// (real_structure.h); and the semaphore wait that holds the engines before their first instruction.
#include <gtest/gtest.h>

#include "common/errors.h"
#include "engine/analyse_profiles.h"
#include "neuron/real_structure.h"
#include "render/render.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

// real_structure_json() with one section's text replaced.
std::string with_section(const std::string& key, const std::string& text) {
  std::string json = real_structure_json();
  std::string head = "\"" + key + "\": ";
  std::size_t at = json.find(head) + head.size();
  std::size_t end = json.find("\n\"", at);  // the next section
  if (end == std::string::npos) end = json.rfind("\n}");
  json.replace(at, end - at - (json[end - 1] == ',' ? 1 : 0), text);
  return json;
}

TEST(NeuronMemory, BufferRowsAreReadWhateverTheKeyOrder) {
  Profile p = load_json(real_structure_json());
  const auto& s = p.neuron.buffer_samples;
  ASSERT_EQ(s.size(), 4u);
  // In time order: sb 1000, psum 2000, sb 1860482, psum 1867741.
  EXPECT_EQ(s[0].time, 1000);
  EXPECT_EQ(s[0].buffer, NeuronBuffer::Sbuf);
  EXPECT_DOUBLE_EQ(*s[0].average, 0.25);
  EXPECT_DOUBLE_EQ(*s[0].parts[0], 0.5);    // partition_0
  EXPECT_DOUBLE_EQ(*s[0].parts[1], 0.25);   // partition_32
  EXPECT_DOUBLE_EQ(*s[0].parts[3], 0.125);  // partition_96
  EXPECT_FALSE(s[0].parts[4].has_value());
  EXPECT_EQ(s[1].buffer, NeuronBuffer::Psum);
  EXPECT_DOUBLE_EQ(*s[1].parts[0], 1.0);  // bank_0
  EXPECT_DOUBLE_EQ(*s[1].parts[3], 0.5);  // bank_3
  EXPECT_FALSE(s[1].parts[4].has_value());
  EXPECT_EQ(s[2].time, 1860482);
  EXPECT_DOUBLE_EQ(*s[2].average, 0.0012919109);
  EXPECT_DOUBLE_EQ(*s[3].average, 0.0);
  EXPECT_FALSE(s[3].parts[3].has_value());  // this row has banks 0-2 only
  ASSERT_EQ(p.neuron.memory_uses.size(), 6u);
  EXPECT_EQ(p.neuron.memory_uses[2].use, "DMA Rings IO");
  EXPECT_EQ(p.neuron.memory_uses[2].bytes, 65536u);
}

// Each row holds until the next of its buffer; the last until the device timeline's end, the Sync
// wait's end at 1,869,000 ns (the timeline starts at 0, the first rows' timestamp).
TEST(NeuronMemory, TheOccupancyTableAndItsPeakAndMean) {
  WorkerAnalysis w = analyse_json(real_structure_json());
  const auto& rows = w.tables.neuron.buffers;
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].start, 1000);
  EXPECT_EQ(rows[0].duration, 1860482 - 1000);  // to the next sb row
  EXPECT_DOUBLE_EQ(*rows[0].average_pct, 25.0);
  EXPECT_DOUBLE_EQ(*rows[0].parts_pct[0], 50.0);
  EXPECT_EQ(rows[1].duration, 1867741 - 2000);     // to the next psum row
  EXPECT_EQ(rows[2].duration, 1869000 - 1860482);  // 8,518 ns: to the timeline's end
  EXPECT_EQ(rows[3].duration, 1869000 - 1867741);  // 1,259 ns
  const MetricValues& m = w.metrics;
  EXPECT_DOUBLE_EQ(*m.get(Metric::NeuronSbufPeakPct), 25.0);
  // (25 x 1,859,482 + 0.12919109 x 8,518) / 1,868,000 = 24.8866%.
  EXPECT_NEAR(*m.get(Metric::NeuronSbufMeanPct), (25.0 * 1859482 + 0.12919109 * 8518) / 1868000, 1e-9);
  EXPECT_DOUBLE_EQ(*m.get(Metric::NeuronPsumPeakPct), 50.0);
  // (50 x 1,865,741 + 0 x 1,259) / 1,867,000 = 49.9663%.
  EXPECT_NEAR(*m.get(Metric::NeuronPsumMeanPct), 50.0 * 1865741 / 1867000, 1e-9);
}

TEST(NeuronMemory, TheDeviceMemoryTableByUse) {
  WorkerAnalysis w = analyse_json(real_structure_json());
  const auto& rows = w.tables.neuron.memory;
  ASSERT_EQ(rows.size(), 6u);
  // Most bytes first: Total, Weights, Tensors, DMA Rings IO, Generic, Tensor Instructions.
  EXPECT_EQ(rows[0].use, "Total");
  EXPECT_EQ(rows[1].use, "Weights");
  EXPECT_EQ(rows[1].bytes, 4194304u);
  EXPECT_NEAR(*rows[1].share_pct, 100.0 * 4194304 / 5334016, 1e-9);  // 78.63%
  EXPECT_EQ(rows[5].use, "Tensor Instructions");
  EXPECT_DOUBLE_EQ(*rows[5].share_pct, 0.0);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::NeuronDeviceMemoryBytes), 5334016.0);
  // Without a Total row: the sum of the uses, and no shares.
  WorkerAnalysis no_total = analyse_json(
      with_section("nc_mem_usage", R"([{"nd": 0, "nc": 0, "usage_type": "Weights", "amount_bytes": 300},
      {"nd": 0, "nc": 1, "usage_type": "Weights", "amount_bytes": 200}])"));
  EXPECT_DOUBLE_EQ(*no_total.metrics.get(Metric::NeuronDeviceMemoryBytes), 500.0);
  EXPECT_FALSE(no_total.tables.neuron.memory[0].share_pct.has_value());
}

// The terminal's Memory line has the peaks and means; the Device memory line the largest uses.
TEST(NeuronMemory, TheTerminalShowsOccupancyAndTheLargestUses) {
  std::string out = render_terminal(report_of_json(real_structure_json(), default_book()));
  EXPECT_NE(out.find("SBUF peak 25.0% · SBUF mean 24.9% · PSUM peak 50.0% · PSUM mean 50.0%"),
            std::string::npos)
      << out;
  // 5,334,016 B = 5.3 MB; Weights 78.6%, Tensors 1,048,576 / 5,334,016 = 19.7%, DMA Rings IO 1.2%.
  EXPECT_NE(out.find("Memory use   5.3 MB: "), std::string::npos) << out;
  EXPECT_NE(out.find("5.3 MB: Weights 4.2 MB (78.6%), Tensors 1.0 MB (19.7%), DMA Rings IO 65.5 kB (1.2%)"),
            std::string::npos)
      << out;
}

// The HTML page: an SBUF and a PSUM lane on the device timeline, the device memory bars.
TEST(NeuronMemory, TheHtmlPageDrawsTheLanesAndTheMemoryBars) {
  std::string html = render_html(report_of_json(real_structure_json(), default_book())).page;
  EXPECT_NE(html.find("SBUF 25.0% occupied (partition 0: 50.0%, partition 32: 25.0%"), std::string::npos);
  EXPECT_NE(html.find("PSUM 50.0% occupied (bank 0: 100.0%, bank 1: 50.0%, bank 2: 0.0%, bank 3: 50.0%)"),
            std::string::npos);
  EXPECT_NE(html.find("Device memory by use: share of the core&#39;s total"), std::string::npos);  // escaped
  EXPECT_NE(html.find("Weights 4.2 MB"), std::string::npos);
}

// Bad rows: a usage that is no fraction is read as absent, a type perfgate does not know and a
// row without a byte count are left out, each said in a note; a row without a timestamp, or with
// a negative one, is an input error naming the row.
TEST(NeuronMemory, BadRowsAreNotedOrRefused) {
  Profile p = load_json(with_section("instruction_usage", R"([{"type": "sb", "timestamp": 5, "usage_avg": 1.5,
      "partition_0_usage": "0.5", "partition_16_usage": 0.2}, {"type": "hbm", "timestamp": 6, "usage_avg": 0.1}])"));
  ASSERT_EQ(p.neuron.buffer_samples.size(), 1u);
  EXPECT_FALSE(p.neuron.buffer_samples[0].average.has_value());  // 1.5 is no fraction
  EXPECT_DOUBLE_EQ(*p.neuron.buffer_samples[0].parts[0], 0.5);   // a numeric string
  EXPECT_TRUE(has_line(p.notes, "1 instruction_usage rows of a type other than sb and psum were left out"));
  EXPECT_TRUE(has_line(p.notes, "1 instruction_usage values were no fraction"));
  Profile q =
      load_json(with_section("nc_mem_usage", R"([{"nd": 0, "nc": 0, "usage_type": "IO", "amount_bytes": "x"},
      {"nd": 0, "nc": 0, "usage_type": "Weights", "amount_bytes": -4}])"));
  EXPECT_TRUE(q.neuron.memory_uses.empty());
  EXPECT_TRUE(has_line(q.notes, "2 nc_mem_usage rows without a byte count"));
  std::string dir = temp_dir();
  auto error_of = [&](const std::string& rows) {
    try {
      load_run({write_text(dir + "/p.json", with_section("instruction_usage", rows))});
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(
      error_of(R"([{"type": "sb", "usage_avg": 0.1}])").find("instruction_usage row 1 has no timestamp"),
      std::string::npos);
  EXPECT_NE(error_of(R"([{"type": "sb", "timestamp": 1}, {"type": "sb", "timestamp": -2}])")
                .find("instruction_usage row 2: timestamp -2 ns is out of range"),
            std::string::npos);
}

// The first execution is a possibility the finding names with its evidence, not a fact: the Sync
// row's 1,869,000 ns wait (no other instruction on it) is the longest before a first instruction.
TEST(NeuronMemory, TheFirstExecutionFindingStatesItsEvidence) {
  WorkerAnalysis w = analyse_json(real_structure_json());
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::NeuronLeadingWaitUs), 1869.0);
  EXPECT_NEAR(*w.metrics.get(Metric::NeuronLeadingWaitPct), 100.0 * 1869000 / 1870000, 1e-9);  // 99.95%
  ReportModel r = report_of_json(real_structure_json(), default_book());
  apply_gate(r, default_rules(), nullptr, {});
  const ReportFinding* f = find_finding(r, "neuron.first-execution");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->status, FindingStatus::Warn);
  EXPECT_NE(f->problem.find("before its first instruction lasts 1.87 ms, 99.9% of the total time"),
            std::string::npos)
      << f->problem;
  EXPECT_NE(f->problem.find("does not say which execution"), std::string::npos) << f->problem;
  EXPECT_EQ(f->problem.find("includes loading, so"), std::string::npos) << f->problem;
  // A wait after an engine's first instruction is not before it: Vector's wait moved to 3,000 ns
  // (after its instruction at 2,400) and Sync's cut to 100 ns leave Sync's 100 ns = 0.1 us.
  std::string later = real_structure_json();
  const std::string vector_wait = "{\"timestamp\": 0, \"duration\": 1866000";
  const std::string sync_wait = "{\"timestamp\": 0, \"duration\": 1869000";
  later.replace(later.find(vector_wait), vector_wait.size(), "{\"timestamp\": 3000, \"duration\": 1866000");
  later.replace(later.find(sync_wait), sync_wait.size(), "{\"timestamp\": 0, \"duration\": 100");
  WorkerAnalysis v = analyse_json(later);
  EXPECT_DOUBLE_EQ(*v.metrics.get(Metric::NeuronLeadingWaitUs), 0.1);
  // Instruction rows where no engine waits before its first instruction: the leading wait is 0,
  // not n/a, which the finding keeps for a profile without instruction rows (issue 72, item 10:
  // "n/a without instruction rows" beside 129 of them). Sync's row is work, not a wait, here.
  const std::string sync_row = R"("label": "Sync", "opcode": "EVENT_SEMAPHORE_RANGE_CLEAR")";
  later.replace(later.find(sync_row), sync_row.size(), R"("label": "Sync", "opcode": "DmaTrigger")");
  WorkerAnalysis none = analyse_json(later);
  EXPECT_DOUBLE_EQ(none.metrics.get(Metric::NeuronLeadingWaitUs).value_or(-1), 0);
  EXPECT_DOUBLE_EQ(none.metrics.get(Metric::NeuronLeadingWaitPct).value_or(-1), 0);
}

}  // namespace
}  // namespace perfgate::testing
