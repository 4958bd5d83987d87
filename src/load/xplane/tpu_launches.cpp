// Which host call launched each TPU program and what each call waited for (docs/formats.md,
// "XSpace profile"). The host call that runs a compiled program (`TfrtTpuLoadedExecutable::Execute`,
// `PjRt…LoadedExecutable::Execute`, or "Scheduled …::Execute" on a device's own thread) becomes a
// runtime call that launched the program's ops, and each op an instant op inside it (tpu_ops.cpp).
//
// The launching call is the one XProf's TraceMe context links name, where the profile has them: a
// program run on a TPU's "XLA Modules" line consumes a launch context (`_ct` 12, kTpuLaunch) that a
// host event produced (DoEnqueueProgram), which ran inside an event that consumed the runtime's
// context (`_ct` 7, kTfrtTpuRuntime: tpu::System::Execute=>IssueSequencedEvent), produced inside the
// Execute call on its own thread. Elsewhere it is the last call that started before the op.
//
// What a call waited for: one that returned only once its own ops were done waited on the whole
// device, as a CUDA context synchronisation does. One that returned before its own program ended,
// but after an earlier program of its device ended, waited on that program: PjRt bounds the programs
// in flight on a device, and the call's "Acquire semaphore" returns when a program is done and
// releases its place (on the shared v6e profile each of the 272 waits over 1 ms ends within 0.19 ms
// of a "Release semaphore"; 212 of the 413 calls had a program of their device end inside them).
// That wait is a synchronisation on the earlier program's last op (an event synchronisation whose
// event was recorded after it). A caller's Execute that handed its program to the devices' threads
// and returned once they had (the main thread's, around the "Scheduled" ones) waited for the same.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <tuple>

#include "load/xplane/builder.h"

namespace perfgate::xplane {
namespace {

// A host call that runs a compiled XLA program on its devices: PjRt's `…LoadedExecutable::Execute`
// (on the caller's thread, or "Scheduled …::Execute" on a device's own), or its ExecuteHelper
// (`…::ExecuteHelperOnSingleDevice`). Not the steps inside one (ExecutePrepare waits for the
// inputs, ExecuteLaunch enqueues the program), which would take its launches from it.
bool execute_call(std::string_view name) {
  return name.ends_with("Executable::Execute") ||
         name.find("Executable::ExecuteHelper") != std::string_view::npos;
}

// How far back a search for the innermost event around an instant looks, how many links are
// followed, and how many calls a caller's are looked for among: a thread's events nest a few deep.
// Past it a link is not followed, so that a hostile shape costs linear time.
constexpr int kLookBack = 16;

// Of `spans` (indices into `ends`, sorted by thread then start), the innermost on `thread` around
// `t`, or kNone.
template <class End>
std::uint32_t innermost(const std::vector<End>& ends, const std::vector<std::uint32_t>& spans,
                        std::uint32_t thread, TimeNs t) {
  auto it = std::upper_bound(spans.begin(), spans.end(), std::pair{thread, t},
                             [&](const auto& key, std::uint32_t i) {
                               return key < std::pair{ends[i].thread, ends[i].start};
                             });
  for (int step = 0; step < kLookBack && it != spans.begin(); ++step) {
    const End& e = ends[*--it];
    if (e.thread != thread) break;
    if (e.end >= t) return *it;
  }
  return kNone;
}

}  // namespace

std::vector<std::uint32_t> Builder::linked_launches(const std::vector<std::uint32_t>& calls) const {
  std::vector<std::uint32_t> out(module_launches_.size(), kNone);
  if (module_launches_.empty() || producers_.empty()) return out;
  // The producers by (type, id); the consumers and the calls by thread, then start.
  std::vector<std::uint32_t> produced(producers_.size()), consumed(consumers_.size());
  std::iota(produced.begin(), produced.end(), 0u);
  std::iota(consumed.begin(), consumed.end(), 0u);
  auto by_id = [&](std::uint32_t a, std::uint32_t b) {
    return std::tie(producers_[a].type, producers_[a].id, a) <
           std::tie(producers_[b].type, producers_[b].id, b);
  };
  std::sort(produced.begin(), produced.end(), by_id);
  auto by_thread = [](const auto& ends) {
    return [&ends](std::uint32_t a, std::uint32_t b) {
      return std::tie(ends[a].thread, ends[a].start, a) < std::tie(ends[b].thread, ends[b].start, b);
    };
  };
  std::sort(consumed.begin(), consumed.end(), by_thread(consumers_));
  std::vector<ContextEnd> call_spans(calls.size());
  for (std::size_t k = 0; k < calls.size(); ++k) {
    const HostEvent& h = p_.host_events[calls[k]];
    call_spans[k] = {.thread = h.thread, .start = h.start, .end = h.end};
  }
  std::vector<std::uint32_t> call_order(calls.size());
  std::iota(call_order.begin(), call_order.end(), 0u);
  std::sort(call_order.begin(), call_order.end(), by_thread(call_spans));

  for (std::size_t r = 0; r < module_launches_.size(); ++r) {
    std::int64_t type = module_launches_[r].type, id = module_launches_[r].id;
    // Each hop: the context's producer, then the call around it, else the consumer around it and on.
    for (int hop = 0; hop < kLookBack; ++hop) {
      auto p = std::lower_bound(produced.begin(), produced.end(), std::pair{type, id},
                                [&](std::uint32_t i, const auto& key) {
                                  return std::pair{producers_[i].type, producers_[i].id} < key;
                                });
      if (p == produced.end() || producers_[*p].type != type || producers_[*p].id != id) break;
      const ContextEnd& from = producers_[*p];
      if (std::uint32_t call = innermost(call_spans, call_order, from.thread, from.start); call != kNone) {
        out[r] = call;
        break;
      }
      std::uint32_t around = innermost(consumers_, consumed, from.thread, from.start);
      if (around == kNone) break;
      type = consumers_[around].type;
      id = consumers_[around].id;
    }
  }
  return out;
}

void Builder::tpu_programs() {
  if (tpu_ops_.empty()) return;
  std::vector<std::uint32_t> calls;
  for (std::uint32_t i = 0; i < p_.host_events.size(); ++i)
    if (p_.host_events[i].kind == HostKind::Op && execute_call(p_.str(p_.host_events[i].name)))
      calls.push_back(i);
  if (calls.empty()) return;
  std::sort(calls.begin(), calls.end(), [&](std::uint32_t a, std::uint32_t b) {
    const HostEvent &x = p_.host_events[a], &y = p_.host_events[b];
    return x.start != y.start ? x.start < y.start : a < b;
  });
  // The program runs with a launch context, by device then start, and the call each was linked to.
  std::sort(module_launches_.begin(), module_launches_.end(), [](const ContextEnd& x, const ContextEnd& y) {
    return std::tie(x.thread, x.start) < std::tie(y.thread, y.start);
  });
  std::vector<std::uint32_t> run_call = linked_launches(calls);
  // Correlation ids of their own, above every id the profile holds.
  std::int64_t next = 0;
  for (const RuntimeCall& c : p_.runtime_calls) next = std::max(next, c.correlation);
  for (const GpuActivity& g : p_.gpu_activities) next = std::max(next, g.correlation);
  std::vector<TpuProgram> programs(calls.size());
  std::uint64_t from_module = 0, uncosted = 0;
  for (const TpuOp& op : tpu_ops_) {
    GpuActivity& g = p_.gpu_activities[op.activity];
    // Launched by its program run's linked call, else by the last call that started at or before it.
    std::size_t k = kNone;
    auto run = std::upper_bound(module_launches_.begin(), module_launches_.end(),
                                std::pair{static_cast<std::uint32_t>(g.device), g.start},
                                [](const auto& key, const ContextEnd& r) {
                                  return key < std::pair{r.thread, r.start};
                                });
    if (run != module_launches_.begin() && std::prev(run)->thread == static_cast<std::uint32_t>(g.device) &&
        std::prev(run)->end >= g.start)
      k = run_call[static_cast<std::size_t>(std::prev(run) - module_launches_.begin())];
    if (k == kNone) {
      auto after = std::upper_bound(calls.begin(), calls.end(), g.start,
                                    [&](TimeNs t, std::uint32_t c) { return t < p_.host_events[c].start; });
      if (after == calls.begin()) continue;
      k = static_cast<std::size_t>(after - calls.begin()) - 1;
    }
    TpuProgram& program = programs[k];
    if (program.correlation == 0) {
      program.correlation = ++next;
      program.device = g.device;
    }
    g.correlation = program.correlation;
    if (program.last == kNone || g.end > program.device_end) program.last = op.activity;
    program.device_end = std::max(program.device_end, g.end);
    std::uint32_t details = tpu_op_details(op, g, from_module, uncosted);
    g.external_id = p_.op_details[details].external_id;
    // The op of the op tables: an instant at the call's start, inside it on its thread (the host spends
    // no time of its own on it), that owns the activity by its External id (analyse/attribution.h).
    const HostEvent& call = p_.host_events[calls[k]];
    HostEvent h;
    h.start = call.start;
    h.end = call.start;
    h.thread = call.thread;
    h.name = op.name;
    h.kind = HostKind::Op;
    h.details = details;
    p_.host_events.push_back(h);
  }
  tpu_waits(calls, programs, next);
  if (from_module + uncosted > 0)
    p_.notes.push_back(note<NoteId::xspace_tpu_op_costs>(
        arg<"count">(from_module + uncosted), arg<"from_module">(from_module), arg<"uncosted">(uncosted)));
}

void Builder::tpu_waits(const std::vector<std::uint32_t>& calls, const std::vector<TpuProgram>& programs,
                        std::int64_t& next) {
  // The programs of each device in their calls' start order.
  std::vector<std::uint32_t> order;
  for (std::uint32_t k = 0; k < programs.size(); ++k)
    if (programs[k].correlation != 0) order.push_back(k);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return programs[a].device < programs[b].device; });
  // What a call waited for: the program's last op, named as an event synchronisation names it (the
  // device, the op's stream, and the call launched next on the device, before whose own launches the
  // op was the stream's last), and when that op ended; `record` 0: nothing.
  struct Wait {
    std::int64_t record = 0;
    std::int32_t device = 0;
    std::int32_t stream = -1;
    TimeNs end = 0;
  };
  std::vector<Wait> waits(calls.size());
  auto wait_on = [&](std::size_t j) {
    const TpuProgram& w = programs[order[j]];
    std::uint32_t stream = p_.gpu_activities[w.last].stream;
    if (j + 1 >= order.size() || programs[order[j + 1]].device != w.device || stream > INT32_MAX)
      return Wait{};
    return Wait{programs[order[j + 1]].correlation, w.device, static_cast<std::int32_t>(stream),
                w.device_end};
  };
  auto runtime_call = [&](std::uint32_t k, std::int64_t correlation) {
    OpDetails d;
    d.external_id = next_external_id_++;
    HostEvent& h = p_.host_events[calls[k]];
    h.details = static_cast<std::uint32_t>(p_.op_details.size());
    p_.op_details.push_back(d);
    p_.runtime_calls.push_back({.start = h.start,
                                .end = h.end,
                                .correlation = correlation,
                                .external_id = d.external_id,
                                .name = h.name,
                                .thread = h.thread});
  };
  auto event_sync = [&](std::uint32_t k, std::int64_t correlation, const Wait& w) {
    const HostEvent& h = p_.host_events[calls[k]];
    p_.gpu_syncs.push_back({.start = h.start,
                            .end = h.end,
                            .correlation = correlation,
                            .event_record_correlation = w.record,
                            .device = w.device,
                            .wait_on_stream = w.stream,
                            .kind = GpuSyncKind::Event});
  };
  for (std::size_t j = 0; j < order.size(); ++j) {
    std::uint32_t k = order[j];
    const TpuProgram& program = programs[k];
    runtime_call(k, program.correlation);
    const HostEvent& h = p_.host_events[calls[k]];
    if (h.end >= program.device_end) {
      p_.gpu_syncs.push_back({.start = h.start,
                              .end = h.end,
                              .correlation = program.correlation,
                              .device = program.device,
                              .kind = GpuSyncKind::Context});
      waits[k] = wait_on(j);
      continue;
    }
    // The device's program that ended last before the call returned, where it ended while the call
    // ran (a device runs its programs in turn: their ends rise in launch order).
    auto first = std::lower_bound(order.begin(), order.end(), program.device,
                                  [&](std::uint32_t c, std::int32_t d) { return programs[c].device < d; });
    auto ended = std::upper_bound(first, order.begin() + static_cast<std::ptrdiff_t>(j), h.end,
                                  [&](TimeNs t, std::uint32_t c) { return t < programs[c].device_end; });
    if (ended == first || programs[*std::prev(ended)].device_end < h.start) continue;
    waits[k] = wait_on(static_cast<std::size_t>(std::prev(ended) - order.begin()));
    if (waits[k].record != 0) event_sync(k, program.correlation, waits[k]);
  }
  // A caller that launched nothing itself, around calls of other threads that waited: it waited for
  // the last of what they waited for.
  for (std::uint32_t k = 0; k < calls.size(); ++k) {
    if (programs[k].correlation != 0) continue;
    const HostEvent& caller = p_.host_events[calls[k]];
    Wait last;
    for (std::uint32_t c = k + 1; c < calls.size() && c <= k + 4 * kLookBack; ++c) {
      const HostEvent& callee = p_.host_events[calls[c]];
      if (callee.start > caller.end) break;
      if (callee.thread != caller.thread && callee.end <= caller.end && waits[c].record != 0 &&
          waits[c].end > last.end)
        last = waits[c];
    }
    if (last.record == 0) continue;
    runtime_call(k, ++next);
    event_sync(k, next, last);
  }
}

}  // namespace perfgate::xplane
