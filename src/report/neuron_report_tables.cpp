#include "report/neuron_report_tables.h"

#include <algorithm>
#include <array>
#include <span>
#include <string>
#include <string_view>

#include "analyse/analysis.h"
#include "report/report_cells.h"
#include "report_model/table_limits.h"

namespace perfgate {
namespace {

// The engines in NeuronEngine's order, as the declared columns of each engine name them.
constexpr std::array<std::string_view, kNeuronEngines> kEngines = {"tensor", "vector", "scalar",
                                                                   "gpsimd", "sync",   "other"};

// The declared columns first, first + step, ... are the engines' in that order, `suffix` after
// each name: the rows below put an engine's cells in its place.
constexpr bool names_engines(Table table, std::size_t first, std::size_t step, std::size_t engines,
                             std::string_view suffix) {
  std::span<const std::string_view> names = table_column_names(table);
  for (std::size_t e = 0; e < engines; ++e) {
    std::string_view name = names[first + e * step];
    if (!name.starts_with(kEngines[e]) || name.substr(kEngines[e].size()) != suffix) return false;
  }
  return true;
}
static_assert(table_column_names(Table::NeuronOps).size() == 4 + 3 * kNeuronEngines + 2);
static_assert(names_engines(Table::NeuronOps, 4, 3, kNeuronEngines, "_us"));
static_assert(table_column_names(Table::NeuronLayers).size() == 1 + 2 * (kNeuronEngines - 1) + 4);
static_assert(names_engines(Table::NeuronLayers, 1, 1, kNeuronEngines - 1, "_active_us"));
static_assert(names_engines(Table::NeuronLayers, kNeuronEngines, 1, kNeuronEngines - 1, "_instructions"));
static_assert(table_column_names(Table::NeuronBuffers).size() == 4 + 4 + kNeuronBufferParts);

ReportTable ops_table(const std::vector<NeuronOpRow>& rows) {
  ReportTable t = declared_table(Table::NeuronOps);
  RowLimiter limiter(t, max_table_rows());
  for (const NeuronOpRow& r : rows) {
    std::uint64_t instructions = 0;
    for (std::uint64_t n : r.instructions) instructions += n;
    std::vector<ReportCell> cells = {ReportCell{r.name}, us(r.total), count(instructions),
                                     us(r.semaphore_wait)};
    for (std::size_t e = 0; e < kNeuronEngines; ++e) {
      cells.push_back(us(r.time[e]));
      cells.push_back(count(r.instructions[e]));
      cells.push_back(number(r.share_pct[e]));
    }
    cells.push_back(count(r.dma_transfers));
    cells.push_back(static_cast<double>(r.dma_bytes));
    limiter.add(std::move(cells));
  }
  limiter.finish();
  return t;
}

ReportTable engines_table(const std::vector<NeuronEngineRow>& rows) {
  ReportTable t = declared_table(Table::NeuronEngines);
  for (const NeuronEngineRow& r : rows)
    t.rows.push_back({ReportCell{r.engine}, text(r.lanes), count(r.instructions), us(r.instruction_time),
                      us(r.active), number(r.active_pct), count(r.semaphore_waits), us(r.semaphore_wait_time),
                      number(r.semaphore_wait_pct), number(r.summary_active_pct)});
  return t;
}

ReportTable dma_queues_table(const std::vector<NeuronDmaQueueRow>& rows) {
  ReportTable t = declared_table(Table::NeuronDmaQueues);
  for (const NeuronDmaQueueRow& r : rows)
    t.rows.push_back({ReportCell{r.queue}, count(r.transfers), static_cast<double>(r.bytes), us(r.time),
                      us(r.active), number(r.active_pct), number(r.gb_per_s), ReportCell{r.collective}});
  return t;
}

ReportTable layers_table(const std::vector<NeuronLayerRow>& rows) {
  ReportTable t = declared_table(Table::NeuronLayers);
  for (const NeuronLayerRow& r : rows) {
    std::vector<ReportCell> cells = {text(r.name)};
    for (const auto& v : r.active_us) cells.push_back(number(v));
    for (const auto& v : r.instructions) cells.push_back(number(v));
    for (const auto& v : {r.mfu_pct, r.hfu_pct, r.model_flops, r.hardware_flops}) cells.push_back(number(v));
    t.rows.push_back(std::move(cells));
  }
  return t;
}

ReportTable notes_table(const std::vector<NeuronNoteRow>& rows) {
  ReportTable t = declared_table(Table::NeuronNotes);
  for (const NeuronNoteRow& r : rows)
    t.rows.push_back({text(r.category), text(r.message), count(r.count), text(r.remedy),
                      ReportCell{r.missing_data}, ReportCell{!r.remedy.empty()}});
  return t;
}

ReportTable throttle_table(const std::vector<NeuronThrottleRow>& rows) {
  ReportTable t = declared_table(Table::NeuronThrottle);
  for (const NeuronThrottleRow& r : rows)
    t.rows.push_back({text(r.source), text(r.core), number(r.limit_pct), number(r.active_pct)});
  return t;
}

// instruction_usage: a column per SBUF partition (0, 32, 64, 96) and PSUM bank (0-7).
ReportTable buffers_table(const std::vector<NeuronBufferRow>& rows) {
  ReportTable t = declared_table(Table::NeuronBuffers);
  for (const NeuronBufferRow& r : rows) {
    bool sbuf = r.buffer == NeuronBuffer::Sbuf;
    std::vector<ReportCell> cells = {us(r.start), us(r.duration), text(sbuf ? "SBUF" : "PSUM"),
                                     number(r.average_pct)};
    for (std::size_t k = 0; k < 4; ++k) cells.push_back(sbuf ? number(r.parts_pct[k]) : ReportCell{});
    for (std::size_t k = 0; k < kNeuronBufferParts; ++k)
      cells.push_back(sbuf ? ReportCell{} : number(r.parts_pct[k]));
    t.rows.push_back(std::move(cells));
  }
  return t;
}

ReportTable memory_table(const std::vector<NeuronMemoryRow>& rows) {
  ReportTable t = declared_table(Table::NeuronMemory);
  for (const NeuronMemoryRow& r : rows)
    t.rows.push_back(
        {ReportCell{r.device}, ReportCell{r.core}, text(r.use), bytes(r.bytes), number(r.share_pct)});
  return t;
}

ReportTable timeline_table(const NeuronTables& tables) {
  ReportTable t = declared_table(Table::NeuronTimeline);
  for (const TimelineBox& b : tables.timeline) {
    std::string lane =
        b.stream < tables.timeline_lanes.size() ? tables.timeline_lanes[b.stream] : std::string();
    t.rows.push_back({ReportCell{lane}, ReportCell{b.kind}, us(b.start), us(b.duration), ReportCell{b.op}});
  }
  return t;
}

}  // namespace

ReportTable neuron_ranks_table(const RunAnalysis& analysis, const std::vector<std::int64_t>& ranks) {
  ReportTable t = declared_table(Table::NeuronRanks);
  std::optional<std::size_t> slowest;
  for (std::size_t i = 0; i < analysis.workers.size(); ++i) {
    auto total = analysis.workers[i].metrics.get(Metric::NeuronTotalTimeUs);
    auto best = slowest ? analysis.workers[*slowest].metrics.get(Metric::NeuronTotalTimeUs) : std::nullopt;
    if (total && (!best || *total > *best)) slowest = i;
  }
  for (std::size_t i = 0; i < analysis.workers.size(); ++i) {
    const MetricValues& m = analysis.workers[i].metrics;
    t.rows.push_back({ReportCell{analysis.workers[i].worker}, ReportCell{ranks[i]},
                      number(m.get(Metric::NeuronTotalTimeUs)), number(m.get(Metric::NeuronActiveTimePct)),
                      number(m.get(Metric::NeuronTensorActivePct)), number(m.get(Metric::NeuronMfuPct)),
                      number(m.get(Metric::NeuronHfuPct)), number(m.get(Metric::NeuronThrottleActivePct)),
                      ReportCell{slowest == i}});
  }
  return t;
}

std::vector<ReportTable> neuron_report_tables(const NeuronTables& tables) {
  return {ops_table(tables.ops),         engines_table(tables.engines), dma_queues_table(tables.dma_queues),
          layers_table(tables.layers),   notes_table(tables.notes),     throttle_table(tables.throttles),
          buffers_table(tables.buffers), memory_table(tables.memory),   timeline_table(tables)};
}

}  // namespace perfgate
