#include <algorithm>
#include <numeric>

#include "perfgate/profile.h"

namespace perfgate {

namespace {

// Sorts by (thread, start, longer first), keeping the input order of ties. A stable sort of the
// events themselves would need a buffer of half of them; sorting 4-byte indices and then
// permuting in place needs a tenth of that.
void sort_host_events(std::vector<HostEvent>& events) {
  std::vector<std::uint32_t> order(events.size());
  std::iota(order.begin(), order.end(), 0u);
  // Same start: the longer range first, so it becomes the parent (as the autograd profiler does).
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
    const HostEvent& a = events[x];
    const HostEvent& b = events[y];
    if (a.thread != b.thread) return a.thread < b.thread;
    if (a.start != b.start) return a.start < b.start;
    return a.end > b.end;
  });
  // Position i receives events[order[i]]; follow each cycle once, marking done slots with kNone.
  for (std::uint32_t i = 0; i < order.size(); ++i) {
    if (order[i] == kNone || order[i] == i) continue;
    HostEvent held = events[i];
    std::uint32_t slot = i;
    while (order[slot] != i) {
      std::uint32_t from = order[slot];
      events[slot] = events[from];
      order[slot] = kNone;
      slot = from;
    }
    events[slot] = held;
    order[slot] = kNone;
  }
}

}  // namespace

std::size_t build_host_tree(Profile& profile) {
  auto& events = profile.host_events;
  sort_host_events(events);

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

}  // namespace perfgate
