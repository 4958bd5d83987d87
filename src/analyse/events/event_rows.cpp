#include "analyse/events/event_rows.h"

#include <algorithm>
#include <unordered_map>

#include "analyse/attribution.h"
#include "analyse/classifier.h"
#include "analyse/steps/steps.h"
#include "analyse/steps/window.h"
#include "analyse/worker_attribution.h"

namespace perfgate {
namespace {

std::string_view host_kind_name(HostKind kind) {
  switch (kind) {
    case HostKind::Op:
      return "op";
    case HostKind::Annotation:
      return "annotation";
    case HostKind::PythonFunction:
      return "python";
  }
  return "op";
}

std::string_view activity_kind_name(GpuActivityKind kind) {
  switch (kind) {
    case GpuActivityKind::Kernel:
      return "kernel";
    case GpuActivityKind::Memcpy:
      return "copy";
    case GpuActivityKind::Memset:
      return "memset";
  }
  return "kernel";
}

EventRow event_row(std::string_view kind, std::string_view name, TimeNs start, TimeNs end) {
  EventRow row;
  row.kind = kind;
  row.name = name;
  row.start = start;
  row.end = end;
  return row;
}

// The step an event belongs to, by the time it starts: in a step's host span (host work), or in
// its span (GPU work no call launched). Steps come in time order.
class StepFinder {
 public:
  explicit StepFinder(const StepDetection& detection) : steps_(detection.steps) {}

  const Step* by_host_time(TimeNs time) const {
    auto it = std::upper_bound(steps_.begin(), steps_.end(), time,
                               [](TimeNs t, const Step& s) { return t < s.host_start; });
    if (it == steps_.begin()) return nullptr;
    --it;
    return time < it->host_end ? &*it : nullptr;
  }
  const Step* by_time(TimeNs time) const {
    auto it = std::upper_bound(steps_.begin(), steps_.end(), time,
                               [](TimeNs t, const Step& s) { return t < s.start; });
    if (it == steps_.begin()) return nullptr;
    --it;
    return time < it->end ? &*it : nullptr;
  }
  std::int64_t number(const Step& step) const {
    return step.number.value_or(static_cast<std::int64_t>(&step - steps_.data()));
  }

 private:
  const std::vector<Step>& steps_;
};

class RowWriter {
 public:
  RowWriter(const EventQuery& query, const StepFinder& steps,
            const std::function<void(const EventRow&)>& each)
      : query_(query), steps_(steps), each_(each) {
    for (std::string_view kind : query.kinds) {
      if (kind == "collective")
        collectives_ = true;
      else
        kinds_.push_back(kind);
    }
    every_kind_ = query.kinds.empty();
  }

  // Whether rows of this kind can be wanted at all (a collective can be of any kind).
  bool may_want(std::string_view kind) const {
    return every_kind_ || collectives_ || std::find(kinds_.begin(), kinds_.end(), kind) != kinds_.end();
  }

  void write(EventRow& row, const Step* step) {
    if (!every_kind_ && std::find(kinds_.begin(), kinds_.end(), row.kind) == kinds_.end() &&
        !(collectives_ && !row.collective.empty()))
      return;
    if (step) {
      row.step = steps_.number(*step);
      row.in_window = step->in_window;
    }
    if (!query_.steps.empty() &&
        (!row.step || std::find(query_.steps.begin(), query_.steps.end(), *row.step) == query_.steps.end()))
      return;
    each_(row);
  }

 private:
  const EventQuery& query_;
  const StepFinder& steps_;
  const std::function<void(const EventRow&)>& each_;
  std::vector<std::string_view> kinds_;
  bool collectives_ = false;
  bool every_kind_ = true;
};

}  // namespace

void for_each_event_row(const Profile& p, const Classification& classification,
                        const AnalysisOptions& options, const EventQuery& query,
                        const std::function<void(const EventRow&)>& each) {
  CompiledClassification compiled(classification);
  NameClasses classes(compiled, p);
  // Who launched what, as the analysis attributes it (analyse.cpp: analyse_gpu_profile).
  Attribution attribution = worker_attribution(p, compiled, classes, options.threads);
  std::vector<Note> warnings;
  StepDetection detection = detect_steps(p, attribution, compiled, options, warnings);
  select_window(detection, options.window);
  StepFinder steps(detection);
  RowWriter writer(query, steps, each);

  std::unordered_map<std::int64_t, StringId> collective_of;  // External id -> the collective's type
  for (const CollectiveArgs& c : p.collectives)
    if (c.external_id != 0 && c.collective != kNoString) collective_of.emplace(c.external_id, c.collective);
  auto collective = [&](std::int64_t external_id, StringId name, bool communication) -> std::string_view {
    auto it = external_id == 0 ? collective_of.end() : collective_of.find(external_id);
    if (it != collective_of.end()) return p.str(it->second);
    return communication ? p.str(name) : std::string_view();
  };
  auto tid = [&](std::uint32_t thread) -> std::optional<std::int64_t> {
    if (thread >= p.threads.size()) return std::nullopt;
    return p.threads[thread].tid;
  };
  auto id = [](std::int64_t value) -> std::optional<std::int64_t> {
    return value == 0 ? std::nullopt : std::optional<std::int64_t>(value);
  };

  bool host = writer.may_want("op") || writer.may_want("annotation") || writer.may_want("python");
  for (std::size_t i = 0; host && i < p.host_events.size(); ++i) {
    const HostEvent& e = p.host_events[i];
    std::int64_t external_id = p.details(e).external_id;
    EventRow row = event_row(host_kind_name(e.kind), p.str(e.name), e.start, e.end);
    row.thread = tid(e.thread);
    row.external_id = id(external_id);
    if (e.parent != kNone) row.op = p.str(p.host_events[e.parent].name);
    row.collective =
        collective(external_id, e.name, e.kind == HostKind::Op && classes.communication_op(e.name));
    writer.write(row, steps.by_host_time(e.start));
  }
  auto owner_name = [&](std::uint32_t owner) {
    return owner == kNone ? std::string_view() : p.str(p.host_events[owner].name);
  };
  if (writer.may_want("runtime"))
    for (std::size_t r = 0; r < p.runtime_calls.size(); ++r) {
      const RuntimeCall& c = p.runtime_calls[r];
      EventRow row = event_row("runtime", p.str(c.name), c.start, c.end);
      row.thread = tid(c.thread);
      row.correlation = id(c.correlation);
      row.external_id = id(c.external_id);
      row.op = owner_name(attribution.runtime_owner[r]);
      writer.write(row, steps.by_host_time(c.start));
    }
  bool gpu = writer.may_want("kernel") || writer.may_want("copy") || writer.may_want("memset");
  for (std::size_t i = 0; gpu && i < p.gpu_activities.size(); ++i) {
    const GpuActivity& a = p.gpu_activities[i];
    EventRow row = event_row(activity_kind_name(a.kind), p.str(a.name), a.start, a.end);
    row.device = a.device;
    row.stream = a.stream;
    row.correlation = id(a.correlation);
    row.external_id = id(a.external_id);
    std::uint32_t owner = attribution.activity_owner(i);
    row.op = owner_name(owner);
    if (a.kind != GpuActivityKind::Kernel) row.bytes = a.bytes;
    bool communication = a.kind == GpuActivityKind::Kernel && classes.communication_kernel(a.name);
    std::int64_t owner_id = owner == kNone ? 0 : p.details(owner).external_id;
    if (communication) row.collective = collective(a.external_id ? a.external_id : owner_id, a.name, true);
    std::uint32_t call = attribution.activity_runtime[i];
    const Step* step = nullptr;
    if (call != kNone) {
      row.thread = tid(p.runtime_calls[call].thread);
      step = steps.by_host_time(p.runtime_calls[call].start);
    } else {
      step = steps.by_time(a.start);
    }
    writer.write(row, step);
  }
}

}  // namespace perfgate
