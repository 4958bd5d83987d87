#include "analyse/ops/ops_table.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>

#include <boost/unordered/unordered_flat_map.hpp>

#include "analyse/intervals.h"
#include "analyse/worker_analysis.h"

namespace perfgate {
namespace {

// Sums of one table row; the row itself (with its strings) is built once at the end.
struct OpAccumulator {
  std::uint64_t calls = 0;
  std::uint64_t kernel_calls = 0;
  TimeNs host_total = 0;
  TimeNs host_self = 0;
  TimeNs device_total = 0;
  TimeNs device_self = 0;
  TimeNs tc_device = 0;
  TimeNs eligible_without_tc = 0;
  double flops = 0;
  std::uint32_t first_call = 0;
  bool eligible = false;
  bool uses_tc = false;
  bool forward = false;
  bool backward = false;
};

// Adds one call to its row by name and its row by shape; its totals (walks of the op's subtree)
// are computed once for both.
void add_call(const OpTableInputs& in, std::size_t e, OpAccumulator& by_name, OpAccumulator& by_shape) {
  const OpStats& s = in.stats;
  const HostEvent& h = in.profile.host_events[e];
  TimeNs host = h.end - h.start;
  TimeNs device_total = s.total_device(e);
  TimeNs device_self = s.self_device(e);
  TimeNs tc = s.total_tc(e);
  std::uint32_t kernels = s.self_kernels(e);
  bool eligible = s.eligible(e);
  bool backward = s.backward(e);
  bool eligible_without_tc = s.bottom_eligible(e) && device_total > 0 && tc == 0;
  for (OpAccumulator* acc : {&by_name, &by_shape}) {
    if (acc->calls == 0) acc->first_call = static_cast<std::uint32_t>(e);
    ++acc->calls;
    acc->host_total += host;
    acc->host_self += host;                     // callees and runtime calls are subtracted afterwards
    add_time(acc->device_total, device_total);  // a kernel counts once per enclosing op of the name
    acc->device_self += device_self;
    add_time(acc->tc_device, tc);
    if (eligible_without_tc) add_time(acc->eligible_without_tc, device_total);
    acc->kernel_calls += kernels;
    acc->eligible = acc->eligible || eligible;
    acc->uses_tc = acc->uses_tc || tc > 0;
    acc->flops += in.flops[e];
    (backward ? acc->backward : acc->forward) = true;
  }
}

// The op type a collective has (rules: op_types). A collective run inside an op of another class
// is a call of its own: DDP's all-reduce runs in a gradient hook inside AccumulateGrad's
// evaluate_function, and counted as the enclosing op's class it put a DDP run's communication on
// the optimizer's row (a100_nccl: 46.8 ms of NCCL kernels as "optimizer", 0.1 ms as communication).
constexpr std::string_view kCommunicationType = "communication";

// The op type of each name, matched once: a name has a row per input shape (ResNet-50: 580 rows of
// 79 names), and the type patterns are a set of regexes. And the fused ops a compiled kernel's name
// lists, parsed once per name.
class OpTypeOf {
 public:
  explicit OpTypeOf(const OpTableInputs& in) : fused(in.classification.fused_names, in.profile), in_(in) {}
  const std::string& operator()(StringId name) {
    auto [it, inserted] = known_.try_emplace(name, nullptr);
    if (inserted) it->second = &in_.classification.op_type(in_.profile.str(name));
    return *it->second;
  }
  // Whether the name's type is kCommunicationType: asked of every callee of the top-level ops, so
  // answered from an array by id after the first time.
  bool communication(StringId name) {
    if (communication_.empty()) communication_.assign(in_.profile.strings.size(), kUnknown);
    std::uint8_t& known = communication_[name];
    if (known == kUnknown) known = (*this)(name) == kCommunicationType ? kYes : kNo;
    return known == kYes;
  }
  FusedNameCache fused;

 private:
  static constexpr std::uint8_t kUnknown = 0, kNo = 1, kYes = 2;
  const OpTableInputs& in_;
  std::unordered_map<StringId, const std::string*> known_;
  std::vector<std::uint8_t> communication_;  // per string id: kUnknown, kNo or kYes
};

OpRow finish(const OpTableInputs& in, const OpAccumulator& acc, bool with_shapes, OpTypeOf& type_of) {
  const Profile& p = in.profile;
  const HostEvent& first = p.host_events[acc.first_call];
  OpRow r;
  r.name = std::string(p.str(first.name));
  if (with_shapes) r.input_shapes = std::string(p.str(p.details(first).input_dims));
  r.op_type = type_of(first.name);
  r.direction = acc.forward && acc.backward ? Direction::Both
                : acc.backward              ? Direction::Backward
                                            : Direction::Forward;
  r.calls = acc.calls;
  r.host_total = acc.host_total;
  r.host_self = acc.host_self;
  r.device_total = acc.device_total;
  r.device_self = acc.device_self;
  r.tc_device = acc.tc_device;
  r.eligible_without_tc = acc.eligible_without_tc;
  r.kernel_calls = acc.kernel_calls;
  r.tc_eligible = acc.eligible;
  r.uses_tc = acc.uses_tc;
  r.flops = acc.flops;
  if (const FusedKernel* k = in.classes.compiled_kernel(first.name) ? type_of.fused(first.name) : nullptr) {
    r.fused_ops = k->ops_text();
    if (k->pattern) r.fused_as = k->pattern->name;
  }
  r.data_types = tensor_types(in.args.strings(p.details(first).input_types));
  if (!with_shapes) {  // the by-name row carries them; repeating them per shape would only cost memory
    r.call_stack = call_stack(p, acc.first_call);
    r.user_frame = user_frame(r.call_stack, in.classification.library_frames);
    r.module = module_path(p, acc.first_call);
  }
  return r;
}

bool by_device_time(const OpRow& a, const OpRow& b) {
  if (a.device_total != b.device_total) return a.device_total > b.device_total;
  if (a.host_total != b.host_total) return a.host_total > b.host_total;
  return std::tie(a.name, a.input_shapes) < std::tie(b.name, b.input_shapes);
}

// Adds a GPU activity to a row whose calls are counted apart (the (no op) and graph replay rows).
void add_activity(const OpTableInputs& in, const GpuActivity& g, OpRow& r) {
  TimeNs d = g.end - g.start;
  r.device_total += d;
  r.device_self += d;
  if (g.kind != GpuActivityKind::Kernel) return;
  ++r.kernel_calls;
  if (in.classification.tensor_core_rules.tensor_core(in.profile.str(g.name))) {
    r.tc_device += d;
    r.uses_tc = true;
  }
}

bool outside_window(const OpTableInputs& in, const GpuActivity& g) {
  return g.start < in.window.start || g.start >= in.window.end;
}

// A replayed activity placed on the op that captured it (graph_capture.cpp): that op's, not its launch's.
bool placed_on_op(const OpTableInputs& in, std::uint32_t activity) {
  const auto& captured = in.attribution.captured_op;
  return !captured.empty() && captured[activity] != kNone && in.stats.is_op(captured[activity]);
}

// A graph launch that no op issued: one row per launch name (hipGraphLaunch), of the op type the
// rules give it ("graph replay"), holding the GPU work its replays ran in the window; its calls
// are the launches, its host time theirs, its module and stack those of the first launch's owner
// (the annotation or Python frames that issued it).
std::vector<OpRow> graph_replay_rows(const OpTableInputs& in) {
  const Profile& p = in.profile;
  const Attribution& a = in.attribution;
  std::map<StringId, OpRow> rows;
  for (std::uint32_t r = 0; r < a.graph_launch.size(); ++r) {
    const RuntimeCall& call = p.runtime_calls[r];
    std::uint32_t owner = a.runtime_owner[r];
    if (!a.graph_launch[r] || (owner != kNone && in.stats.is_op(owner))) continue;
    bool any = false;
    for (std::uint32_t i : a.launched_by(r)) {
      if (outside_window(in, p.gpu_activities[i]) || placed_on_op(in, i)) continue;
      OpRow& row = rows[call.name];
      add_activity(in, p.gpu_activities[i], row);
      any = true;
    }
    if (!any) continue;
    OpRow& row = rows[call.name];
    if (row.calls++ == 0 && owner != kNone) {
      row.call_stack = call_stack(p, owner);
      row.user_frame = user_frame(row.call_stack, in.classification.library_frames);
      row.module = module_path(p, owner);
    }
    row.host_total += call.end - call.start;
  }
  std::vector<OpRow> out;
  for (auto& [name, row] : rows) {
    row.name = std::string(p.str(name));
    row.op_type = in.classification.op_type(row.name);
    row.host_self = row.host_total;
    out.push_back(std::move(row));
  }
  return out;
}

// Each accumulator is freed as its row is made: a trace of many names never holds both whole.
// GPU work that started in the window and that no op launched (a custom kernel called straight
// from the step, so owned by the step's annotation; work launched before the profiler started):
// one row of its own, so that the ops' shares are shares of all GPU time and the largest item is
// not hidden. Its calls are its activities.
std::optional<OpRow> no_op_row(const OpTableInputs& in) {
  const Profile& p = in.profile;
  OpRow r;
  for (std::size_t i = 0; i < p.gpu_activities.size(); ++i) {
    const GpuActivity& g = p.gpu_activities[i];
    std::uint32_t owner = in.attribution.activity_owner(i);
    if (outside_window(in, g) || (owner != kNone && in.stats.is_op(owner)) || in.attribution.replayed(i))
      continue;
    ++r.calls;
    add_activity(in, g, r);
  }
  if (r.calls == 0) return std::nullopt;
  r.name = std::string(kNoOpName);
  r.op_type = std::string(kNoOpName);
  return r;
}

// The rows of a table's accumulators, which are then freed. The order is by_device_time's, a total
// order (a row's name, or name and shapes, is its own): whatever order the rows were grouped in.
std::vector<OpRow> rows_of(const OpTableInputs& in, std::vector<OpAccumulator>& groups, bool with_shapes,
                           OpTypeOf& type_of) {
  std::vector<OpRow> rows;
  rows.reserve(groups.size());
  for (const OpAccumulator& acc : groups) rows.push_back(finish(in, acc, with_shapes, type_of));
  groups = {};
  std::sort(rows.begin(), rows.end(), by_device_time);
  return rows;
}

// Each counted op's row by name and by name and shapes, found once per op: the self times subtract
// every child range and runtime call from its op's rows (a look-up per event in a map before). 4
// bytes an event: a shape row knows its name row.
struct OpGroups {
  std::vector<OpAccumulator> by_name, by_shape;
  std::vector<std::uint32_t> shape_row;      // per host event: its row by shape, for counted ops
  std::vector<std::uint32_t> name_of_shape;  // per row by shape: its row by name

  explicit OpGroups(const Profile& p) : shape_row(p.host_events.size(), kNone) {}
  OpAccumulator& name_of(std::size_t e) { return by_name[name_of_shape[shape_row[e]]]; }
  OpAccumulator& shape_of(std::size_t e) { return by_shape[shape_row[e]]; }
  void assign(const Profile& p, std::size_t e, std::unordered_map<StringId, std::uint32_t>& row_of_name,
              std::unordered_map<std::uint64_t, std::uint32_t>& row_of_shape) {
    const HostEvent& h = p.host_events[e];
    auto [shape, fresh] = row_of_shape.try_emplace(std::uint64_t{h.name} << 32 | p.details(h).input_dims,
                                                   static_cast<std::uint32_t>(by_shape.size()));
    if (fresh) {
      auto [name, new_name] = row_of_name.try_emplace(h.name, static_cast<std::uint32_t>(by_name.size()));
      if (new_name) by_name.emplace_back();
      by_shape.emplace_back();
      name_of_shape.push_back(name->second);
    }
    shape_row[e] = shape->second;
  }
};

struct TypeAccumulator {
  OpTypeRow row;
  std::set<StringId> names;
};

// DLProf's per-call definitions (its "Op Type Summary" and "Ops and Kernels"; issue 53): the CPU
// overhead of a call is its host time less the time of the CUDA API calls it (or its callees) made;
// its GPU idle is the span from its first GPU activity's start to its last's end less the time they
// kept the GPU busy (0 with one activity or none).
TimeNs idle_between(IntervalList& work) {
  merge_in_place(work);  // drops zero-length activities: the list may end up empty
  if (work.empty()) return 0;
  return work.back().end - work.front().start - total_length(work);
}

// A call (an op, or a graph launch no op issued) in its type's row: its host span, the GPU time it
// ran, the time of its CUDA API calls (their union: a driver call inside a runtime call counts once)
// and the GPU work it launched.
// `left_out`: the host time of callees counted as calls of their own (a collective inside another
// class's op), not this call's.
void add_type_call(TypeAccumulator& acc, Interval span, TimeNs gpu, TimeNs api, IntervalList& own_work,
                   StringId name, TimeNs left_out = 0) {
  OpTypeRow& r = acc.row;
  TimeNs duration = span.end - span.start - std::min(left_out, span.end - span.start);
  r.cpu_min = r.calls == 0 ? duration : std::min(r.cpu_min, duration);
  r.cpu_max = std::max(r.cpu_max, duration);
  ++r.calls;
  r.cpu_total += duration;
  add_time(r.gpu, gpu);  // once per enclosing range of the name
  r.cpu_overhead += duration - std::min(api, duration);
  r.gpu_idle += idle_between(own_work);
  acc.names.insert(name);
}

// Graph launches that no op issued, as calls of their own type (graph_replay_rows): the launch is
// its own API call, so its overhead is 0.
void add_graph_launch_types(const OpTableInputs& in, OpTypeOf& type_of,
                            std::map<std::string, TypeAccumulator>& types) {
  const Profile& p = in.profile;
  const Attribution& a = in.attribution;
  IntervalList own;
  for (std::uint32_t r = 0; r < a.graph_launch.size(); ++r) {
    const RuntimeCall& call = p.runtime_calls[r];
    std::uint32_t owner = a.runtime_owner[r];
    if (!a.graph_launch[r] || (owner != kNone && in.stats.is_op(owner))) continue;
    own.clear();
    TimeNs gpu = 0;
    for (std::uint32_t i : a.launched_by(r)) {
      const GpuActivity& g = p.gpu_activities[i];
      if (outside_window(in, g) || placed_on_op(in, i)) continue;
      own.push_back({g.start, g.end});
      gpu += g.end - g.start;
    }
    if (own.empty()) continue;
    add_type_call(types[type_of(call.name)], {call.start, call.end}, gpu, call.end - call.start, own,
                  call.name);
  }
}

// The runtime calls of each host event (CSR by owner): a subtree's calls are one index range.
struct CallsByOwner {
  std::vector<std::uint32_t> offsets;  // host events + 1
  std::vector<std::uint32_t> calls;
  CallsByOwner(const Profile& p, const Attribution& a) : offsets(p.host_events.size() + 1, 0) {
    for (std::uint32_t owner : a.runtime_owner)
      if (owner != kNone) ++offsets[owner + 1];
    for (std::size_t e = 0; e < p.host_events.size(); ++e) offsets[e + 1] += offsets[e];
    calls.resize(offsets.back());
    std::vector<std::uint32_t> next(offsets.begin(), offsets.end() - 1);
    for (std::uint32_t r = 0; r < a.runtime_owner.size(); ++r)
      if (a.runtime_owner[r] != kNone) calls[next[a.runtime_owner[r]]++] = r;
  }
};

// One call of an op type: host event e's subtree less the subtrees starting at `cut` (ascending,
// inside it, counted as calls of their own): its GPU time, its API calls' union within its span and
// the host time the cut callees take. Its GPU idle still reads all the work launched in its span, the
// cut callees' included: the GPU was busy with what the call ran (an op that waits on its hook's
// all-reduce is not idle then), and the idle of each row is the one DLProf's definition gives.
void add_op_type_call(const OpTableInputs& in, const CallsByOwner& by_owner, std::size_t e,
                      const std::vector<std::size_t>& cut, TypeAccumulator& acc, IntervalList& work,
                      IntervalList& api) {
  const Profile& p = in.profile;
  const HostEvent& h = p.host_events[e];
  TimeNs gpu = in.stats.total_device(e), left_out = 0;
  work.clear();
  api.clear();
  auto next = cut.begin();
  std::size_t cut_end = e;  // one past the cut subtree k is in, if any
  for (std::size_t k = e, end = in.stats.subtree_end(e); k < end; ++k) {
    if (next != cut.end() && *next == k) {
      const HostEvent& callee = p.host_events[k];
      gpu -= in.stats.total_device(k);
      left_out += callee.end - callee.start;
      cut_end = in.stats.subtree_end(k);
      ++next;
    }
    for (std::uint32_t a : in.stats.launched(k))
      work.push_back({p.gpu_activities[a].start, p.gpu_activities[a].end});
    if (k < cut_end) continue;
    for (std::uint32_t i = by_owner.offsets[k]; i < by_owner.offsets[k + 1]; ++i) {
      const RuntimeCall& call = p.runtime_calls[by_owner.calls[i]];
      api.push_back({call.start, call.end});
    }
  }
  merge_in_place(api);
  add_type_call(acc, {h.start, h.end}, gpu, length_within(api, {h.start, h.end}), work, h.name, left_out);
}

std::vector<OpTypeRow> op_type_rows(const OpTableInputs& in, OpTypeOf& type_of) {
  const Profile& p = in.profile;
  CallsByOwner by_owner(p, in.attribution);
  std::map<std::string, TypeAccumulator> types;
  IntervalList work, api;
  std::vector<std::size_t> cut;
  const std::vector<std::size_t> none;
  // An op the host spent no time on that holds device work is the device's own op (a TPU's XLA op,
  // placed in the call that ran its program): a call of its own type, as a communication op is.
  auto device_op = [&](std::size_t k) {
    return p.host_events[k].start == p.host_events[k].end && in.stats.total_device(k) > 0;
  };
  for (std::size_t e = 0; e < p.host_events.size(); ++e) {
    if (!in.stats.top_level_op(e) || !in.stats.in_window(e)) continue;
    const std::string& type = type_of(p.host_events[e].name);
    cut.clear();
    for (std::size_t k = e + 1, end = in.stats.subtree_end(e); k < end; ++k)
      if (in.stats.is_op(k) &&
          ((type != kCommunicationType && type_of.communication(p.host_events[k].name)) || device_op(k))) {
        cut.push_back(k);
        k = in.stats.subtree_end(k) - 1;
      }
    add_op_type_call(in, by_owner, e, cut, types[type], work, api);
    for (std::size_t k : cut) {
      const std::string& own =
          device_op(k) ? type_of(p.host_events[k].name) : std::string(kCommunicationType);
      add_op_type_call(in, by_owner, k, none, types[own], work, api);
    }
  }
  add_graph_launch_types(in, type_of, types);
  std::vector<OpTypeRow> rows;
  for (auto& [type, acc] : types) {
    acc.row.type = type;
    acc.row.ops = acc.names.size();
    rows.push_back(acc.row);
  }
  std::sort(rows.begin(), rows.end(), [](const OpTypeRow& a, const OpTypeRow& b) {
    return a.gpu != b.gpu               ? a.gpu > b.gpu
           : a.cpu_total != b.cpu_total ? a.cpu_total > b.cpu_total
                                        : a.type < b.type;
  });
  return rows;
}

}  // namespace

// The range whose self time a runtime call takes: the innermost range on the call's thread that
// encloses it, where its owner does (the plugin's tree puts a call under the innermost op in time).
// A call its owner's External id names may lie inside one of the owner's children, whose time the
// owner already loses as a child's: taking it from the owner too made self times negative. kNone:
// no range's.
std::uint32_t self_time_holder(const Profile& p, HostEventCursor& before, std::uint32_t owner,
                               const RuntimeCall& call) {
  if (owner == kNone) return kNone;
  const auto& events = p.host_events;
  const HostEvent& o = events[owner];
  std::uint32_t inner = owner;
  if (o.thread == call.thread && o.start <= call.start && call.end <= o.end) {
    inner = before.last_before(call.thread, call.start);  // the owner or later: not kNone
    // A range that starts inside the call holds its time (the XSpace reader's command-buffer ops,
    // slices of their launch), which its parent loses as a child's: not taken again.
    std::size_t next = std::size_t{inner} + 1;
    if (inner != kNone && next < events.size() && events[next].thread == call.thread &&
        events[next].start < call.end)
      return kNone;
    while (inner != kNone && inner != owner && events[inner].end < call.end) inner = events[inner].parent;
    if (inner == kNone) inner = owner;
  }
  // The range is the call itself (the XSpace reader makes a TPU's Execute a call, to own the
  // programs it ran): its time is its own, not a callee's.
  const HostEvent& h = events[inner];
  return h.name == call.name && h.start == call.start && h.end == call.end ? kNone : inner;
}

const char* direction_name(Direction d) {
  switch (d) {
    case Direction::Forward:
      return "fprop";
    case Direction::Backward:
      return "bprop";
    case Direction::Both:
      break;
  }
  return "both";
}

void build_op_tables(const OpTableInputs& in, WorkerTables& out, bool detailed) {
  const Profile& p = in.profile;
  OpGroups groups(p);
  auto counted = [&](std::size_t e) { return in.stats.is_op(e) && in.stats.in_window(e); };
  {
    std::unordered_map<StringId, std::uint32_t> row_of_name;
    std::unordered_map<std::uint64_t, std::uint32_t> row_of_shape;
    bool regions = false;
    for (std::size_t e = 0; e < p.host_events.size(); ++e) {
      if (!counted(e)) continue;
      groups.assign(p, e, row_of_name, row_of_shape);
      add_call(in, e, groups.name_of(e), groups.shape_of(e));
      regions = regions || in.classes.compiled_region(p.host_events[e].name);
    }
    // A compiled region holds the GPU time of the kernel ranges it ran beside it, as of those under
    // it (looked for only where the window has a region: its names are few, its events many).
    std::vector<AdoptedRange> beside;
    if (regions)
      beside = ranges_beside_regions(p, in.stats, in.classes.compiled_kernel, in.classes.compiled_region);
    for (const AdoptedRange& r : beside) {
      if (!counted(r.region)) continue;
      TimeNs device = in.stats.total_device(r.range);
      add_time(groups.name_of(r.region).device_total, device);
      add_time(groups.shape_of(r.region).device_total, device);
    }
  }
  // Self host time, as the plugin defines it: minus every range directly inside and the op's own
  // runtime calls.
  auto subtract = [&](std::uint32_t op, TimeNs time) {
    if (op == kNone || !counted(op)) return;
    groups.name_of(op).host_self -= time;
    groups.shape_of(op).host_self -= time;
  };
  for (const HostEvent& e : p.host_events) subtract(e.parent, e.end - e.start);
  HostEventCursor before(p);
  for (std::size_t r = 0; r < p.runtime_calls.size(); ++r)
    subtract(self_time_holder(p, before, in.attribution.runtime_owner[r], p.runtime_calls[r]),
             p.runtime_calls[r].end - p.runtime_calls[r].start);
  OpTypeOf type_of(in);
  out.ops = rows_of(in, groups.by_name, false, type_of);
  std::vector<OpRow> apart = graph_replay_rows(in);
  if (std::optional<OpRow> outside = no_op_row(in)) apart.push_back(std::move(*outside));
  for (OpRow& row : apart)
    out.ops.insert(std::upper_bound(out.ops.begin(), out.ops.end(), row, by_device_time), row);
  if (!detailed) return;
  groups.shape_row = {};
  out.ops_by_shape = rows_of(in, groups.by_shape, true, type_of);
  out.op_types = op_type_rows(in, type_of);

  // DLProf's "Top 10 GPU ops": by the GPU time each op launched itself, so that nothing counts twice.
  // Ranked by index, not by copying the table (it has a row per op name).
  std::vector<std::uint32_t> top(out.ops.size());
  for (std::uint32_t i = 0; i < top.size(); ++i) top[i] = i;
  std::stable_sort(top.begin(), top.end(), [&](std::uint32_t a, std::uint32_t b) {
    return out.ops[a].device_self > out.ops[b].device_self;
  });
  for (std::uint32_t i : top) {
    if (out.top_gpu_ops.size() == 10 || out.ops[i].device_self == 0) break;
    out.top_gpu_ops.push_back(out.ops[i]);
  }
}

std::vector<RegionRow> build_regions(const OpTableInputs& in) {
  const Profile& p = in.profile;
  std::vector<bool> marker(p.host_events.size(), false);
  for (std::uint32_t m : in.step_markers) marker[m] = true;
  // A row per name, found by the name's id in a flat table: one probe an event, no text compared
  // (names are interned: equal text, equal id).
  boost::unordered_flat_map<StringId, std::uint32_t> row_of;
  std::vector<RegionRow> rows;
  // Each name's ranges on every thread: nested ones, and ranges of several threads at once, are
  // counted once in the name's time in the window.
  std::vector<SortedUnion> open;
  auto row = [&](StringId name) -> std::uint32_t {
    auto [it, added] = row_of.try_emplace(name, static_cast<std::uint32_t>(rows.size()));
    if (added) {
      rows.emplace_back().name = std::string(p.str(name));
      open.emplace_back();
    }
    return it->second;
  };
  for (std::size_t e = 0; e < p.host_events.size(); ++e) {
    const HostEvent& h = p.host_events[e];
    if (h.kind != HostKind::Annotation || marker[e] || !in.stats.in_window(e)) continue;
    std::uint32_t i = row(h.name);
    RegionRow& r = rows[i];
    ++r.calls;
    r.cpu_total += h.end - h.start;
    add_time(r.gpu, in.stats.total_device(e));  // once per enclosing range of the name
    open[i].add({std::max(h.start, in.window.start), std::min(h.end, in.window.end)});
  }
  for (const GpuRange& g : p.gpu_ranges) {
    if (g.start < in.window.start || g.start >= in.window.end) continue;
    if (p.str(g.name).starts_with("ProfilerStep#")) continue;  // the GPU side of a step marker
    rows[row(g.name)].gpu_range += g.end - g.start;
  }
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i].window_union = total_length(open[i].take());
  std::sort(rows.begin(), rows.end(), [](const RegionRow& a, const RegionRow& b) {
    return a.cpu_total != b.cpu_total ? a.cpu_total > b.cpu_total : a.name < b.name;
  });
  return rows;
}

}  // namespace perfgate
