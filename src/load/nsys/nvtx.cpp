// NVTX ranges: emit_nvtx and PyProf ops, user regions, and the domains they belong to.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "load/nsys/capture.h"
#include "load/nsys/nvtx_names.h"

namespace perfgate::nsys {
namespace {

constexpr std::int64_t kDomainCreate = 75;

// Domain names come from NvtxDomainCreate rows, which a cut window can lack.
std::map<std::int64_t, std::string> read_domains(Capture& capture) {
  std::map<std::int64_t, std::string> domains;
  Statement row(capture.db(), select_columns(capture.db(), "NVTX_EVENTS", {"domainId", "text", "textId"},
                                             fmt::format("WHERE eventType = {}", kDomainCreate)));
  while (row.next()) {
    std::string name = capture.valid_text(row.text(1));
    if (name.empty() && !row.is_null(2)) name = capture.text(row.integer(2));
    if (!name.empty()) domains[row.integer(0)] = name;
  }
  return domains;
}

struct StackRange {
  std::uint32_t thread;
  TimeNs start, end;
  StringId stack;
};

// A PyProf op takes the call stack of the innermost traceMarker range around it on its thread.
void attach_call_stacks(Profile& p, std::vector<StackRange>& stacks) {
  if (stacks.empty()) return;
  std::sort(stacks.begin(), stacks.end(), [](const StackRange& a, const StackRange& b) {
    return a.thread != b.thread ? a.thread < b.thread : a.start < b.start;
  });
  for (HostEvent& e : p.host_events) {
    if (e.kind != HostKind::Op || p.details(e).call_stack != kNoString) continue;
    auto it = std::upper_bound(stacks.begin(), stacks.end(),
                               std::pair<std::uint32_t, TimeNs>(std::uint32_t{e.thread}, e.start),
                               [](const std::pair<std::uint32_t, TimeNs>& key, const StackRange& s) {
                                 return key.first != s.thread ? key.first < s.thread : key.second < s.start;
                               });
    while (it != stacks.begin()) {
      --it;
      if (it->thread != e.thread) break;
      if (it->end >= e.end) {
        if (e.details == kNone) {
          e.details = static_cast<std::uint32_t>(p.op_details.size());
          p.op_details.emplace_back();
        }
        p.op_details[e.details].call_stack = it->stack;
        break;
      }
    }
  }
}

// A start/end range that ended on another thread (nvtx-plugins-tf, TensorFlow's executor) has no
// place in one thread's nesting: it goes to the thread of the process that made the most CUDA
// calls during it, so that what those calls launched is attributed to it by time containment.
void rehome(Profile& p, HostEvent& e) {
  auto first = std::lower_bound(p.runtime_calls.begin(), p.runtime_calls.end(), e.start,
                                [](const RuntimeCall& r, TimeNs t) { return r.start < t; });
  std::map<std::uint32_t, std::size_t> calls;
  for (auto it = first; it != p.runtime_calls.end() && it->start <= e.end; ++it)
    if (it->end <= e.end) ++calls[it->thread];
  std::size_t best = 0;
  for (auto [thread, n] : calls)
    if (n > best) {
      best = n;
      e.thread = thread;
    }
}

}  // namespace

NvtxSummary read_nvtx(Capture& capture) {
  NvtxSummary summary;
  const SqliteDb& db = capture.db();
  const std::string table = "NVTX_EVENTS";
  if (!db.has_table(table)) return summary;
  std::map<std::int64_t, std::string> domains = read_domains(capture);
  Statement row(db, select_columns(db, table,
                                   {"start", "end", "eventType", "text", "textId", "globalTid",
                                    "endGlobalTid", "domainId"},
                                   capture.rows_of_process(table, "globalTid", kNvtxRangeRows)));
  CapturedProcess& p = capture.process();
  std::vector<StackRange> stacks;
  std::vector<std::size_t> cross_thread;
  while (row.next()) {
    std::int64_t global_tid = row.integer(5);
    std::string raw = capture.valid_text(row.text(3));
    if (raw.empty() && !row.is_null(4)) raw = capture.text(row.integer(4));
    std::int64_t domain = row.optional_integer(7).value_or(0);

    HostEvent e;
    e.start = row.integer(0);
    e.end = row.integer(1);
    if (!capture.usable(row, table, e.start, e.end)) continue;
    e.thread = capture.thread(global_tid);
    e.kind = HostKind::Annotation;
    if (domain != 0) {
      auto d = domains.find(domain);
      std::string domain_name = d != domains.end() ? d->second : fmt::format("domain {}", domain);
      e.name = p.profile.strings.intern(fmt::format("{}:{}", domain_name, raw));
    } else {
      NvtxText t = read_nvtx_text(raw);
      if (t.meaning == NvtxMeaning::CallStack) {
        stacks.push_back({e.thread, e.start, e.end, p.profile.strings.intern(t.call_stack)});
        continue;
      }
      e.name = p.profile.strings.intern(t.name);
      if (t.meaning == NvtxMeaning::Op) {
        e.kind = HostKind::Op;
        OpDetails d;
        d.sequence_number = t.sequence;
        d.input_dims = p.profile.strings.intern(t.input_dims);
        d.input_types = p.profile.strings.intern(t.input_types);
        if (!d.empty()) {
          e.details = static_cast<std::uint32_t>(p.op_details.size());
          p.op_details.push_back(d);
        }
        ++(raw.starts_with('{') ? summary.pyprof_ops : summary.emit_nvtx_ops);
      }
    }
    std::int64_t type = row.integer(2);
    bool start_end = type == 60 || type == 71;
    if (start_end && !row.is_null(6) && row.integer(6) != global_tid)
      cross_thread.push_back(p.host_events.size());
    p.host_events.push_back(e);
    ++summary.ranges;
  }
  p.host_events.move_into(p.profile.host_events);
  p.op_details.move_into(p.profile.op_details);
  attach_call_stacks(p.profile, stacks);
  for (std::size_t index : cross_thread) rehome(p.profile, p.profile.host_events[index]);
  summary.cross_thread = cross_thread.size();
  return summary;
}

}  // namespace perfgate::nsys
