// What bounds a step: its critical path, HTA's critical path analysis
// (hta/analyzers/critical_path_analysis.py) built on the profile model, per window step (per
// window without steps). docs/metrics.md, "Critical path", states the definition and every
// departure from HTA's.
//
// Times are HTA's: starts rounded up and ends rounded down to whole microseconds. The range holds
// the host ops and runtime calls that start in it and last at least 1 µs after rounding, and the GPU
// activities their runtime calls launched. Each becomes a start and an end node; edges:
//   - per host thread, ops and runtime calls nested by time and walked depth first: an operator edge
//     from the last node to each start and end, weightless for a blocking call's end
//     (critical_path_blocking_calls), and a weightless dependency edge from one top-level event's
//     end to the next one's start (the idle host between them is not on the path);
//   - per GPU stream, in start order: an operator edge across each activity; a launch-delay edge
//     from its launch call's start when the stream's queue held only it at the launch and was empty
//     when it started (launch calls: critical_path_launch_calls), the stream's previous activity
//     had ended before the launch and any kernel it waits for too; else a kernel-gap edge from the
//     stream's previous activity when the gap is under critical_path.max_kernel_gap_us; on a TPU,
//     which runs its program's ops in order, also a kernel-gap edge from the device's activity that
//     ended last before it started, under the same gap;
//   - sync edges from the GPU work a cuda_sync event waited for: to the end of the runtime call
//     (Context Sync: every stream's last activity; Stream Sync: its stream's; Event Sync: the
//     activity the last launch on the recording stream before cudaEventRecord started), or to the
//     start of the next activity launched onto a stream made to wait (Stream Wait Event).
// The path is the longest through that graph; each timed edge is attributed to an event and split
// by what bounds it (PathBound).
#pragma once

#include <vector>

#include "analyse/attribution.h"
#include "analyse/classifier.h"
#include "analyse/critical_path/critical_path_results.h"
#include "analyse/steps/step_results.h"
#include "analyse/timeline/timeline_results.h"

namespace perfgate {

inline constexpr std::size_t kCriticalPathOps = 100;  // rows kept in the critical_path_ops table
// Paths per inferred unit (CriticalPathSums::units): the first units of the run, and the ops of each.
inline constexpr std::size_t kCriticalPathUnits = 32;
inline constexpr std::size_t kCriticalPathUnitOps = 100;

enum class PathEventKind : std::uint8_t { HostOp, Runtime, Gpu };

// An event with time on the path: the time of the path's edges attributed to it.
struct PathEvent {
  PathEventKind kind = PathEventKind::HostOp;
  PathBound bound = PathBound::Cpu;
  std::uint32_t index = 0;  // into host_events, runtime_calls or gpu_activities
  std::uint32_t owner = 0;  // the event's id in its range's graph: [0, RangePath::graph_events)
  TimeNs start = 0;         // the edge's: its time on the path is [start, start + time)
  TimeNs time = 0;
};

struct RangePath {
  TimeNs length = 0;
  PathSplit by{};
  std::vector<PathEvent> events;  // in path order, one entry per timed edge
  bool had_cycle = false;
  std::uint32_t short_launches = 0;  // launch calls under 1 us once rounded: off the graph, their work too
  std::uint32_t graph_events = 0;    // events in the range's graph (PathEvent::owner)
};

// What the path needs of the whole profile, computed once: each GPU activity's launch-queue
// lengths (HTA computes them on the whole trace) and the activities synchronisations wait for.
class CriticalPathAnalyser {
 public:
  CriticalPathAnalyser(const Profile& profile, const Attribution& attribution, NameClasses& classes,
                       TimeNs max_kernel_gap);
  // The critical path of the host range [start, end] (a step's host span).
  RangePath path(TimeNs start, TimeNs end) const;
  // Host events that are no work of their own: the ranges that mark the steps (an XSpace profile's
  // TraceAnnotation("train_step") is a host op, not an annotation, and would lie on every path).
  void leave_out(const std::vector<std::uint32_t>& host_events);

  struct SyncTarget {
    std::uint32_t waited = kNone;  // the GPU activity waited for
    std::uint32_t next = kNone;    // Stream Wait Event: the activity made to wait
  };

 private:
  friend struct PathBuilder;
  const Profile& profile_;
  const Attribution& attribution_;
  NameClasses& classes_;
  TimeNs max_kernel_gap_;
  std::vector<std::uint32_t> runtime_sync_;    // per runtime call: its GpuSync, or kNone
  std::vector<SyncTarget> sync_targets_;       // per GpuSync
  std::vector<std::uint8_t> queue_at_launch_;  // per GPU activity: HTA's queue length at its launch call,
  std::vector<std::uint8_t> queue_at_start_;   // ... and at its start (255: not a launch, or over 254)
  std::vector<std::uint32_t>
      thread_begin_;                        // host events of thread t: [thread_begin_[t], thread_begin_[t+1])
  std::vector<std::uint32_t> walk_thread_;  // per thread: the thread it is walked with (autograd folded)
  std::vector<bool> left_out_;              // per host event, where any is (leave_out)
  // The devices that run their ops in program order, one after another (a TPU's core, whose
  // asynchronous copies it waits for with its copy-done ops), by id: there an activity also follows
  // the activity of its device that ended last before it started.
  std::vector<std::int32_t> in_order_devices_;
};

// The critical path of each window step (of the window without steps), and the ops on them.
// `timeline`: the step timeline, whose step's path is laid out on its lanes (CriticalPathSums::timeline).
// The steps are walked on up to `threads` threads; the result is the same at any count.
// `detailed`: false for a worker its run will not detail: the steps' and units' rows alone, not the
// ops and the timeline it would let go.
CriticalPathSums critical_paths(const Profile& profile, const Attribution& attribution, NameClasses& classes,
                                const StepDetection& steps, const Window& window, TimeNs max_kernel_gap,
                                const Timeline& timeline, unsigned threads = 1, bool detailed = true);

// The critical path's rounding of times to whole microseconds (HTA's round_down_time_stamps).
inline TimeNs path_start_time(TimeNs t) {
  return (t + 999) / 1000 * 1000;
}
inline TimeNs path_end_time(TimeNs t) {
  return t / 1000 * 1000;
}

}  // namespace perfgate
