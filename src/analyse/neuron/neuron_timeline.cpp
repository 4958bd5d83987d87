// The device timeline of a Neuron profile (neuron_tables.h): a lane per engine row and DMA queue.
#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>

#include "analyse/neuron/neuron_buffers.h"
#include "analyse/neuron/neuron_tables.h"

namespace perfgate {
namespace {

using Span = NeuronSpan;

// One lane's time per HLO op in each bucket that has any: a lane holds only its busy buckets, so
// a profile with thousands of engine rows or DMA queues does not hold `buckets` maps for each.
using Buckets = std::map<std::size_t, std::unordered_map<StringId, TimeNs>>;

void spread(Buckets& buckets, std::size_t bucket_count, const Span& span, TimeNs width, TimeNs start,
            TimeNs end, StringId op) {
  for (TimeNs t = start; t < end;) {
    auto b = static_cast<std::size_t>((t - span.first) / width);
    b = std::min(b, bucket_count - 1);
    TimeNs bucket_end = span.first + static_cast<TimeNs>(b + 1) * width;
    TimeNs piece_end = b + 1 == bucket_count ? end : std::min(end, bucket_end);
    buckets[b][op] += piece_end - t;
    t = piece_end;
  }
}

// One box per busy bucket (its op: the most time; ties: the lower name id), joined with the next
// bucket's when the op is the same.
void emit_lane(const Profile& p, const Buckets& buckets, const Span& span, TimeNs width, std::int32_t device,
               std::uint32_t lane, const char* kind, std::vector<TimelineBox>& boxes) {
  const std::size_t first_box = boxes.size();
  bool open = false;  // boxes.back() is this lane's box of the previous bucket
  std::size_t previous = 0;
  for (const auto& [b, ops] : buckets) {
    if (open && previous + 1 != b) open = false;  // an empty bucket between
    previous = b;
    auto top = std::max_element(ops.begin(), ops.end(), [](const auto& x, const auto& y) {
      return x.second != y.second ? x.second < y.second : x.first > y.first;
    });
    std::string name = top->first == kNoString ? "(no HLO op)" : std::string(p.str(top->first));
    TimeNs start = static_cast<TimeNs>(b) * width;
    if (open && boxes.back().op == name) {
      boxes.back().duration = start + width - boxes.back().start;
      continue;
    }
    boxes.push_back({device, lane, start, std::min(width, span.last - span.first - start), name, name, kind});
    open = true;
  }
  for (std::size_t k = first_box; k < boxes.size(); ++k)
    boxes[k].duration = std::min(boxes[k].duration, span.last - span.first - boxes[k].start);
}

}  // namespace

void neuron_timeline(const Profile& p, std::size_t bucket_count, NeuronTables& t) {
  const NeuronDevice& n = p.neuron;
  Span span = neuron_span(n);
  if (span.last <= span.first || bucket_count == 0) return;
  TimeNs width = std::max<TimeNs>(1, (span.last - span.first + static_cast<TimeNs>(bucket_count) - 1) /
                                         static_cast<TimeNs>(bucket_count));
  std::size_t buckets = static_cast<std::size_t>((span.last - span.first + width - 1) / width);
  std::vector<Buckets> lanes(n.lanes.size());
  // A semaphore wait is an engine waiting, not working: the lane shows the work only.
  for (const auto& i : n.instructions)
    if (!i.semaphore_wait) spread(lanes[i.lane], buckets, span, width, i.start, i.end, i.hlo_op);
  std::vector<Buckets> queues(n.dma_queues.size());
  for (const auto& d : n.dmas) spread(queues[d.queue], buckets, span, width, d.start, d.end, d.hlo_op);
  for (std::size_t l = 0; l < lanes.size(); ++l) {
    emit_lane(p, lanes[l], span, width, kNeuronEngineLane, static_cast<std::uint32_t>(l),
              "neuron_instruction", t.timeline);
    t.timeline_lanes.emplace_back(p.str(n.lanes[l].name));
  }
  for (std::size_t q = 0; q < queues.size(); ++q) {
    emit_lane(p, queues[q], span, width, kNeuronDmaLane, static_cast<std::uint32_t>(t.timeline_lanes.size()),
              "neuron_dma", t.timeline);
    t.timeline_lanes.emplace_back(p.str(n.dma_queues[q]));
  }
}

}  // namespace perfgate
