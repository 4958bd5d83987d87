#include <algorithm>

#include "model/profile.h"
#include "model/stable_order.h"

namespace perfgate {

std::size_t build_host_tree(Profile& profile) {
  auto& events = profile.host_events;
  // Same start: the longer range first, so it becomes the parent (as the autograd profiler does).
  stable_sort_records(events, [](const HostEvent& a, const HostEvent& b) {
    if (a.thread != b.thread) return a.thread < b.thread;
    if (a.start != b.start) return a.start < b.start;
    return a.end > b.end;
  });

  std::size_t overlapping = 0;
  std::vector<std::uint32_t> stack;
  std::uint32_t current_thread = kNone;
  for (std::uint32_t i = 0; i < events.size(); ++i) {
    HostEvent& e = events[i];
    if (e.thread != current_thread) {
      stack.clear();
      current_thread = e.thread;
    }
    // Close every open range that ended before this one starts.
    while (!stack.empty() && events[stack.back()].end <= e.start) stack.pop_back();
    // A range that starts inside but ends after the open one overlaps instead of nesting.
    bool overlapped = false;
    while (!stack.empty() && events[stack.back()].end < e.end) {
      stack.pop_back();
      overlapped = true;
    }
    if (overlapped) ++overlapping;
    e.parent = stack.empty() ? kNone : stack.back();
    stack.push_back(i);
  }
  return overlapping;
}

std::uint32_t last_host_event_before(const Profile& profile, std::uint32_t thread, TimeNs time) {
  const auto& events = profile.host_events;
  auto thread_begin = std::lower_bound(events.begin(), events.end(), thread,
                                       [](const HostEvent& e, std::uint32_t t) { return e.thread < t; });
  auto it = std::upper_bound(thread_begin, events.end(), time,
                             [&](TimeNs t, const HostEvent& e) { return e.thread != thread || t < e.start; });
  if (it == thread_begin) return kNone;
  return static_cast<std::uint32_t>(std::distance(events.begin(), it) - 1);
}

HostEventCursor::HostEventCursor(const Profile& profile) : events_(profile.host_events) {
  std::size_t threads = events_.empty() ? 0 : events_.back().thread + std::size_t{1};
  first_.assign(threads + 1, 0);
  for (const HostEvent& e : events_) ++first_[e.thread + std::size_t{1}];
  for (std::size_t t = 0; t < threads; ++t) first_[t + 1] += first_[t];
  next_.assign(first_.begin(), first_.end() - 1);
}

std::uint32_t HostEventCursor::last_before(std::uint32_t thread, TimeNs time) {
  if (thread >= next_.size()) return kNone;
  std::uint32_t begin = first_[thread];
  std::uint32_t end = first_[thread + 1];
  std::uint32_t& at = next_[thread];
  if (at > begin && events_[at - 1].start > time)  // earlier than the last query: search back
    at = static_cast<std::uint32_t>(
        std::upper_bound(events_.begin() + begin, events_.begin() + at, time,
                         [](TimeNs t, const HostEvent& e) { return t < e.start; }) -
        events_.begin());
  while (at < end && events_[at].start <= time) ++at;
  return at == begin ? kNone : at - 1;
}

}  // namespace perfgate
