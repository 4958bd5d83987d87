#include "analyse/attribution.h"

#include <algorithm>
#include <unordered_map>

namespace perfgate {
namespace {

bool can_own(const HostEvent& e) {
  return e.kind != HostKind::PythonFunction;
}

bool encloses(const HostEvent& e, const RuntimeCall& r) {
  return e.start <= r.start && r.end <= e.end;
}

void link_activities(const Profile& p, Attribution& a) {
  std::unordered_map<std::int64_t, std::uint32_t> by_correlation;
  by_correlation.reserve(p.runtime_calls.size());
  for (std::uint32_t r = 0; r < p.runtime_calls.size(); ++r)
    if (p.runtime_calls[r].correlation != 0) by_correlation[p.runtime_calls[r].correlation] = r;

  a.activity_runtime.assign(p.gpu_activities.size(), kNone);
  std::vector<std::uint32_t> counts(p.runtime_calls.size() + 1, 0);
  for (std::size_t i = 0; i < p.gpu_activities.size(); ++i) {
    std::int64_t corr = p.gpu_activities[i].correlation;
    if (corr == 0) continue;
    if (auto it = by_correlation.find(corr); it != by_correlation.end()) {
      a.activity_runtime[i] = it->second;
      ++counts[it->second + 1];
    }
  }
  a.activity_offsets.assign(p.runtime_calls.size() + 1, 0);
  for (std::size_t r = 0; r < p.runtime_calls.size(); ++r)
    a.activity_offsets[r + 1] = a.activity_offsets[r] + counts[r + 1];
  a.activities.assign(a.activity_offsets.back(), 0);
  std::vector<std::uint32_t> fill(a.activity_offsets.begin(), a.activity_offsets.end() - 1);
  for (std::uint32_t i = 0; i < p.gpu_activities.size(); ++i)
    if (a.activity_runtime[i] != kNone) a.activities[fill[a.activity_runtime[i]]++] = i;
}

// Innermost op or annotation on the call's thread that encloses it, by walking up the host tree
// from the last range that started before the call.
std::uint32_t enclosing_owner(const Profile& p, const RuntimeCall& r) {
  const auto& events = p.host_events;
  auto thread_begin = std::lower_bound(events.begin(), events.end(), r.thread,
                                       [](const HostEvent& e, std::uint32_t t) { return e.thread < t; });
  auto it = std::upper_bound(thread_begin, events.end(), r.start, [&](TimeNs t, const HostEvent& e) {
    return e.thread != r.thread || t < e.start;
  });
  if (it == thread_begin) return kNone;
  std::uint32_t candidate = static_cast<std::uint32_t>(std::distance(events.begin(), it) - 1);
  while (candidate != kNone && !(can_own(events[candidate]) && encloses(events[candidate], r)))
    candidate = events[candidate].parent;
  return candidate;
}

void link_owners(const Profile& p, Attribution& a, bool by_time_containment) {
  std::unordered_map<std::int64_t, std::uint32_t> by_external_id;
  for (std::uint32_t i = 0; i < p.host_events.size(); ++i) {
    const HostEvent& e = p.host_events[i];
    if (e.external_id != 0 && can_own(e)) by_external_id.try_emplace(e.external_id, i);
  }
  a.runtime_owner.assign(p.runtime_calls.size(), kNone);
  for (std::size_t r = 0; r < p.runtime_calls.size(); ++r) {
    const RuntimeCall& call = p.runtime_calls[r];
    if (call.external_id != 0) {
      auto it = by_external_id.find(call.external_id);
      if (it != by_external_id.end() && encloses(p.host_events[it->second], call)) {
        a.runtime_owner[r] = it->second;
        ++a.owners_by_external_id;
        continue;
      }
    }
    if (!by_time_containment) continue;
    a.runtime_owner[r] = enclosing_owner(p, call);
    if (a.runtime_owner[r] != kNone) ++a.owners_by_containment;
  }
}

}  // namespace

Attribution attribute(const Profile& profile, bool by_time_containment) {
  Attribution a;
  link_activities(profile, a);
  link_owners(profile, a, by_time_containment);
  return a;
}

}  // namespace perfgate
