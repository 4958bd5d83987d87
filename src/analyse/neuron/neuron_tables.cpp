#include "analyse/neuron/neuron_tables.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

#include "analyse/neuron/neuron_buffers.h"
#include "analyse/neuron/neuron_metrics.h"
#include "analyse/neuron/neuron_throttle.h"

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

// A running union of intervals that arrive in start order.
struct RunningUnion {
  TimeNs end = std::numeric_limits<TimeNs>::min();
  TimeNs total = 0;
  void add(TimeNs start, TimeNs stop) {
    if (stop <= end) return;
    total += stop - std::max(start, end);
    end = stop;
  }
};

// The profiler's engine active time: its active_time rows' durations summed per engine (they agree
// with the summary's <engine>_engine_active_time); nullopt for an engine without such rows.
std::array<std::optional<TimeNs>, kNeuronEngines> active_from_rows(const NeuronDevice& n) {
  std::array<std::optional<TimeNs>, kNeuronEngines> active{};
  for (const NeuronActiveSpan& s : n.active_spans) {
    auto& a = active[static_cast<std::size_t>(s.engine)];
    a = a.value_or(0) + s.duration;
  }
  return active;
}

std::vector<NeuronEngineRow> engine_rows(const Profile& p, TimeNs total) {
  const NeuronDevice& n = p.neuron;
  std::array<NeuronEngineRow, kNeuronEngines> rows{};
  std::array<RunningUnion, kNeuronEngines> busy{}, waiting{};
  for (const NeuronInstruction& i : n.instructions) {  // in start order: the unions are running sweeps
    auto e = static_cast<std::size_t>(n.lanes[i.lane].engine);
    NeuronEngineRow& r = rows[e];
    ++r.instructions;
    if (i.semaphore_wait) {
      ++r.semaphore_waits;
      r.semaphore_wait_time += i.end - i.start;
      waiting[e].add(i.start, i.end);
      continue;
    }
    r.instruction_time += i.end - i.start;
    busy[e].add(i.start, i.end);
  }
  for (const NeuronLane& lane : n.lanes) {
    std::string& lanes = rows[static_cast<std::size_t>(lane.engine)].lanes;
    lanes += (lanes.empty() ? "" : ", ") + std::string(p.str(lane.name));
  }
  std::array<std::optional<TimeNs>, kNeuronEngines> profiler_active = active_from_rows(n);
  std::vector<NeuronEngineRow> out;
  for (std::size_t e = 0; e < kNeuronEngines; ++e) {
    NeuronEngineRow& r = rows[e];
    r.engine = kEngineNames[e];
    r.active = profiler_active[e].value_or(busy[e].total);
    if (n.full_profile) {
      r.active_pct = share(r.active, total);
      if (r.semaphore_waits > 0) r.semaphore_wait_pct = share(waiting[e].total, total);
    }
    if (e + 1 < kNeuronEngines)
      if (auto f = n.summary_value(r.engine + "_engine_active_time_percent")) r.summary_active_pct = *f * 100;
    if (r.instructions > 0 || r.summary_active_pct || profiler_active[e]) out.push_back(std::move(r));
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
    if (i.semaphore_wait) {  // waiting for another engine: not the op's time on this one
      r.semaphore_wait += i.end - i.start;
      continue;
    }
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
    if (a.total != b.total) return a.total > b.total;
    return a.dma_bytes != b.dma_bytes ? a.dma_bytes > b.dma_bytes : a.semaphore_wait > b.semaphore_wait;
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

// A layer's share of the profile's utilization: the profile's MFU (HFU) x the layer's share of the
// profile's model (hardware) FLOPs, so the layers' values add up to the profile's. Empty where the
// summary or the layer lacks a term.
std::optional<double> layer_utilization(const NeuronDevice& n, std::optional<double> layer_flops,
                                        std::string_view utilization, std::string_view flops) {
  std::optional<double> u = n.summary_value(utilization), total = n.summary_value(flops);
  if (!u || !total || !layer_flops || *total <= 0) return std::nullopt;
  return *u * 100.0 * *layer_flops / *total;
}

std::vector<NeuronLayerRow> layer_rows(const NeuronDevice& n) {
  auto scaled = [](std::optional<double> v, double by) { return v ? std::optional<double>(*v * by) : v; };
  std::vector<NeuronLayerRow> rows;
  for (const NeuronLayer& l : n.layers) {
    NeuronLayerRow r;
    r.name = l.name;
    for (std::size_t e = 0; e < l.active_time_ns.size(); ++e) {
      r.active_us[e] = scaled(l.active_time_ns[e], 1e-3);  // integer ns, where the summary has seconds
      r.instructions[e] = l.instructions[e];
    }
    r.mfu_pct = l.mfu ? scaled(l.mfu, 100)
                      : layer_utilization(n, l.model_flops, "mfu_estimated_percent", "model_flops");
    r.hfu_pct = l.hfu ? scaled(l.hfu, 100)
                      : layer_utilization(n, l.hardware_flops, "hfu_estimated_percent", "hardware_flops");
    r.model_flops = l.model_flops;
    r.hardware_flops = l.hardware_flops;
    rows.push_back(std::move(r));
  }
  return rows;
}

// Whether `word` names a command-line flag (--enable-dge-notifs) or sets an environment variable
// (NEURON_RT_ENABLE_DGE_NOTIFICATIONS=1).
bool names_a_setting(std::string_view word) {
  if (word.starts_with("--") && word.size() > 2) return true;
  std::size_t eq = word.find('=');
  if (eq == std::string_view::npos || eq == 0) return false;
  return std::all_of(word.begin(), word.begin() + static_cast<std::ptrdiff_t>(eq),
                     [](char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; });
}

// The profile's own advice in a warning: from the first sentence that names a flag or an
// environment variable to the message's end ("Try capturing the profile with --enable-dge-notifs
// or NEURON_RT_ENABLE_DGE_NOTIFICATIONS=1 env flag."); empty when it names none.
std::string remedy_of(std::string_view message) {
  std::size_t sentence = 0;
  for (std::size_t i = 0; i <= message.size(); ++i) {
    bool boundary = i == message.size() || message[i] == ' ';
    if (!boundary) continue;
    std::size_t word_start = message.rfind(' ', i == 0 ? 0 : i - 1);
    word_start = word_start == std::string_view::npos || word_start >= i ? 0 : word_start + 1;
    std::string_view word = message.substr(word_start, i - word_start);
    if (names_a_setting(word)) return std::string(message.substr(sentence));
    if (word.ends_with('.') || word.ends_with('!') || word.ends_with('?') || word.ends_with(':'))
      sentence = i + 1;
  }
  return {};
}

std::vector<NeuronNoteRow> note_rows(const NeuronDevice& n) {
  std::vector<NeuronNoteRow> rows;
  for (const NeuronWarning& w : n.warnings) {
    auto same = [&](const NeuronNoteRow& r) { return r.category == w.category && r.message == w.message; };
    if (auto it = std::find_if(rows.begin(), rows.end(), same); it != rows.end())
      ++it->count;
    else
      rows.push_back({w.category, w.message, 1, remedy_of(w.message), neuron_missing_data(w)});
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
  t.throttles = neuron_throttle_rows(p.neuron);
  neuron_memory_tables(p, t);
  return t;
}

}  // namespace perfgate
