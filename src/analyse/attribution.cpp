#include "analyse/attribution.h"

#include <algorithm>
#include <utility>

#include "analyse/id_index.h"
#include "model/side_by_side.h"
#include "model/stable_order.h"

namespace perfgate {
namespace {

bool can_own(const HostEvent& e) {
  return e.kind != HostKind::PythonFunction;
}

bool encloses(const HostEvent& e, const RuntimeCall& r) {
  return e.start <= r.start && r.end <= e.end;
}

// Several entries with one id: keep the one the plugin keeps (`last` for correlations, the first
// otherwise).
IdIndex make_index(IdIndex entries, bool keep_last) {
  // Ids mostly grow with time, thread after thread: a few ascending runs.
  stable_sort_runs(entries.begin(), entries.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  IdIndex unique;
  unique.reserve(entries.size());
  for (const auto& e : entries) {
    if (!unique.empty() && unique.back().first == e.first) {
      if (keep_last) unique.back() = e;
      continue;
    }
    unique.push_back(e);
  }
  return unique;
}

void link_activities(const Profile& p, Attribution& a) {
  IdIndex calls;
  calls.reserve(p.runtime_calls.size());
  for (std::uint32_t r = 0; r < p.runtime_calls.size(); ++r)
    if (p.runtime_calls[r].correlation != 0) calls.emplace_back(p.runtime_calls[r].correlation, r);
  IdIndex by_correlation = make_index(std::move(calls), true);
  IdLookup find_call(by_correlation);

  a.activity_runtime.assign(p.gpu_activities.size(), kNone);
  for (std::size_t i = 0; i < p.gpu_activities.size(); ++i)
    if (std::int64_t corr = p.gpu_activities[i].correlation; corr != 0)
      a.activity_runtime[i] = find_call(corr);
  index_launched_activities(p, a);
}

// Innermost op or annotation on the call's thread that encloses it, by walking up the host tree
// from the last range that started before the call (found by the merge of `before`).
std::uint32_t enclosing_owner(const Profile& p, HostEventCursor& before, const RuntimeCall& r) {
  const auto& events = p.host_events;
  std::uint32_t candidate = before.last_before(r.thread, r.start);
  while (candidate != kNone && !(can_own(events[candidate]) && encloses(events[candidate], r)))
    candidate = events[candidate].parent;
  return candidate;
}

void link_owners(const Profile& p, Attribution& a, AttributionRules rules) {
  IdIndex owners;
  for (std::uint32_t i = 0; i < p.host_events.size(); ++i) {
    const HostEvent& e = p.host_events[i];
    std::int64_t id = p.details(e).external_id;
    if (id != 0 && can_own(e)) owners.emplace_back(id, i);
  }
  IdIndex by_external_id = make_index(std::move(owners), false);
  IdLookup find_owner(by_external_id);
  a.runtime_owner.assign(p.runtime_calls.size(), kNone);
  HostEventCursor before(p);
  for (std::size_t r = 0; r < p.runtime_calls.size(); ++r) {
    const RuntimeCall& call = p.runtime_calls[r];
    if (call.external_id != 0) {
      std::uint32_t op = find_owner(call.external_id);
      if (op != kNone && (!rules.external_id_must_enclose || encloses(p.host_events[op], call))) {
        a.runtime_owner[r] = op;
        ++a.owners_by_external_id;
        continue;
      }
    }
    if (!rules.by_time_containment) continue;
    a.runtime_owner[r] = enclosing_owner(p, before, call);
    if (a.runtime_owner[r] != kNone) ++a.owners_by_containment;
  }
}

}  // namespace

std::size_t reown_to_enclosing_ops(const Profile& p, Attribution& a,
                                   const std::function<bool(const HostEvent&)>& moves) {
  std::size_t moved = 0;
  for (std::uint32_t& owner : a.runtime_owner) {
    if (owner == kNone || p.host_events[owner].kind != HostKind::Annotation || !moves(p.host_events[owner]))
      continue;
    std::uint32_t up = p.host_events[owner].parent;
    while (up != kNone && p.host_events[up].kind != HostKind::Op) up = p.host_events[up].parent;
    if (up == kNone) continue;
    owner = up;
    ++moved;
  }
  return moved;
}

void index_launched_activities(const Profile& p, Attribution& a) {
  std::size_t calls = p.runtime_calls.size();
  a.activity_offsets.assign(calls + 1, 0);
  for (std::uint32_t r : a.activity_runtime)
    if (r != kNone) ++a.activity_offsets[r + 1];
  for (std::size_t r = 0; r < calls; ++r) a.activity_offsets[r + 1] += a.activity_offsets[r];
  a.activities.assign(a.activity_offsets.back(), 0);
  std::vector<std::uint32_t> fill(a.activity_offsets.begin(), a.activity_offsets.end() - 1);
  for (std::uint32_t i = 0; i < a.activity_runtime.size(); ++i)
    if (a.activity_runtime[i] != kNone) a.activities[fill[a.activity_runtime[i]]++] = i;
}

Attribution attribute(const Profile& profile, AttributionRules rules, unsigned threads) {
  Attribution a;
  // The two write different members of `a`.
  run_side_by_side(threads, {[&] { link_owners(profile, a, rules); }, [&] { link_activities(profile, a); }});
  return a;
}

}  // namespace perfgate
