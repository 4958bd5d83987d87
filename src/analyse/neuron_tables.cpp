#include "analyse/neuron_tables.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

#include "analyse/neuron_metrics.h"

namespace perfgate {
namespace {

constexpr std::string_view kNoHloOp = "(no HLO op)";
constexpr std::array<std::string_view, kNeuronEngines> kEngineNames = {"tensor", "vector", "scalar",
                                                                       "gpsimd", "sync",   "other"};

std::string op_name(const Profile& p, StringId id) {
  return id == kNoString ? std::string(kNoHloOp) : std::string(p.str(id));
}

std::optional<double> share(TimeNs part, TimeNs whole) {
  if (whole <= 0) return std::nullopt;
  return 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

std::vector<NeuronEngineRow> engine_rows(const Profile& p, TimeNs total) {
  const NeuronDevice& n = p.neuron;
  std::array<NeuronEngineRow, kNeuronEngines> rows{};
  std::array<TimeNs, kNeuronEngines> union_end{};
  union_end.fill(std::numeric_limits<TimeNs>::min());
  for (const NeuronInstruction& i : n.instructions) {  // in start order: the union is a running sweep
    auto e = static_cast<std::size_t>(n.lanes[i.lane].engine);
    NeuronEngineRow& r = rows[e];
    ++r.instructions;
    r.instruction_time += i.end - i.start;
    if (i.end > union_end[e]) {
      r.active += i.end - std::max(i.start, union_end[e]);
      union_end[e] = i.end;
    }
  }
  for (const NeuronLane& lane : n.lanes) {
    std::string& lanes = rows[static_cast<std::size_t>(lane.engine)].lanes;
    lanes += (lanes.empty() ? "" : ", ") + std::string(p.str(lane.name));
  }
  std::vector<NeuronEngineRow> out;
  for (std::size_t e = 0; e < kNeuronEngines; ++e) {
    NeuronEngineRow& r = rows[e];
    r.engine = kEngineNames[e];
    if (n.full_profile) r.active_pct = share(r.active, total);
    if (e + 1 < kNeuronEngines)
      if (auto f = n.summary_value(r.engine + "_engine_active_time_percent")) r.summary_active_pct = *f * 100;
    if (r.instructions > 0 || r.summary_active_pct) out.push_back(std::move(r));
  }
  return out;
}

std::vector<NeuronOpRow> op_rows(const Profile& p) {
  const NeuronDevice& n = p.neuron;
  std::unordered_map<StringId, std::size_t> index;
  std::vector<NeuronOpRow> rows;
  auto row_of = [&](StringId op) -> NeuronOpRow& {
    auto [it, added] = index.try_emplace(op, rows.size());
    if (added) rows.push_back({.name = op_name(p, op)});
    return rows[it->second];
  };
  std::array<TimeNs, kNeuronEngines> engine_time{};
  for (const NeuronInstruction& i : n.instructions) {
    auto e = static_cast<std::size_t>(n.lanes[i.lane].engine);
    NeuronOpRow& r = row_of(i.hlo_op);
    r.time[e] += i.end - i.start;
    r.total += i.end - i.start;
    ++r.instructions[e];
    engine_time[e] += i.end - i.start;
  }
  // A DMA row counts for the op it names (hlo_name); one that names none is in the DMA queues
  // table only: it does not make a "(no HLO op)" row of no instruction.
  for (const NeuronDma& d : n.dmas) {
    if (d.hlo_op == kNoString) continue;
    NeuronOpRow& r = row_of(d.hlo_op);
    ++r.dma_transfers;
    r.dma_bytes += d.bytes;
  }
  for (NeuronOpRow& r : rows)
    for (std::size_t e = 0; e < kNeuronEngines; ++e)
      if (r.instructions[e] > 0) r.share_pct[e] = share(r.time[e], engine_time[e]);
  std::stable_sort(rows.begin(), rows.end(), [](const NeuronOpRow& a, const NeuronOpRow& b) {
    return a.total != b.total ? a.total > b.total : a.dma_bytes > b.dma_bytes;
  });
  return rows;
}

std::vector<NeuronDmaQueueRow> dma_queue_rows(const Profile& p, TimeNs total) {
  const NeuronDevice& n = p.neuron;
  std::vector<NeuronDmaQueueRow> rows(n.dma_queues.size());
  std::vector<TimeNs> union_end(n.dma_queues.size(), std::numeric_limits<TimeNs>::min());
  for (std::size_t q = 0; q < rows.size(); ++q) rows[q].queue = p.str(n.dma_queues[q]);
  for (const NeuronDma& d : n.dmas) {
    NeuronDmaQueueRow& r = rows[d.queue];
    ++r.transfers;
    r.bytes += d.bytes;
    r.time += d.end - d.start;
    r.collective = r.collective || d.collective;
    if (d.end > union_end[d.queue]) {
      r.active += d.end - std::max(d.start, union_end[d.queue]);
      union_end[d.queue] = d.end;
    }
  }
  for (NeuronDmaQueueRow& r : rows) {
    r.active_pct = share(r.active, total);
    if (r.active > 0) r.gb_per_s = static_cast<double>(r.bytes) / static_cast<double>(r.active);  // B/ns
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const NeuronDmaQueueRow& a, const NeuronDmaQueueRow& b) { return a.bytes > b.bytes; });
  return rows;
}

std::vector<NeuronLayerRow> layer_rows(const NeuronDevice& n) {
  auto scaled = [](std::optional<double> v, double by) { return v ? std::optional<double>(*v * by) : v; };
  std::vector<NeuronLayerRow> rows;
  for (const NeuronLayer& l : n.layers) {
    NeuronLayerRow r;
    r.name = l.name;
    for (std::size_t e = 0; e < l.active_time_s.size(); ++e) {
      r.active_us[e] = scaled(l.active_time_s[e], 1e6);
      r.instructions[e] = l.instructions[e];
    }
    r.mfu_pct = scaled(l.mfu, 100);
    r.hfu_pct = scaled(l.hfu, 100);
    r.model_flops = l.model_flops;
    r.hardware_flops = l.hardware_flops;
    rows.push_back(std::move(r));
  }
  return rows;
}

std::vector<NeuronNoteRow> note_rows(const NeuronDevice& n) {
  std::vector<NeuronNoteRow> rows;
  for (const NeuronWarning& w : n.warnings) {
    auto same = [&](const NeuronNoteRow& r) { return r.category == w.category && r.message == w.message; };
    if (auto it = std::find_if(rows.begin(), rows.end(), same); it != rows.end())
      ++it->count;
    else
      rows.push_back({w.category, w.message, 1});
  }
  return rows;
}

}  // namespace

NeuronTables neuron_tables(const Profile& p) {
  NeuronTables t;
  if (!p.neuron.present) return t;
  TimeNs total = neuron_total_time(p);
  t.engines = engine_rows(p, total);
  t.ops = op_rows(p);
  t.dma_queues = dma_queue_rows(p, total);
  t.layers = layer_rows(p.neuron);
  t.notes = note_rows(p.neuron);
  return t;
}

}  // namespace perfgate
