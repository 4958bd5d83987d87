#include "analyse/timeline/timeline.h"

#include <algorithm>
#include <functional>

#include <fmt/format.h>
#include <boost/container/flat_map.hpp>

#include "analyse/activity_intervals.h"
#include "analyse/critical_path/sort_runs.h"
#include "analyse/gpu/idle.h"
#include "analyse/last_entry.h"
#include "analyse/ops/op_info.h"

namespace perfgate {
namespace {

// The median step of the window; of an even count (whose median, the mean of the two middle steps,
// no step has) the shorter of the two middle steps, which the report's caption names as such.
const Step* median_step(const StepDetection& steps, const Window& window) {
  std::vector<const Step*> in_window;
  in_window.reserve(window.steps.size());
  for (std::size_t i : window.steps) in_window.push_back(&steps.steps[i]);
  if (in_window.empty()) return nullptr;
  // Stably (sort_runs: no buffer for a few steps), in place: the window's order is not read again.
  sort_runs(in_window, [](const Step* a, const Step* b) { return a->duration() < b->duration(); });
  return in_window[(in_window.size() - 1) / 2];
}

enum class BoxKind : std::uint8_t {
  Kernel,
  TcKernel,
  Communication,
  Memcpy,
  Memset,
  CpuOp,
  DataLoader,
  Runtime,
  Sync
};

const char* box_kind_name(BoxKind k) {
  static constexpr const char* kNames[] = {"kernel", "tc_kernel",  "communication", "memcpy", "memset",
                                           "cpu_op", "dataloader", "runtime",       "sync"};
  return kNames[static_cast<std::size_t>(k)];
}

// A box before its text is written: names stay string ids until the boxes are merged (the
// capture-long timeline of an nsys export had 744,000 boxes, which as text held 99 MB).
struct PendingBox {
  std::int32_t device = 0;
  std::uint32_t stream = 0;
  TimeNs start = 0;
  TimeNs duration = 0;
  StringId name = kNoString;
  StringId op = kNoString;
  BoxKind kind = BoxKind::Kernel;
  bool kernel_name = false;  // shown by its short name
  std::uint32_t merged = 0;  // activities merged into it; 0: one activity
};

BoxKind kind_of(const Profile& p, const Attribution& a, NameClasses& classes, std::size_t i) {
  const GpuActivity& act = p.gpu_activities[i];
  if (act.kind == GpuActivityKind::Memcpy) return BoxKind::Memcpy;
  if (act.kind == GpuActivityKind::Memset) return BoxKind::Memset;
  if (is_communication_kernel(p, a, classes, i)) return BoxKind::Communication;
  return classes.tensor_core_kernel(act.name) ? BoxKind::TcKernel : BoxKind::Kernel;
}

// Appends a box to boxes sorted by stream and start, merging it into the last one where both are
// shorter than `pixel` (or already merged runs), on one stream, and less than `pixel` apart.
void merge_into(std::vector<PendingBox>& out, const PendingBox& b, TimeNs pixel) {
  bool small = b.duration < pixel || b.merged > 0;
  if (small && !out.empty()) {
    PendingBox& last = out.back();
    bool last_small = last.duration < pixel || last.merged > 0;
    bool same_stream = last.device == b.device && last.stream == b.stream;
    if (last_small && same_stream && b.start - (last.start + last.duration) < pixel) {
      last.duration = std::max(last.start + last.duration, b.start + b.duration) - last.start;
      last.merged = std::max<std::uint32_t>(last.merged, 1) + std::max<std::uint32_t>(b.merged, 1);
      return;
    }
  }
  out.push_back(b);
}

// Consecutive boxes on one stream that are each shorter than `pixel` and less than `pixel` apart
// become one box ("N activities"); a box that is already a merged run can keep growing.
std::vector<PendingBox> merge_small(const std::vector<PendingBox>& boxes, TimeNs pixel) {
  std::vector<PendingBox> out;
  for (const PendingBox& b : boxes) merge_into(out, b, pixel);
  return out;
}

// The `cap` longest boxes, in their order: where more lanes than the cap have a box each.
void keep_longest(std::vector<PendingBox>& boxes, std::size_t cap) {
  std::vector<TimeNs> durations;
  durations.reserve(boxes.size());
  for (const PendingBox& b : boxes) durations.push_back(b.duration);
  std::nth_element(durations.begin(), durations.begin() + static_cast<std::ptrdiff_t>(cap - 1),
                   durations.end(), std::greater<>());
  TimeNs shortest = durations[cap - 1];
  // Longer than the cap-th longest: kept; as long as it: kept while there is room, first first.
  std::size_t longer = 0;
  for (const PendingBox& b : boxes) longer += b.duration > shortest;
  std::size_t ties = cap - longer;
  std::erase_if(boxes, [&](const PendingBox& b) {
    if (b.duration > shortest) return false;
    if (b.duration == shortest && ties > 0) {
      --ties;
      return false;
    }
    return true;
  });
}

// Merges each lane's boxes as they come, which is the merge of the sorted boxes as long as every
// lane gets its boxes in start order (each lane has one source, sorted by start): a capture-long
// timeline then holds its merged boxes only, not every activity of the capture.
class LaneMerger {
 public:
  explicit LaneMerger(TimeNs pixel) : pixel_(pixel) {}
  void add(const PendingBox& b) {
    if (!in_order_) return;
    Lane& lane = lane_of_[{b.device, b.stream}];
    if (!lane.boxes.empty() && b.start < lane.last_start) {
      in_order_ = false;  // two threads with one id, say: the caller sorts instead
      lanes_.clear();
      return;
    }
    lane.last_start = b.start;
    merge_into(lane.boxes, b, pixel_);
  }
  bool in_order() const { return in_order_; }
  // The lanes by device and stream, as sorting by (device, stream, start) orders them.
  std::vector<PendingBox> boxes() const {
    std::vector<PendingBox> out;
    for (const auto& [key, lane] : lanes_) out.insert(out.end(), lane.boxes.begin(), lane.boxes.end());
    return out;
  }

 private:
  struct Lane {
    std::vector<PendingBox> boxes;
    TimeNs last_start = 0;
  };
  TimeNs pixel_;
  using Lanes = boost::container::flat_map<std::pair<std::int32_t, std::uint32_t>, Lane>;  // no node a lane
  Lanes lanes_;
  LastEntry<Lanes> lane_of_{lanes_};
  bool in_order_ = true;
};

TimelineBox written(const Profile& p, const PendingBox& b, ShortKernelNames& short_names) {
  if (b.merged > 0)
    return {b.device, b.stream, b.start, b.duration, fmt::format("{} activities", b.merged), "", "merged"};
  std::string name = b.kernel_name ? short_names(b.name) : std::string(p.str(b.name));
  return {b.device,
          b.stream,
          b.start,
          b.duration,
          std::move(name),
          std::string(p.str(b.op)),
          box_kind_name(b.kind)};
}

// An op is outermost when no op encloses it other than the step markers (annotations and Python
// functions may).
// `markers`: sorted.
bool outermost_op(const Profile& p, std::uint32_t i, const std::vector<std::uint32_t>& markers) {
  for (std::uint32_t up = p.host_events[i].parent; up != kNone; up = p.host_events[up].parent)
    if (p.host_events[up].kind == HostKind::Op && !std::binary_search(markers.begin(), markers.end(), up))
      return false;
  return true;
}

// What the threads that launch GPU work did during the step, above the GPU lanes: their outermost
// ops (DataLoader ops of any kind marked) on lane (kHostOpsDevice, thread id), their runtime calls
// (synchronising ones marked) on lane (kRuntimeDevice, thread id).
template <typename Sink>
void add_host_boxes(const Profile& p, NameClasses& classes, const Step& step,
                    const std::vector<std::uint32_t>& marker_events, Sink& sink) {
  ThreadSet launching = launching_threads(p, step.start, step.end);
  auto box = [&](std::int32_t lane, std::uint32_t thread, TimeNs start, TimeNs end, StringId name,
                 BoxKind kind) {
    start = std::max(start, step.start);
    end = std::min(end, step.end);
    if (end <= start) return;
    auto tid = static_cast<std::uint32_t>(p.threads[thread].tid);
    sink(PendingBox{lane, tid, start - step.start, end - start, name, name, kind, false, 0});
  };
  for (const RuntimeCall& c : p.runtime_calls)
    if (launching.count(c.thread))
      box(kRuntimeDevice, c.thread, c.start, c.end, c.name,
          classes.sync_call(c.name) ? BoxKind::Sync : BoxKind::Runtime);
  // Sorted, not a set: a node each was most of a tiny rank's timeline (issue 78).
  std::vector<std::uint32_t> markers = marker_events;
  if (!std::is_sorted(markers.begin(), markers.end())) std::sort(markers.begin(), markers.end());
  for (std::uint32_t i = 0; i < p.host_events.size(); ++i) {
    const HostEvent& e = p.host_events[i];
    if (!launching.count(e.thread) || e.end <= step.start || e.start >= step.end ||
        std::binary_search(markers.begin(), markers.end(), i))
      continue;
    if (classes.dataloader_op(e.name)) {
      box(kHostOpsDevice, e.thread, e.start, e.end, e.name, BoxKind::DataLoader);
    } else if (e.kind == HostKind::Op && outermost_op(p, i, markers)) {
      box(kHostOpsDevice, e.thread, e.start, e.end, e.name, BoxKind::CpuOp);
    }
  }
}

// Each GPU activity the step shows (its index), with its start and end clipped to the step.
template <typename Each>
void step_activities(const Profile& p, const Step& step, Each each) {
  for (std::size_t i = 0; i < p.gpu_activities.size(); ++i) {
    const GpuActivity& act = p.gpu_activities[i];
    if (act.start >= step.end) break;
    TimeNs start = std::max(act.start, step.start), end = std::min(act.end, step.end);
    if (end < start || (end == start && act.end != act.start)) continue;
    each(i, start, end);
  }
}

// Every box of the step, GPU activities first (each source in start order); returns how many
// GPU activities there are. `gpu_only`: the step is on the GPUs' clock, which the host's is not.
template <typename Sink>
std::size_t collect_boxes(const Profile& p, const Attribution& a, NameClasses& classes, const Step& step,
                          const std::vector<std::uint32_t>& marker_events, bool gpu_only, Sink& sink) {
  std::size_t activities = 0;
  step_activities(p, step, [&](std::size_t i, TimeNs start, TimeNs end) {
    const GpuActivity& act = p.gpu_activities[i];
    std::uint32_t owner = a.activity_owner(i);
    sink(PendingBox{act.device, act.stream, start - step.start, end - start, act.name,
                    owner == kNone ? kNoString : p.host_events[owner].name, kind_of(p, a, classes, i),
                    act.kind == GpuActivityKind::Kernel, 0});
    ++activities;
  });
  if (!gpu_only) add_host_boxes(p, classes, step, marker_events, sink);
  return activities;
}

// The median of the window's steps on the GPUs' clock (one interval per window step, or one for
// a window without steps), of an even count the shorter middle one as median_step: a step of the
// same name over its GPU span. Null where they are not the window's.
const Step* median_gpu_step(const StepDetection& steps, const Window& window,
                            const std::vector<Interval>& gpu_steps, Step& out) {
  if (window.steps.empty() && gpu_steps.size() == 1 && steps.steps.empty()) {
    out.name = kWholeCaptureName;
    out.start = gpu_steps.front().start;
    out.end = gpu_steps.front().end;
    return &out;
  }
  if (gpu_steps.empty() || gpu_steps.size() != window.steps.size()) return nullptr;
  std::vector<std::size_t> order(gpu_steps.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto length = [&](std::size_t i) { return gpu_steps[i].end - gpu_steps[i].start; };
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t x, std::size_t y) { return length(x) < length(y); });
  std::size_t median = order[(order.size() - 1) / 2];
  out = steps.steps[window.steps[median]];
  out.start = gpu_steps[median].start;
  out.end = gpu_steps[median].end;
  return &out;
}

}  // namespace

Timeline step_timeline(const Profile& p, const Attribution& a, NameClasses& classes,
                       const StepDetection& steps, const Window& window,
                       const std::vector<Interval>& gpu_steps, bool boxes_too) {
  Timeline t;
  // Without steps (an nsys export of a capture), the whole window: the capture's span.
  Step whole;
  whole.name = kWholeCaptureName;
  whole.start = window.start;
  whole.end = window.end;
  Step on_gpu_clock;
  const Step* step = median_gpu_step(steps, window, gpu_steps, on_gpu_clock);
  t.gpu_clock = step != nullptr;
  if (!step) step = median_step(steps, window);
  if (!step && steps.steps.empty()) step = &whole;
  if (!step || step->duration() <= 0) return t;
  t.step = step->name;
  t.step_start = step->start;
  t.step_duration = step->duration();
  if (!boxes_too) {
    step_activities(p, *step, [&](std::size_t, TimeNs, TimeNs) { ++t.activities; });
    return t;
  }
  TimeNs pixel = std::max<TimeNs>(1, t.step_duration / kTimelinePixels);
  LaneMerger lanes(pixel);
  auto merge = [&](const PendingBox& b) { lanes.add(b); };
  t.activities = collect_boxes(p, a, classes, *step, steps.marker_events, t.gpu_clock, merge);
  std::vector<PendingBox> boxes;
  if (lanes.in_order()) {
    boxes = lanes.boxes();
  } else {
    auto keep = [&](const PendingBox& b) { boxes.push_back(b); };
    collect_boxes(p, a, classes, *step, steps.marker_events, t.gpu_clock, keep);
    std::stable_sort(boxes.begin(), boxes.end(), [](const PendingBox& x, const PendingBox& y) {
      return std::tie(x.device, x.stream, x.start) < std::tie(y.device, y.stream, y.start);
    });
    boxes = merge_small(boxes, pixel);
  }
  // Each pass doubles the pixel; once it spans the step a lane is one box, and more lanes than the
  // cap stop the passes (issue 92: 6,000 streams of one kernel each doubled it forever).
  while (boxes.size() > kMaxTimelineBoxes && pixel < t.step_duration) boxes = merge_small(boxes, pixel *= 2);
  if (boxes.size() > kMaxTimelineBoxes) keep_longest(boxes, kMaxTimelineBoxes);
  t.boxes.reserve(boxes.size());
  ShortKernelNames short_names(p);
  for (const PendingBox& b : boxes) t.boxes.push_back(written(p, b, short_names));
  return t;
}

}  // namespace perfgate
