// events: the instances of one kernel, op or collective of a report's run in a time window, a page
// at a time. The kept report holds aggregates only (its tables), so the run's profiles are read
// again (as analyze read them: the call's paths, under the roots) and only the matching instances
// are kept, at most kMaxInstancesKept of them (the rest counted).
#include <algorithm>
#include <mutex>
#include <unordered_map>

#include <fmt/format.h>

#include "common/errors.h"
#include "engine/engine.h"
#include "mcp/session.h"
#include "mcp/tool_args.h"
#include "model/profile.h"

namespace perfgate::mcp {
namespace {

constexpr std::int64_t kMaxEvents = 200;
constexpr std::size_t kMaxInstancesKept = 100'000;
constexpr std::int64_t kMaxTimeUs = std::int64_t{1} << 53;

struct Query {
  std::string name;
  bool contains = false;             // the name contains `name`, else equals it
  std::string kind;                  // kernel, op, collective; empty: any
  std::optional<std::int64_t> from;  // µs of the trace's clock
  std::optional<std::int64_t> to;
  std::optional<std::string> worker;
};

struct Instance {
  TimeNs start = 0;
  TimeNs end = 0;
  json::object row;
};

class Collector {
 public:
  explicit Collector(const Query& q) : q_(q) {}

  void add(const Profile& p) {
    if (q_.worker && *q_.worker != p.worker) return;
    if (q_.kind.empty() || q_.kind == "kernel")
      for (const GpuActivity& a : p.gpu_activities)
        if (a.kind == GpuActivityKind::Kernel && wanted(p.str(a.name), a.start, a.end))
          keep(a.start, a.end,
               {{"kind", "kernel"},
                {"name", p.str(a.name)},
                {"worker", p.worker},
                {"device", a.device},
                {"stream", a.stream}});
    if (q_.kind.empty() || q_.kind == "op")
      for (const HostEvent& e : p.host_events)
        if (e.kind == HostKind::Op && wanted(p.str(e.name), e.start, e.end))
          keep(e.start, e.end,
               {{"kind", "op"}, {"name", p.str(e.name)}, {"worker", p.worker}, {"thread", e.thread}});
    if (q_.kind.empty() || q_.kind == "collective") add_collectives(p);
  }

  std::vector<Instance> take() {
    std::sort(instances_.begin(), instances_.end(),
              [](const Instance& a, const Instance& b) { return a.start < b.start; });
    return std::move(instances_);
  }
  std::size_t not_kept() const { return not_kept_; }

 private:
  // The ops that ran a collective of that name ("allreduce", ...: what the trace recorded of it).
  void add_collectives(const Profile& p) {
    std::unordered_map<std::int64_t, std::string_view> by_id;
    for (const CollectiveArgs& c : p.collectives) by_id.emplace(c.external_id, p.str(c.collective));
    if (by_id.empty()) return;
    for (const HostEvent& e : p.host_events) {
      std::int64_t id = p.details(e).external_id;
      auto it = id == 0 ? by_id.end() : by_id.find(id);
      if (it != by_id.end() && wanted(it->second, e.start, e.end))
        keep(e.start, e.end,
             {{"kind", "collective"},
              {"name", it->second},
              {"op", p.str(e.name)},
              {"worker", p.worker},
              {"thread", e.thread}});
    }
  }

  bool wanted(std::string_view name, TimeNs start, TimeNs end) const {
    bool named = q_.contains ? name.find(q_.name) != std::string_view::npos : name == q_.name;
    return named && (!q_.from || end >= *q_.from * 1000) && (!q_.to || start <= *q_.to * 1000);
  }

  void keep(TimeNs start, TimeNs end, json::object row) {
    std::lock_guard lock(mutex_);
    if (instances_.size() >= kMaxInstancesKept) {
      ++not_kept_;
      return;
    }
    row["start_us"] = static_cast<double>(start) / 1000.0;
    row["duration_us"] = static_cast<double>(end - start) / 1000.0;
    instances_.push_back({start, end, std::move(row)});
  }

  const Query& q_;
  std::mutex mutex_;  // workers arrive on their loading threads
  std::vector<Instance> instances_;
  std::size_t not_kept_ = 0;
};

Query read_query(const ToolArgs& args) {
  Query q;
  q.name = args.required_text("name");
  q.contains = args.text("match").value_or("exact") == "contains";
  if (std::string m = args.text("match").value_or("exact"); m != "exact" && m != "contains")
    throw ConfigError("events: argument \"match\" must be exact or contains");
  q.kind = args.text("kind").value_or("");
  if (!q.kind.empty() && q.kind != "kernel" && q.kind != "op" && q.kind != "collective")
    throw ConfigError("events: argument \"kind\" must be kernel, op or collective");
  q.from = args.integer("start_us", -kMaxTimeUs, kMaxTimeUs);
  q.to = args.integer("end_us", -kMaxTimeUs, kMaxTimeUs);
  if (q.from && q.to && *q.from > *q.to)
    throw ConfigError(fmt::format("events: start_us {} is after end_us {}", *q.from, *q.to));
  q.worker = args.text("worker");
  return q;
}

}  // namespace

ToolOutput events_tool(Session& session, const json::object& raw) {
  ToolArgs args("events", raw,
                {"report", "name", "match", "kind", "start_us", "end_us", "worker", "offset", "limit"});
  const StoredReport& report = session.report(args.required_text("report"));
  Query query = read_query(args);
  std::size_t offset = static_cast<std::size_t>(args.integer("offset", 0, std::int64_t{1} << 40).value_or(0));
  std::size_t limit = static_cast<std::size_t>(args.integer("limit", 1, kMaxEvents).value_or(50));
  // Through the engine's door, as the report's own run: its limits, its rules' knowledge, the call's stop.
  RunRequest run = run_request_of(session, report.call.at("run").as_object());
  const CallContext& call = session.call();
  run.stop_requested = [&call] { return call.stop_requested(); };
  Collector collector(query);
  for_each_profile(prepare_run(std::move(run), report.book),
                   [&collector](const Profile& profile) { collector.add(profile); });
  std::vector<Instance> found = collector.take();
  json::array rows;
  std::size_t bytes = 0;
  std::size_t i = offset;
  for (; i < found.size() && rows.size() < limit; ++i) {
    bytes += json::serialize(found[i].row).size();
    if (bytes > kMaxResultBytes && !rows.empty()) break;
    rows.push_back(std::move(found[i].row));
  }
  json::object out{{"report_id", report.id},
                   {"events", std::move(rows)},
                   {"total", found.size()},
                   {"not_kept", collector.not_kept()},
                   {"offset", offset}};
  out["next_offset"] = i < found.size() ? json::value(i) : json::value(nullptr);
  return out;
}

}  // namespace perfgate::mcp
