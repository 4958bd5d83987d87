#include "report/neuron_report_tables.h"

#include <algorithm>
#include <array>
#include <string>

#include <fmt/format.h>

#include "perfgate/analysis.h"
#include "report/report_cells.h"
#include "report_model/table_limits.h"

namespace perfgate {
namespace {

constexpr std::array<const char*, kNeuronEngines> kEngines = {"tensor", "vector", "scalar",
                                                              "gpsimd", "sync",   "other"};

ReportTable table(const char* name, const char* title, const char* description,
                  std::vector<ReportColumn> columns) {
  return ReportTable{name, title, description, std::move(columns), {}};
}

ReportTable ops_table(const std::vector<NeuronOpRow>& rows) {
  std::vector<ReportColumn> columns = {
      {"name", "", "The HLO op (the instructions' hlo_name); (no HLO op): instructions without one"},
      {"time_us", "us", "Sum of its instructions' durations, every engine, semaphore waits aside"},
      {"instructions", "count", "Its instruction rows, every engine, semaphore waits aside"},
      {"semaphore_wait_us", "us",
       "Sum of its semaphore waits' durations (EVENT_SEMAPHORE*: an engine waiting for another), every "
       "engine"}};
  for (const char* e : kEngines) {
    columns.push_back({fmt::format("{}_us", e), "us",
                       fmt::format("Sum of its instructions' durations on the {} engine", e)});
    columns.push_back(
        {fmt::format("{}_instructions", e), "count", fmt::format("Its instructions on the {} engine", e)});
    columns.push_back({fmt::format("{}_share_pct", e), "%",
                       fmt::format("Its share of the {} engine's instruction time (every op's sum)", e)});
  }
  columns.push_back({"dma_transfers", "count", "DMA rows that name it (hlo_name)"});
  columns.push_back({"dma_bytes", "bytes", "Their transfer_size, summed"});
  ReportTable t =
      table("neuron_ops", "HLO ops",
            "Each HLO op's instructions per engine and DMA transfers, most time first", std::move(columns));
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
  ReportTable t = table(
      "neuron_engines", "Engines",
      "The NeuronCore's engines: the profiler's active time, the instruction rows with the semaphore "
      "waits apart, and the summary's active share",
      {{"engine", "",
        "tensor, vector, scalar, gpsimd, sync, or other (collective-communication cores and the rest)"},
       {"lanes", "", "The Device Viewer's rows (label) it gathers"},
       {"instructions", "count", "Instruction rows, semaphore waits included (the summary's count)"},
       {"instruction_time_us", "us", "Sum of their durations, semaphore waits aside"},
       {"active_us", "us",
        "Sum of its active_time rows' duration_ns (the profiler's engine active time); without them, the "
        "union of its instructions' intervals, semaphore waits aside"},
       {"active_pct", "%", "active_us / the profile's total time"},
       {"semaphore_waits", "count", "Its EVENT_SEMAPHORE* instruction rows: waits for another engine"},
       {"semaphore_wait_us", "us", "Sum of their durations"},
       {"semaphore_wait_pct", "%", "Union of their intervals / the profile's total time"},
       {"summary_active_pct", "%",
        "The summary's <engine>_engine_active_time_percent x 100 (the Device Viewer's)"}});
  for (const NeuronEngineRow& r : rows)
    t.rows.push_back({ReportCell{r.engine}, text(r.lanes), count(r.instructions), us(r.instruction_time),
                      us(r.active), number(r.active_pct), count(r.semaphore_waits), us(r.semaphore_wait_time),
                      number(r.semaphore_wait_pct), number(r.summary_active_pct)});
  return t;
}

ReportTable dma_queues_table(const std::vector<NeuronDmaQueueRow>& rows) {
  ReportTable t = table("neuron_dma_queues", "DMA queues", "Each DMA queue's transfers, most bytes first",
                        {{"queue", "", "dma_queue (else queue_type, else dma_engine)"},
                         {"transfers", "count", "DMA rows"},
                         {"bytes", "bytes", "Their transfer_size, summed"},
                         {"time_us", "us", "Sum of their durations"},
                         {"active_us", "us", "Union of their intervals"},
                         {"active_pct", "%", "active_us / the profile's total time"},
                         {"gb_per_s", "GB/s", "bytes / active time"},
                         {"collective", "", "Some transfers are a collective's (is_cc_dma)"}});
  for (const NeuronDmaQueueRow& r : rows)
    t.rows.push_back({ReportCell{r.queue}, count(r.transfers), static_cast<double>(r.bytes), us(r.time),
                      us(r.active), number(r.active_pct), number(r.gb_per_s), ReportCell{r.collective}});
  return t;
}

ReportTable layers_table(const std::vector<NeuronLayerRow>& rows) {
  std::vector<ReportColumn> columns = {{"name", "", "The layer or subgraph (layer_summary)"}};
  for (std::size_t e = 0; e + 1 < kNeuronEngines; ++e)
    columns.push_back(
        {fmt::format("{}_active_us", kEngines[e]), "us",
         fmt::format("{}_engine_active_time (integer ns in layer_summary), in us", kEngines[e])});
  for (std::size_t e = 0; e + 1 < kNeuronEngines; ++e)
    columns.push_back({fmt::format("{}_instructions", kEngines[e]), "count",
                       fmt::format("{}_engine_instruction_count", kEngines[e])});
  columns.push_back(
      {"mfu_pct", "%",
       "The layer's part of the profile's MFU: mfu_estimated_percent x 100 x model_flops / the "
       "summary's model_flops (the layers add up to the profile's MFU); tensor_engine_mfu x 100 "
       "where the row has it"});
  columns.push_back({"hfu_pct", "%",
                     "The same for HFU: hfu_estimated_percent x 100 x hardware_flops / the summary's "
                     "hardware_flops; tensor_engine_hfu x 100 where the row has it"});
  columns.push_back({"model_flops", "flop", "tensor_engine_model_flop_count (else model_flops)"});
  columns.push_back(
      {"hardware_flops", "flop", "tensor_engine_flop_count (else hardware_flops): transposes included"});
  ReportTable t = table("neuron_layers", "Layers",
                        "The profile's layer_summary: each subgraph's engines and FLOPs", std::move(columns));
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
  ReportTable t = table("neuron_notes", "Profile warnings",
                        "The profile's own warnings (data quality), by category and message",
                        {{"category", "", "The warning's category (Missing Data, ...)"},
                         {"message", "", "Its message"},
                         {"count", "count", "Warnings with this category and message"},
                         {"remedy", "",
                          "The message's own advice: from its first sentence that names a flag (--...) or an "
                          "environment variable (NAME=value) to its end; empty when it names none"},
                         {"missing_data", "", "The category is Missing Data"},
                         {"has_remedy", "", "The message names a remedy"}});
  for (const NeuronNoteRow& r : rows)
    t.rows.push_back({text(r.category), text(r.message), count(r.count), text(r.remedy),
                      ReportCell{r.missing_data}, ReportCell{!r.remedy.empty()}});
  return t;
}

ReportTable throttle_table(const std::vector<NeuronThrottleRow>& rows) {
  ReportTable t =
      table("neuron_throttle", "Throttling",
            "Each source of throttling: the utilization limit it applied and the share of the time it "
            "applied it (throttle_<source>_..._<core>_percent)",
            {{"source", "", "The throttle source (<source> in the summary's names)"},
             {"core", "", "The NeuronCore (nc0, ...)"},
             {"limit_pct", "%", "throttle_<source>_avg_util_limit_<core>_percent x 100"},
             {"active_pct", "%", "throttle_<source>_active_time_<core>_percent x 100"}});
  for (const NeuronThrottleRow& r : rows)
    t.rows.push_back({text(r.source), text(r.core), number(r.limit_pct), number(r.active_pct)});
  return t;
}

// instruction_usage: a column per SBUF partition (0, 32, 64, 96) and PSUM bank (0-7).
ReportTable buffers_table(const std::vector<NeuronBufferRow>& rows) {
  std::vector<ReportColumn> columns = {
      {"start_us", "us", "timestamp, from the device timeline's start (its first instruction or DMA row)"},
      {"duration_us", "us",
       "Until the next row of its buffer; the last row until the timeline's end (the last instruction or "
       "DMA row's end)"},
      {"buffer", "", "SBUF (type sb: the state buffer) or PSUM (type psum: the partial-sum buffer)"},
      {"usage_pct", "%", "usage_avg x 100: the occupancy, the mean over its partitions or banks"}};
  for (std::size_t k = 0; k < 4; ++k)
    columns.push_back({fmt::format("partition_{}_pct", 32 * k), "%",
                       fmt::format("SBUF: partition_{}_usage x 100", 32 * k)});
  for (std::size_t k = 0; k < kNeuronBufferParts; ++k)
    columns.push_back({fmt::format("bank_{}_pct", k), "%", fmt::format("PSUM: bank_{}_usage x 100", k)});
  ReportTable t = table("neuron_buffers", "SBUF and PSUM occupancy",
                        "The on-chip buffers' occupancy over time (instruction_usage), in time order",
                        std::move(columns));
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
  ReportTable t = table("neuron_memory", "Device memory by use",
                        "The device memory allocated to each use on each NeuronCore (nc_mem_usage), by core, "
                        "most bytes first",
                        {{"device", "count", "nd: the Neuron device"},
                         {"core", "count", "nc: the NeuronCore"},
                         {"use", "", "usage_type (Weights, Tensors, DMA Rings IO, ..., Total)"},
                         {"bytes", "bytes", "amount_bytes"},
                         {"share_pct", "%", "bytes / the core's Total row x 100; empty without one"}});
  for (const NeuronMemoryRow& r : rows)
    t.rows.push_back(
        {ReportCell{r.device}, ReportCell{r.core}, text(r.use), bytes(r.bytes), number(r.share_pct)});
  return t;
}

ReportTable timeline_table(const NeuronTables& tables) {
  ReportTable t = table("neuron_timeline", "Device timeline",
                        "A lane per engine row and DMA queue; each of 400 equal stretches of the capture is "
                        "one box named by the HLO "
                        "op with the most time in it, adjacent boxes of one op joined",
                        {{"lane", "", "The engine row (label) or DMA queue"},
                         {"kind", "", "neuron_instruction or neuron_dma"},
                         {"start_us", "us", "From the first row's start"},
                         {"duration_us", "us", "The box's length"},
                         {"op", "", "The HLO op with the most time in the box"}});
  for (const TimelineBox& b : tables.timeline) {
    std::string lane =
        b.stream < tables.timeline_lanes.size() ? tables.timeline_lanes[b.stream] : std::string();
    t.rows.push_back({ReportCell{lane}, ReportCell{b.kind}, us(b.start), us(b.duration), ReportCell{b.op}});
  }
  return t;
}

}  // namespace

ReportTable neuron_ranks_table(const RunAnalysis& analysis, const std::vector<std::int64_t>& ranks) {
  ReportTable t = table("ranks", "Ranks", "Each Neuron profile of the run, the slowest marked",
                        {{"worker", "", "Worker (profile file, and node for summary-json)"},
                         {"rank", "count", "Rank (profile_rank_<i> in the file name, else worker index)"},
                         {"total_time_us", "us", "neuron.total_time_us of the profile"},
                         {"active_pct", "%", "neuron.active_time_pct of the profile"},
                         {"tensor_active_pct", "%", "neuron.tensor.active_pct of the profile"},
                         {"mfu_pct", "%", "neuron.mfu_pct of the profile"},
                         {"hfu_pct", "%", "neuron.hfu_pct of the profile"},
                         {"throttled_pct", "%", "neuron.throttle.active_pct of the profile"},
                         {"slowest", "", "The profile with the longest total time (the run's total time)"}});
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
