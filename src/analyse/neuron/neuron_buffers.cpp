#include "analyse/neuron/neuron_buffers.h"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <tuple>

namespace perfgate {
namespace {

std::optional<double> times_100(std::optional<double> fraction) {
  if (!fraction) return std::nullopt;
  return *fraction * 100.0;
}

std::vector<NeuronBufferRow> buffer_rows(const NeuronDevice& n) {
  NeuronSpan span = neuron_span(n);
  TimeNs origin =
      span.last > span.first ? span.first : (n.buffer_samples.empty() ? 0 : n.buffer_samples[0].time);
  std::vector<NeuronBufferRow> rows;
  rows.reserve(n.buffer_samples.size());
  // The row of each buffer that waits for its end: the next row of that buffer.
  std::array<std::optional<std::size_t>, 2> open{};
  for (const NeuronBufferSample& s : n.buffer_samples) {
    auto& previous = open[static_cast<std::size_t>(s.buffer)];
    if (previous) rows[*previous].duration = s.time - origin - rows[*previous].start;
    NeuronBufferRow r;
    r.start = s.time - origin;
    r.buffer = s.buffer;
    r.average_pct = times_100(s.average);
    for (std::size_t k = 0; k < kNeuronBufferParts; ++k) r.parts_pct[k] = times_100(s.parts[k]);
    previous = rows.size();
    rows.push_back(r);
  }
  for (const auto& last : open)
    if (last && span.last > span.first)
      rows[*last].duration = std::max<TimeNs>(0, span.last - origin - rows[*last].start);
  return rows;
}

std::vector<NeuronMemoryRow> memory_rows(const std::vector<NeuronMemoryUse>& uses) {
  std::map<std::pair<std::int64_t, std::int64_t>, std::uint64_t> totals;
  for (const NeuronMemoryUse& u : uses)
    if (u.use == "Total") totals[{u.device, u.core}] = std::max(totals[{u.device, u.core}], u.bytes);
  std::vector<NeuronMemoryRow> rows;
  rows.reserve(uses.size());
  for (const NeuronMemoryUse& u : uses) {
    NeuronMemoryRow r{u.device, u.core, u.use, u.bytes, std::nullopt};
    if (auto it = totals.find({u.device, u.core}); it != totals.end() && it->second > 0)
      r.share_pct = 100.0 * static_cast<double>(u.bytes) / static_cast<double>(it->second);
    rows.push_back(std::move(r));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const NeuronMemoryRow& a, const NeuronMemoryRow& b) {
    return std::tie(a.device, a.core, b.bytes) < std::tie(b.device, b.core, a.bytes);
  });
  return rows;
}

}  // namespace

NeuronSpan neuron_span(const NeuronDevice& n) {
  NeuronSpan span{std::numeric_limits<TimeNs>::max(), 0};
  for (const auto& i : n.instructions)
    span.first = std::min(span.first, i.start), span.last = std::max(span.last, i.end);
  for (const auto& d : n.dmas)
    span.first = std::min(span.first, d.start), span.last = std::max(span.last, d.end);
  return span;
}

void neuron_memory_tables(const Profile& p, NeuronTables& t) {
  t.buffers = buffer_rows(p.neuron);
  t.memory = memory_rows(p.neuron.memory_uses);
}

NeuronBufferStats neuron_buffer_stats(const std::vector<NeuronBufferRow>& buffers, NeuronBuffer buffer) {
  NeuronBufferStats stats;
  double weighted = 0, plain = 0;
  TimeNs time = 0;
  std::size_t rows = 0;
  for (const NeuronBufferRow& r : buffers) {
    if (r.buffer != buffer || !r.average_pct) continue;
    stats.peak_pct = std::max(stats.peak_pct.value_or(*r.average_pct), *r.average_pct);
    weighted += *r.average_pct * static_cast<double>(r.duration);
    time += r.duration;
    plain += *r.average_pct;
    ++rows;
  }
  if (rows > 0)
    stats.mean_pct = time > 0 ? weighted / static_cast<double>(time) : plain / static_cast<double>(rows);
  return stats;
}

std::optional<double> neuron_device_memory_bytes(const std::vector<NeuronMemoryUse>& uses) {
  if (uses.empty()) return std::nullopt;
  double total = 0, all = 0;
  bool has_total = false;
  for (const NeuronMemoryUse& u : uses) {
    if (u.use == "Total")
      total += static_cast<double>(u.bytes), has_total = true;
    else
      all += static_cast<double>(u.bytes);
  }
  return has_total ? total : all;
}

std::optional<TimeNs> neuron_leading_wait_ns(const NeuronDevice& n) {
  std::vector<TimeNs> first_work(n.lanes.size(), std::numeric_limits<TimeNs>::max());
  for (const NeuronInstruction& i : n.instructions)
    if (!i.semaphore_wait && i.lane < first_work.size())
      first_work[i.lane] = std::min(first_work[i.lane], i.start);
  std::optional<TimeNs> longest;
  for (const NeuronInstruction& i : n.instructions)
    if (i.semaphore_wait && i.lane < first_work.size() && i.start < first_work[i.lane])
      longest = std::max(longest.value_or(0), i.end - i.start);
  // Instruction rows that show no such wait show a wait of 0; only a profile without them cannot say.
  if (!longest && !n.instructions.empty()) return 0;
  return longest;
}

}  // namespace perfgate
