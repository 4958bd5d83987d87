#include "report/neuron_report_tables.h"

#include <array>
#include <string>

#include <fmt/format.h>

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
      {"time_us", "us", "Sum of its instructions' durations, every engine"},
      {"instructions", "count", "Its instruction rows, every engine"}};
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
    std::vector<ReportCell> cells = {ReportCell{r.name}, us(r.total), count(instructions)};
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
  ReportTable t =
      table("neuron_engines", "Engines",
            "The NeuronCore's engines: instruction rows and the summary's active share",
            {{"engine", "",
              "tensor, vector, scalar, gpsimd, sync, or other (collective-communication cores and the rest)"},
             {"lanes", "", "The Device Viewer's rows (label) it gathers"},
             {"instructions", "count", "Instruction rows"},
             {"instruction_time_us", "us", "Sum of their durations"},
             {"active_us", "us", "Union of their intervals"},
             {"active_pct", "%", "active_us / the profile's total time"},
             {"summary_active_pct", "%",
              "The summary's <engine>_engine_active_time_percent x 100 (the Device Viewer's)"}});
  for (const NeuronEngineRow& r : rows)
    t.rows.push_back({ReportCell{r.engine}, text(r.lanes), count(r.instructions), us(r.instruction_time),
                      us(r.active), number(r.active_pct), number(r.summary_active_pct)});
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
    columns.push_back({fmt::format("{}_active_us", kEngines[e]), "us",
                       fmt::format("{}_engine_active_time, in us", kEngines[e])});
  for (std::size_t e = 0; e + 1 < kNeuronEngines; ++e)
    columns.push_back({fmt::format("{}_instructions", kEngines[e]), "count",
                       fmt::format("{}_engine_instruction_count", kEngines[e])});
  columns.push_back({"mfu_pct", "%", "tensor_engine_mfu x 100"});
  columns.push_back({"hfu_pct", "%", "tensor_engine_hfu x 100"});
  columns.push_back({"model_flops", "flop", "model_flops"});
  columns.push_back({"hardware_flops", "flop", "hardware_flops"});
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
                         {"count", "count", "Warnings with this category and message"}});
  for (const NeuronNoteRow& r : rows) t.rows.push_back({text(r.category), text(r.message), count(r.count)});
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

std::vector<ReportTable> neuron_report_tables(const NeuronTables& tables) {
  return {ops_table(tables.ops),       engines_table(tables.engines), dma_queues_table(tables.dma_queues),
          layers_table(tables.layers), notes_table(tables.notes),     timeline_table(tables)};
}

}  // namespace perfgate
