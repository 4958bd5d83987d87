#include "analyse/communication/communication.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace perfgate {

int element_bytes(std::string_view t) {
  if (t.starts_with("c10::")) t.remove_prefix(5);
  if (t == "Float" || t == "float" || t == "Int" || t == "int") return 4;
  if (t == "Double" || t == "double" || t == "Long" || t == "long int" || t == "ComplexFloat") return 8;
  if (t == "Half" || t == "BFloat16" || t == "Short" || t == "short int") return 2;
  if (t == "Byte" || t == "Char" || t == "Bool" || t == "bool" || t == "unsigned char" ||
      t == "signed char" || t.starts_with("Float8"))
    return 1;
  return 0;
}

namespace {

using ArgsById = std::unordered_map<std::int64_t, const CollectiveArgs*>;

// The record_param_comms arguments of an op or its callees, if any.
const CollectiveArgs* recorded_args(const Profile& p, std::size_t op, std::size_t subtree_end,
                                    const ArgsById& by_id) {
  for (std::size_t k = op; k < subtree_end; ++k) {
    std::int64_t id = p.details(k).external_id;
    auto it = by_id.find(id);
    if (id != 0 && it != by_id.end()) return it->second;
  }
  return nullptr;
}

// Bytes of the collective an outermost communication op started: from the arguments PyTorch
// records (record_param_comms), else from the input tensor of an nccl:*/gloo:* range.
std::optional<std::uint64_t> collective_bytes(const Profile& p, std::size_t op, std::size_t subtree_end,
                                              const ArgsById& by_id, ArgumentCache& args) {
  for (std::size_t k = op; k < subtree_end; ++k) {
    std::int64_t id = p.details(k).external_id;
    auto it = by_id.find(id);
    if (id != 0 && it != by_id.end() && it->second->in_elements >= 0) {
      int size = element_bytes(p.str(it->second->dtype));
      if (size > 0)
        return static_cast<std::uint64_t>(it->second->in_elements) * static_cast<std::uint64_t>(size);
    }
  }
  for (std::size_t k = op; k < subtree_end; ++k) {
    const OpDetails& d = p.details(k);
    const auto& dims = args.dims(d.input_dims);
    const auto& types = args.strings(d.input_types);
    if (dims.empty() || types.empty() || dims[0].empty()) continue;
    int size = element_bytes(types[0]);
    if (size == 0) continue;
    std::uint64_t n = 1;
    for (std::int64_t dim : dims[0]) n *= static_cast<std::uint64_t>(std::max<std::int64_t>(dim, 0));
    return n * static_cast<std::uint64_t>(size);
  }
  return std::nullopt;
}

// One call into its op's row.
void add_call(const Profile& p, const OpStats& stats, std::size_t op, const CollectiveArgs* recorded,
              std::optional<std::uint64_t> bytes, std::map<StringId, CollectiveRow>& rows) {
  CollectiveRow& r = rows[p.host_events[op].name];
  if (r.collective.empty() && recorded) r.collective = std::string(p.str(recorded->collective));
  ++r.calls;
  r.host += p.host_events[op].end - p.host_events[op].start;
  TimeNs device = stats.total_device(op);
  r.device += device;
  if (!bytes) return;
  ++r.sized_calls;
  r.bytes += *bytes;
  r.sized_device += device;
}

// The span of the GPU work an op and its callees launched, if any.
std::optional<Interval> device_span(const Profile& p, const OpStats& stats, std::size_t op) {
  std::optional<Interval> span;
  for (std::size_t k = op; k < stats.subtree_end(op); ++k)
    for (std::uint32_t a : stats.launched(k)) {
      const GpuActivity& g = p.gpu_activities[a];
      if (!span) span = Interval{g.start, g.end};
      span->start = std::min(span->start, g.start);
      span->end = std::max(span->end, g.end);
    }
  return span;
}

std::vector<CollectiveRow> collective_rows(const Profile& p, std::map<StringId, CollectiveRow> rows) {
  std::vector<CollectiveRow> out;
  for (auto& [name, row] : rows) {
    row.op = std::string(p.str(name));
    out.push_back(std::move(row));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const CollectiveRow& a, const CollectiveRow& b) { return a.device > b.device; });
  return out;
}

}  // namespace

void communication_time(const ActivityIntervals& in, const Window& w, CommunicationSums& s) {
  Interval window{w.start, w.end};
  s.window = w.length();
  s.kernel_time = length_within(in.communication_kernels, window);
  s.overlapped = total_length(clip(intersect(in.communication_kernels, in.compute_kernels), window));
}

void collectives(const Profile& p, const OpStats& stats, NameClasses& classes, ArgumentCache& args,
                 CommunicationSums& s, std::vector<CollectiveRow>& table, CollectiveCallRecorder& calls) {
  ArgsById by_id;
  for (const CollectiveArgs& c : p.collectives) by_id.emplace(c.external_id, &c);
  std::map<StringId, CollectiveRow> rows;
  const auto& events = p.host_events;
  std::vector<bool> inside_comm(events.size(), false);  // a communication op encloses it
  for (std::size_t i = 0; i < events.size(); ++i) {
    const HostEvent& e = events[i];
    bool comm = e.kind != HostKind::PythonFunction && classes.communication_op(e.name);
    bool enclosed = e.parent != kNone && inside_comm[e.parent];
    inside_comm[i] = comm || enclosed;
    if (!comm || enclosed || !stats.in_window(i)) continue;
    ++s.collectives;
    std::optional<std::uint64_t> bytes = collective_bytes(p, i, stats.subtree_end(i), by_id, args);
    if (bytes) {
      s.bytes += *bytes;
      s.bytes_known = true;
    }
    const CollectiveArgs* recorded = recorded_args(p, i, stats.subtree_end(i), by_id);
    add_call(p, stats, i, recorded, bytes, rows);
    calls.add(i, recorded, bytes, device_span(p, stats, i));
  }
  table = collective_rows(p, std::move(rows));
}

CommunicationSums& CommunicationSums::operator+=(const CommunicationSums& from) {
  add_time(kernel_time, from.kernel_time);
  add_time(overlapped, from.overlapped);
  add_time(window, from.window);
  collectives += from.collectives;
  bytes += from.bytes;
  bytes_known = bytes_known || from.bytes_known;
  return *this;
}

}  // namespace perfgate
