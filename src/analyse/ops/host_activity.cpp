#include "analyse/ops/host_activity.h"

#include "analyse/ops/blocking_copy.h"
#include "analyse/ops/warmup.h"

#include <algorithm>
#include <cmath>

#include <boost/container/flat_map.hpp>

namespace perfgate {
namespace {

bool in_window(TimeNs t, const Window& w) {
  return t >= w.start && t < w.end;
}

void add_copy(HostActivitySums::Copies& c, const GpuActivity& a) {
  ++c.count;
  c.bytes += a.bytes;
  c.time += a.end - a.start;
}

// nsys analyze cuda_memcpy_sync leaves out small host-to-device copies: the driver stages them
// and returns before the copy is done.
constexpr std::uint64_t kStagedCopyBytes = 64 * 1024;

// Copies and memsets that a blocking runtime call issued (nsys cuda_memcpy_sync, cuda_memset_sync).
void count_blocking(const Profile& p, const Attribution& at, NameClasses& classes, const Window& w,
                    HostActivitySums& s) {
  for (std::size_t i = 0; i < p.gpu_activities.size(); ++i) {
    const GpuActivity& a = p.gpu_activities[i];
    if (a.kind == GpuActivityKind::Kernel || !in_window(a.start, w)) continue;
    std::uint32_t r = at.activity_runtime[i];
    if (r == kNone || !classes.sync_call(p.runtime_calls[r].name)) continue;
    if (a.kind == GpuActivityKind::Memset) ++s.sync_memsets;
    bool staged = a.copy_kind == CopyKind::HostToDevice && a.bytes <= kStagedCopyBytes;
    if (a.kind == GpuActivityKind::Memcpy && !staged) ++s.sync_copies;
  }
}

// A host-device copy at its GPU's host link: its bytes at the link's bandwidth beside its time
// (memcpy.h2d_link_pct; issue 91: copies were priced at the GPU's memory bandwidth).
void add_host_copy(HostActivitySums::Copies& c, const GpuActivity& a,
                   const std::vector<DeviceHostLink>& links, std::optional<double>& slowest) {
  add_copy(c, a);
  auto link =
      std::find_if(links.begin(), links.end(), [&](const DeviceHostLink& l) { return l.device == a.device; });
  if (link == links.end()) return;
  add_time(c.linked_time, a.end - a.start);
  c.link_ps += static_cast<std::uint64_t>(std::llround(static_cast<double>(a.bytes) / link->gbps * 1e3));
  if (!slowest || link->gbps < *slowest) slowest = link->gbps;
}

void count_copies(const Profile& p, const Window& w, const std::vector<DeviceHostLink>& links,
                  HostActivitySums& s) {
  for (const GpuActivity& a : p.gpu_activities) {
    if (a.kind != GpuActivityKind::Memcpy || !in_window(a.start, w)) continue;
    add_copy(s.all_copies, a);
    if (a.pageable) add_copy(s.pageable, a);
    if (a.copy_kind == CopyKind::HostToDevice) add_host_copy(s.h2d, a, links, s.host_link_gbps);
    if (a.copy_kind == CopyKind::DeviceToHost) add_host_copy(s.d2h, a, links, s.host_link_gbps);
    if (a.copy_kind == CopyKind::DeviceToDevice) add_copy(s.d2d, a);
  }
}

// Gaps on a stream that the GPU spent waiting for the host: the next kernel's launch call was
// still running when the previous kernel finished.
std::optional<TimeNs> median_launch_gap(const Profile& p, const Attribution& a, const Window& w) {
  boost::container::flat_map<std::pair<std::int32_t, std::uint32_t>, std::size_t> last_on_stream;
  std::vector<TimeNs> gaps;
  for (std::size_t i = 0; i < p.gpu_activities.size(); ++i) {
    const GpuActivity& k = p.gpu_activities[i];
    if (k.kind != GpuActivityKind::Kernel || !in_window(k.start, w)) continue;
    auto [it, first] = last_on_stream.try_emplace({k.device, k.stream}, i);
    if (first) continue;
    const GpuActivity& previous = p.gpu_activities[it->second];
    it->second = i;
    std::uint32_t r = a.activity_runtime[i];
    if (r == kNone || k.start <= previous.end) continue;
    if (p.runtime_calls[r].end > previous.end) gaps.push_back(k.start - previous.end);
  }
  if (gaps.empty()) return std::nullopt;
  std::nth_element(gaps.begin(), gaps.begin() + static_cast<long>(gaps.size() / 2), gaps.end());
  TimeNs upper = gaps[gaps.size() / 2];
  if (gaps.size() % 2 == 1) return upper;
  TimeNs lower = *std::max_element(gaps.begin(), gaps.begin() + static_cast<long>(gaps.size() / 2));
  return (lower + upper) / 2;
}

}  // namespace

std::vector<Interval> window_spans(const StepDetection& steps, const Window& window) {
  std::vector<Interval> spans;
  spans.reserve(std::max<std::size_t>(window.steps.size(), 1));
  if (window.steps.empty()) spans.push_back({window.start, window.end});
  for (std::size_t i : window.steps) spans.push_back({steps.steps[i].start, steps.steps[i].end});
  return spans;
}

HostActivitySums host_activity(const Profile& p, const Attribution& a, NameClasses& classes,
                               const StepDetection& steps, const Window& w, const ActivityIntervals& in,
                               const std::vector<Interval>& gpu_steps, const IntervalList& one_offs,
                               const std::vector<DeviceHostLink>& links) {
  HostActivitySums s;
  IntervalList one_off_runtime = one_offs.empty() ? IntervalList{} : intersect(in.runtime, one_offs);
  for (Interval span : window_spans(steps, w)) {
    s.step_time += span.end - span.start;
    s.runtime_time += length_within(in.runtime, span);
    s.one_off_runtime_time += length_within(one_off_runtime, span);
  }
  // Under a clock offset the step is the GPUs' (one span for every time figure); the calls' time
  // is a duration on the host's clock, at most the step it is a share of.
  if (!gpu_steps.empty()) {
    s.step_time = 0;
    for (Interval span : gpu_steps) s.step_time += span.end - span.start;
    s.runtime_time = std::min(s.runtime_time, s.step_time);
    s.one_off_runtime_time = std::min(s.one_off_runtime_time, s.runtime_time);
  }
  for (const RuntimeCall& c : p.runtime_calls) {
    if (!in_window(c.start, w) || !classes.sync_call(c.name)) continue;
    ++s.sync_calls;
    s.sync_time += c.end - c.start;
  }
  s.graph_capture_workers = p.info.graph_capture ? 1 : 0;
  for (std::uint32_t r = 0; r < a.graph_launch.size(); ++r)
    s.graph_launches += a.graph_launch[r] != 0 && in_window(p.runtime_calls[r].start, w);
  for (std::size_t i = 0; i < p.gpu_activities.size(); ++i) {
    const GpuActivity& k = p.gpu_activities[i];
    if (k.kind != GpuActivityKind::Kernel || !in_window(k.start, w)) continue;
    ++s.kernels;
    s.kernel_time += k.end - k.start;
    if (k.end - k.start < kShortKernelNs) ++s.short_kernels;
    if (a.activity_runtime[i] == kNone) ++s.kernels_without_launch;
    if (a.replayed(i)) s.graph_kernel_time += k.end - k.start;
    if (classes.compiled_kernel(k.name)) s.compiled_kernel_time += k.end - k.start;
    if (a.replayed(i) && !a.captured_op.empty() && a.captured_op[i] != kNone)
      s.graph_kernel_time_placed += k.end - k.start;
  }
  s.median_launch_gap = median_launch_gap(p, a, w);
  count_copies(p, w, links, s);
  count_blocking(p, a, classes, w, s);
  s.longest_blocking_copy = longest_blocking_copy(p, a, classes, w);
  if (s.longest_blocking_copy) s.longest_blocking_copy->step_time = s.step_time;
  return s;
}

HostActivitySums::Copies& HostActivitySums::Copies::operator+=(const Copies& from) {
  count += from.count;
  bytes += from.bytes;
  add_time(time, from.time);
  add_time(linked_time, from.linked_time);
  link_ps += from.link_ps;
  return *this;
}

HostActivitySums& HostActivitySums::operator+=(const HostActivitySums& from) {
  sync_calls += from.sync_calls;
  add_time(sync_time, from.sync_time);
  add_time(runtime_time, from.runtime_time);
  add_time(step_time, from.step_time);
  kernels += from.kernels;
  short_kernels += from.short_kernels;
  kernels_without_launch += from.kernels_without_launch;
  add_time(kernel_time, from.kernel_time);
  graph_launches += from.graph_launches;
  add_time(graph_kernel_time, from.graph_kernel_time);
  add_time(graph_kernel_time_placed, from.graph_kernel_time_placed);
  add_time(compiled_kernel_time, from.compiled_kernel_time);
  graph_capture_workers += from.graph_capture_workers;
  h2d += from.h2d;
  d2h += from.d2h;
  d2d += from.d2d;
  all_copies += from.all_copies;
  pageable += from.pageable;
  if (from.host_link_gbps && (!host_link_gbps || *from.host_link_gbps < *host_link_gbps))
    host_link_gbps = from.host_link_gbps;
  sync_copies += from.sync_copies;
  sync_memsets += from.sync_memsets;
  if (from.longest_blocking_copy &&
      (!longest_blocking_copy || from.longest_blocking_copy->host_wait > longest_blocking_copy->host_wait))
    longest_blocking_copy = from.longest_blocking_copy;
  add_time(one_off_runtime_time, from.one_off_runtime_time);
  add_time(warmup.time, from.warmup.time);
  add_time(warmup.setup_time, from.warmup.setup_time);
  add_time(warmup.setup_union, from.warmup.setup_union);
  warmup.outliers += from.warmup.outliers;
  warmup.teardown += from.warmup.teardown;
  warmup.profiler += from.warmup.profiler;
  if (from.warmup.longest > warmup.longest) {
    warmup.name = from.warmup.name;
    warmup.longest = from.warmup.longest;
    warmup.start = from.warmup.start;
    warmup.is_range = from.warmup.is_range;
  }
  return *this;
}

OneOff& OneOff::operator+=(const OneOff& from) {
  add_time(time, from.time);
  count += from.count;
  if (from.longest > longest) {
    name = from.name;
    longest = from.longest;
    start = from.start;
  }
  return *this;
}

}  // namespace perfgate
