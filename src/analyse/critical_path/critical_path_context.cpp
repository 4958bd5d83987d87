// What the critical path needs of the whole profile (critical_path.h): launch-queue lengths and
// the GPU activities each synchronisation waits for, computed once, in time order.
#include <algorithm>
#include <iterator>
#include <tuple>

#include <boost/container/flat_map.hpp>

#include "analyse/critical_path/critical_path.h"
#include "analyse/critical_path/sort_runs.h"
#include "analyse/id_index.h"

namespace perfgate {
namespace {

constexpr std::uint8_t kUnknownQueue = 255;

using StreamKey = std::pair<std::int32_t, std::uint32_t>;  // (device, stream)

// HTA's queue length (TraceCounters._get_queue_length_time_series_for_rank): per stream, +1 at each
// launch call's start for the activity it launched, -1 at each such activity's start, in time order
// (a launch before an activity starting at the same microsecond). Each activity keeps the length
// right after its launch and right after its start.
void queue_lengths(const Profile& p, const Attribution& attribution, NameClasses& classes,
                   std::vector<std::uint8_t>& at_launch, std::vector<std::uint8_t>& at_start) {
  struct Change {
    TimeNs time;
    std::uint32_t activity;
    bool launch;
  };
  // The launches and the starts, each in time order (the activities are in start order already),
  // then merged: a launch before a start at the same microsecond, else in activity order.
  std::vector<Change> launches, starts, changes;
  launches.reserve(p.gpu_activities.size());
  starts.reserve(p.gpu_activities.size());
  for (std::uint32_t a = 0; a < p.gpu_activities.size(); ++a) {
    std::uint32_t r = attribution.activity_runtime[a];
    if (r == kNone || !classes.launch_call(p.runtime_calls[r].name)) continue;
    launches.push_back({path_start_time(p.runtime_calls[r].start), a, true});
    starts.push_back({path_start_time(p.gpu_activities[a].start), a, false});
  }
  auto by_time = [](const Change& x, const Change& y) { return x.time < y.time; };
  sort_runs(launches, by_time);
  sort_runs(starts, by_time);
  changes.reserve(launches.size() + starts.size());
  std::merge(launches.begin(), launches.end(), starts.begin(), starts.end(), std::back_inserter(changes),
             by_time);
  boost::container::flat_map<StreamKey, std::int64_t> queue;  // a few streams: no node each
  for (const Change& c : changes) {
    const GpuActivity& g = p.gpu_activities[c.activity];
    std::int64_t& q = queue[{g.device, g.stream}];
    q += c.launch ? 1 : -1;
    std::uint8_t value = q >= 0 && q < kUnknownQueue ? static_cast<std::uint8_t>(q) : kUnknownQueue;
    (c.launch ? at_launch : at_start)[c.activity] = value;
  }
}

}  // namespace

CriticalPathAnalyser::CriticalPathAnalyser(const Profile& profile, const Attribution& attribution,
                                           NameClasses& classes, TimeNs max_kernel_gap)
    : profile_(profile),
      attribution_(attribution),
      classes_(classes),
      max_kernel_gap_(max_kernel_gap),
      runtime_sync_(profile.runtime_calls.size(), kNone),
      sync_targets_(profile.gpu_syncs.size()),
      queue_at_launch_(profile.gpu_activities.size(), kUnknownQueue),
      queue_at_start_(profile.gpu_activities.size(), kUnknownQueue) {
  const Profile& p = profile;
  queue_lengths(p, attribution, classes, queue_at_launch_, queue_at_start_);

  // A TPU (its reader names each "TPU …", as metric_values.cpp reads it) runs its ops in order.
  for (const DeviceInfo& d : p.devices)
    if (d.name.starts_with("TPU")) in_order_devices_.push_back(d.id);
  std::sort(in_order_devices_.begin(), in_order_devices_.end());

  thread_begin_.assign(p.threads.size() + 1, 0);
  for (const HostEvent& e : p.host_events) ++thread_begin_[e.thread + 1];
  for (std::size_t t = 0; t < p.threads.size(); ++t) thread_begin_[t + 1] += thread_begin_[t];

  // HTA walks the autograd thread as part of the forward thread when each is unique (fwdbwd flows
  // link forward ops on one thread to backward ops on one other).
  walk_thread_.resize(p.threads.size());
  for (std::uint32_t t = 0; t < walk_thread_.size(); ++t) walk_thread_[t] = t;
  std::uint32_t forward = kNone, backward = kNone;
  bool unique = !p.forward_backward_links.empty();
  for (const ForwardBackwardLink& l : p.forward_backward_links) {
    unique = unique && (forward == kNone || forward == l.forward_thread) &&
             (backward == kNone || backward == l.backward_thread);
    forward = l.forward_thread;
    backward = l.backward_thread;
  }
  if (unique && forward != backward && backward < walk_thread_.size()) walk_thread_[backward] = forward;

  // Each synchronisation's runtime call (same correlation id), and the cudaEventRecord calls
  // whose events were waited for.
  IdIndex by_call, by_record;
  for (std::uint32_t s = 0; s < p.gpu_syncs.size(); ++s) {
    by_call.emplace_back(p.gpu_syncs[s].correlation, s);
    if (p.gpu_syncs[s].event_record_correlation >= 0 && p.gpu_syncs[s].wait_on_stream >= 0)
      by_record.emplace_back(p.gpu_syncs[s].event_record_correlation, s);
  }
  if (by_call.empty()) return;
  std::sort(by_call.begin(), by_call.end());
  std::sort(by_record.begin(), by_record.end());
  // The calls come in start order, their correlation ids nearly ascending: each look-up steps on
  // from the last instead of searching both indices again (two binary searches a call were 2.3% of
  // a runtime-heavy Nsight Systems export's instructions, issue 77).
  IdLookup call_syncs(by_call), record_syncs(by_record);
  // Forward: the last activity a launch call put on each stream before each cudaEventRecord
  // (HTA's index_previous_launch: launches of any thread onto the recording stream).
  boost::container::flat_map<StreamKey, std::uint32_t> last_launch;
  for (std::uint32_t r = 0; r < p.runtime_calls.size(); ++r) {
    const RuntimeCall& call = p.runtime_calls[r];
    if (auto syncs = call_syncs.matches(call.correlation); !syncs.empty())
      runtime_sync_[r] = syncs.front().second;
    for (const auto& [id, sync] : record_syncs.matches(call.correlation)) {
      const GpuSync& s = p.gpu_syncs[sync];
      auto found = last_launch.find({s.device, static_cast<std::uint32_t>(s.wait_on_stream)});
      if (found != last_launch.end()) sync_targets_[sync].waited = found->second;
    }
    if (!classes.launch_call(call.name)) continue;
    for (std::uint32_t a : attribution.launched_by(r))
      last_launch[{p.gpu_activities[a].device, p.gpu_activities[a].stream}] = a;
  }
  // Backward: the next activity the thread of a cudaStreamWaitEvent launched onto the waiting
  // stream (HTA's index_next_launch).
  boost::container::flat_map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t>
      next_launch;  // (thread, stream)
  for (std::uint32_t r = static_cast<std::uint32_t>(p.runtime_calls.size()); r-- > 0;) {
    const RuntimeCall& call = p.runtime_calls[r];
    std::uint32_t s = runtime_sync_[r];
    if (s != kNone && p.gpu_syncs[s].kind == GpuSyncKind::StreamWaitEvent && p.gpu_syncs[s].stream >= 0) {
      auto found = next_launch.find({call.thread, static_cast<std::uint32_t>(p.gpu_syncs[s].stream)});
      if (found != next_launch.end()) sync_targets_[s].next = found->second;
    }
    if (!classes.launch_call(call.name)) continue;
    for (std::uint32_t a : attribution.launched_by(r))
      next_launch[{call.thread, p.gpu_activities[a].stream}] = a;
  }
}

}  // namespace perfgate
