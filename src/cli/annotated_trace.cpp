#include "cli/annotated_trace.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <functional>
#include <limits>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/number_checks.h"
#include "cli/outputs.h"
#include "cli/trace_events.h"
#include "common/version.h"
#include "io/io.h"
#include "model/profile.h"
#include "render/json_writer.h"

namespace perfgate::cli {
namespace {

namespace fs = std::filesystem;

// perfgate's own lanes: a process per worker above the trace's, with a track each for the steps, the
// critical path and the findings. Perfetto reads a pid as a 32-bit number (json_trace_parser.cc,
// CoerceToUint32): perfgate's pids count down from the top of that range; worker 0's GPUs keep
// Kineto's lanes (pid: the device), a later worker's go past Linux's pids (2^22), 256 a worker.
// Their categories ("perfgate.*") are none Kineto writes: perfgate's reader leaves them out when the
// file is read back.
constexpr std::int64_t kPerfgatePid = 0xFFFFFFFE;  // worker w's: kPerfgatePid - w
constexpr std::int64_t kGpuPidBase = std::int64_t{1} << 22;
constexpr std::int64_t kGpuPidsPerWorker = 256;
enum PerfgateTrack : std::int64_t { kStepsTrack = 1, kPathTrack = 2, kFindingsTrack = 3 };
// Flow ids: each worker's forward/backward arrows in a range of its own, the path's arrows apart.
constexpr std::uint64_t kFlowIdsPerWorker = std::uint64_t{1} << 32;
constexpr std::uint64_t kPathFlowIds = std::uint64_t{1} << 60;

// The records of `steps` whose events are written: the first `asked` (0: the whole input), fewer
// where they hold more than `budget` events, and within one step its first events.
struct Chosen {
  RecordSelection records;
  std::size_t steps = 0;  // the steps whose paths are written
  std::string cut;        // what the bound left out; empty: nothing
};

Chosen choose_records(const Profile& p, const AnnotatedSteps& a, std::size_t asked, std::uint64_t budget) {
  Chosen c;
  c.steps = a.steps.size();
  if (asked == 0 && count_records(p, c.records) <= budget) return c;
  auto range = [&](std::size_t k) {
    return RecordSelection{false, a.steps.front().host_start,
                           std::max(a.steps[k - 1].end, a.steps[k - 1].host_end)};
  };
  if (a.steps.empty()) {  // a Neuron profile: its own timeline, no records of these kinds
    c.records = RecordSelection{false, 0, -1};
    return c;
  }
  std::size_t want = asked == 0 ? a.steps.size() : std::min(asked, a.steps.size());
  // The most steps that fit: counts grow with the steps, so a binary search.
  std::size_t lo = 0, hi = want;
  while (lo < hi) {
    std::size_t mid = (lo + hi + 1) / 2;
    if (count_records(p, range(mid)) <= budget)
      lo = mid;
    else
      hi = mid - 1;
  }
  if (lo > 0) {
    c.records = range(lo);
    c.steps = lo;
    if (asked == 0)
      c.cut = fmt::format("the first {} of {} window steps, not every event", lo, a.steps.size());
    else if (lo < want)
      c.cut = fmt::format("{} of {} steps", lo, want);
    return c;
  }
  // One step holds more: its first events, up to the latest time that keeps them within the bound.
  RecordSelection first = range(1);
  TimeNs low = first.from, high = first.to;
  while (low < high) {
    TimeNs mid = low + (high - low + 1) / 2;
    if (count_records(p, {false, first.from, mid}) <= budget)
      low = mid;
    else
      high = mid - 1;
  }
  c.records = {false, first.from, low};
  c.steps = 0;
  c.cut = fmt::format("the first {:.3f} ms of {}", static_cast<double>(low - first.from) / 1e6,
                      a.steps.front().name);
  return c;
}

class TraceFile {
 public:
  TraceFile(const ReportModel& report, const AnnotatedTraceArgs& args, std::size_t workers,
            const std::function<void(std::string_view)>& sink)
      : report_(report), args_(args), out_(0, sink) {
    budget_ = args.max_events / std::max<std::size_t>(workers, 1);
  }

  void add(const Profile& p, const AnnotatedSteps& a) {
    if (workers_ == 0) begin(&p);
    Chosen chosen = choose_records(p, a, args_.steps, budget_);
    if (!chosen.cut.empty()) cuts_.push_back(fmt::format("{}: {}", p.worker, chosen.cut));
    auto w = static_cast<std::int64_t>(workers_);
    GpuLanes lanes{w == 0 ? 0 : kGpuPidBase + (w - 1) * kGpuPidsPerWorker, workers_ * kFlowIdsPerWorker};
    std::int64_t own = kPerfgatePid - w;
    lane_names(p, chosen.records, lanes, own);
    records_ += write_records(out_, p, chosen.records, lanes);
    for (std::size_t i = 0; i < a.steps.size(); ++i) {
      const AnnotatedStep& s = a.steps[i];
      if (!chosen.records.holds(s.start, s.end)) continue;
      step_slice(s, own);
      if (i < chosen.steps && s.has_path) path(p, s, lanes, own);
    }
    if (a.window_end > a.window_start) {
      window_start_ = std::min(
          window_start_, std::max(a.window_start, chosen.records.all ? a.window_start : chosen.records.from));
      window_end_ = std::max(window_end_,
                             chosen.records.all ? a.window_end : std::min(a.window_end, chosen.records.to));
      for (const AnnotatedStep& s : a.steps)
        if (chosen.records.holds(s.start, s.end)) steps_.push_back({s.name, s.start, own});
    }
    ++workers_;
  }

  // The findings, then the file's end. Returns what the bound left out ("" where nothing).
  std::string finish() {
    if (workers_ == 0) begin(nullptr);
    findings();
    out_.end_array();
    out_.key("displayTimeUnit").value("ms");
    out_.key("otherData").begin_object();
    out_.key("generator").value(fmt::format("perfgate {}", kVersion));
    out_.key("selection")
        .value(args_.steps == 0 ? std::string("every event")
                                : fmt::format("the first {} window steps", args_.steps));
    out_.key("max_events").value(static_cast<std::uint64_t>(args_.max_events));
    out_.key("events").value(records_);
    out_.key("left_out").begin_array();
    for (const std::string& cut : cuts_) out_.value(cut);
    out_.end_array().end_object().end_object();
    out_.flush();
    std::string said;
    for (const std::string& cut : cuts_) said += (said.empty() ? "" : "; ") + cut;
    return said;
  }

 private:
  // The object's start: the first worker's facts as Kineto states them (its GPUs, its rank, its
  // clock's wall time), read back with the trace.
  void begin(const Profile* p) {
    out_.begin_object();
    if (p && !p->devices.empty()) {
      out_.key("deviceProperties").begin_array();
      for (const DeviceInfo& d : p->devices) {
        out_.begin_object().key("id").value(d.id).key("name").value(d.name);
        out_.key("computeMajor").value(d.compute_major).key("computeMinor").value(d.compute_minor);
        out_.key("totalGlobalMem").value(d.total_memory_bytes).key("numSms").value(d.sm_count).end_object();
      }
      out_.end_array();
    }
    if (p && (p->info.rank || p->info.world_size)) {
      out_.key("distributedInfo").begin_object();
      if (p->info.rank) out_.key("rank").value(*p->info.rank);
      if (p->info.world_size) out_.key("world_size").value(*p->info.world_size);
      if (!p->info.distributed_backend.empty()) out_.key("backend").value(p->info.distributed_backend);
      out_.end_object();
    }
    if (p && p->info.base_time_ns) out_.key("baseTimeNanoseconds").value(*p->info.base_time_ns);
    out_.key("traceEvents").begin_array();
  }

  void metadata(const char* name, std::int64_t pid, std::optional<std::int64_t> tid, std::string_view value) {
    out_.begin_object().key("ph").value("M").key("name").value(name).key("pid").value(pid);
    if (tid) out_.key("tid").value(*tid);
    out_.key("args").begin_object().key("name").value(value).end_object().end_object();
  }
  void sort_index(const char* name, std::int64_t pid, std::optional<std::int64_t> tid, std::int64_t index) {
    out_.begin_object().key("ph").value("M").key("name").value(name).key("pid").value(pid);
    if (tid) out_.key("tid").value(*tid);
    out_.key("args").begin_object().key("sort_index").value(index).end_object().end_object();
  }

  // The lanes named in the capture's words: the host's processes and threads as the trace named
  // them, each GPU by its number and model, each stream, and perfgate's tracks.
  void lane_names(const Profile& p, const RecordSelection& records, const GpuLanes& lanes, std::int64_t own) {
    std::string prefix = workers_ > 0 || report_.workers.size() > 1 ? p.worker + " " : "";
    // The threads whose ranges or launches are written (Kineto also names its GPU lanes as threads).
    std::vector<bool> used(p.threads.size(), false);
    for (const HostEvent& e : p.host_events)
      if (e.thread < used.size() && records.holds(e.start, e.end)) used[e.thread] = true;
    for (const RuntimeCall& r : p.runtime_calls)
      if (r.thread < used.size() && records.holds(r.start, r.end)) used[r.thread] = true;
    std::set<std::int64_t> pids;
    for (std::size_t i = 0; i < p.threads.size(); ++i) {
      const ThreadInfo& t = p.threads[i];
      if (!used[i]) continue;
      if (pids.insert(t.pid).second)
        metadata("process_name", t.pid, std::nullopt, fmt::format("{}host {}", prefix, t.pid));
      if (t.name != kNoString) metadata("thread_name", t.pid, t.tid, p.str(t.name));
    }
    std::set<std::pair<std::int32_t, std::uint32_t>> streams;
    for (const GpuActivity& g : p.gpu_activities)
      if (records.holds(g.start, g.end)) streams.insert({g.device, g.stream});
    std::set<std::int32_t> devices;
    for (const auto& [device, stream] : streams) {
      if (devices.insert(device).second) {
        const DeviceInfo* info = p.device(device);
        std::string name = in_capture_terms(fmt::format("GPU {}", device), report_.terms);
        if (info && !info->name.empty()) name += " " + info->name;
        metadata("process_name", lanes.pid(device), std::nullopt, prefix + name);
      }
      metadata("thread_name", lanes.pid(device), stream, fmt::format("stream {}", stream));
    }
    metadata("process_name", own, std::nullopt, "perfgate " + p.worker);
    sort_index("process_sort_index", own, std::nullopt, -1);
    metadata("thread_name", own, kStepsTrack, "Steps");
    metadata("thread_name", own, kPathTrack, "Critical path");
    metadata("thread_name", own, kFindingsTrack, "Findings");
    for (std::int64_t t : {kStepsTrack, kPathTrack, kFindingsTrack})
      sort_index("thread_sort_index", own, t, t);
  }

  void slice(const char* cat, std::string_view name, std::int64_t pid, std::int64_t tid, TimeNs start,
             TimeNs end) {
    out_.begin_object().key("ph").value("X").key("cat").value(cat).key("name").value(name);
    out_.key("pid").value(pid).key("tid").value(tid);
    out_.key("ts").json(kineto_time(start)).key("dur").json(kineto_time(std::max<TimeNs>(end - start, 0)));
  }

  void step_slice(const AnnotatedStep& s, std::int64_t own) {
    slice("perfgate.step", s.name, own, kStepsTrack, s.start, s.end);
    out_.key("args").begin_object();
    out_.key("step_time_us").value(static_cast<double>(s.end - s.start) / 1e3);
    if (s.has_path) out_.key("critical_path_us").value(static_cast<double>(s.path_length) / 1e3);
    out_.key("host_start_us")
        .json(kineto_time(s.host_start))
        .key("host_end_us")
        .json(kineto_time(s.host_end));
    out_.end_object().end_object();
  }

  struct Lane {
    std::int64_t pid = 0, tid = 0;
    TimeNs start = 0, end = 0;
    std::string_view name;
  };
  static Lane lane_of(const Profile& p, const PathStretchEvent& e, const GpuLanes& lanes) {
    auto thread = [&](std::uint32_t t) { return t < p.threads.size() ? p.threads[t] : ThreadInfo{}; };
    switch (e.record) {
      case PathRecord::HostEvent: {
        const HostEvent& h = p.host_events[e.index];
        ThreadInfo t = thread(h.thread);
        return {t.pid, t.tid, h.start, h.end, p.str(h.name)};
      }
      case PathRecord::RuntimeCall: {
        const RuntimeCall& r = p.runtime_calls[e.index];
        ThreadInfo t = thread(r.thread);
        return {t.pid, t.tid, r.start, r.end, p.str(r.name)};
      }
      case PathRecord::GpuActivity:
        break;
    }
    const GpuActivity& g = p.gpu_activities[e.index];
    return {lanes.pid(g.device), g.stream, g.start, g.end, p.str(g.name)};
  }

  // The step's path: its stretches on the path track, and an arrow from each event on it to the
  // next (flow events bound to the slices that enclose their times, on the events' own lanes).
  void path(const Profile& p, const AnnotatedStep& s, const GpuLanes& lanes, std::int64_t own) {
    const PathStretchEvent* previous = nullptr;
    Lane from;
    for (const PathStretchEvent& e : s.path) {
      Lane to = lane_of(p, e, lanes);
      if (e.time > 0) {
        slice("perfgate.critical_path", to.name, own, kPathTrack, e.start, e.start + e.time);
        out_.key("args").begin_object().key("bound").value(path_bound_name(e.bound));
        out_.key("step").value(s.name).key("on_path_us").value(static_cast<double>(e.time) / 1e3);
        out_.end_object().end_object();
      }
      bool same = previous && previous->record == e.record && previous->index == e.index;
      if (previous && !same) {
        std::uint64_t id = kPathFlowIds + ++flows_;
        flow("s", id, from, std::clamp(previous->start, from.start, from.end));
        flow("f", id, to, std::clamp(e.start, to.start, to.end));
      }
      if (!same) {
        previous = &e;
        from = to;
      }
    }
  }

  void flow(const char* ph, std::uint64_t id, const Lane& lane, TimeNs at) {
    out_.begin_object()
        .key("ph")
        .value(ph)
        .key("cat")
        .value("perfgate.critical_path")
        .key("name")
        .value("critical path");
    out_.key("id").value(id).key("pid").value(lane.pid).key("tid").value(lane.tid).key("ts").json(
        kineto_time(at));
    if (std::string_view(ph) == "f") out_.key("bp").value("e");
    out_.end_object();
  }

  // Each finding that fired (or could not be decided) as a slice over the window its metric was
  // computed on, on the findings track of the first worker written; a finding that names steps
  // (its offenders, the step-time test's outlier steps) also as an instant at each.
  void findings() {
    if (workers_ == 0 || window_end_ <= window_start_) return;
    std::int64_t own = kPerfgatePid;
    for (const ReportFinding& f : report_.findings) {
      if (f.status != FindingStatus::Warn && f.status != FindingStatus::Fail &&
          f.status != FindingStatus::Inconclusive)
        continue;
      std::string name = fmt::format("{}: {}", f.id, f.title);
      slice("perfgate.finding", name, own, kFindingsTrack, window_start_, window_end_);
      finding_args(f);
      out_.end_object();
      std::vector<std::string> named;
      for (const ReportOffender& o : f.offenders) named.push_back(o.label);
      if (f.step_test)
        named.insert(named.end(), f.step_test->outlier_steps.begin(), f.step_test->outlier_steps.end());
      for (const NamedStep& s : steps_) {
        if (std::find(named.begin(), named.end(), s.name) == named.end()) continue;
        out_.begin_object().key("ph").value("i").key("s").value("t").key("cat").value("perfgate.finding");
        out_.key("name").value(name).key("pid").value(s.pid).key("tid").value(kFindingsTrack);
        out_.key("ts").json(kineto_time(s.start));
        out_.key("args").begin_object().key("step").value(s.name).end_object().end_object();
      }
    }
  }

  void finding_args(const ReportFinding& f) {
    out_.key("args").begin_object();
    out_.key("status").value(finding_status_name(f.status)).key("severity").value(f.severity);
    out_.key("metric").value(f.metric);
    if (f.value) out_.key("value").value(*f.value);
    if (!f.unit.empty()) out_.key("unit").value(f.unit);
    if (!f.threshold_text.empty()) out_.key("threshold").value(f.threshold_text);
    if (!f.problem.empty()) out_.key("problem").value(f.problem);
    if (!f.reason.empty()) out_.key("reason").value(f.reason);
    if (!f.recommendation.empty()) out_.key("recommendation").value(f.recommendation);
    if (f.gain_pct) out_.key("gain_pct").value(*f.gain_pct);
    if (!f.offenders.empty()) {
      out_.key("offenders").begin_array();
      for (const ReportOffender& o : f.offenders)
        out_.begin_object().key("label").value(o.label).key("value").value(o.value_text).end_object();
      out_.end_array();
    }
    if (!f.docs.empty()) out_.key("docs").value(f.docs);
    out_.end_object();
  }

  struct NamedStep {
    std::string name;
    TimeNs start = 0;
    std::int64_t pid = 0;
  };

  const ReportModel& report_;
  const AnnotatedTraceArgs& args_;
  JsonWriter out_;
  std::uint64_t budget_ = 0;
  std::size_t workers_ = 0;
  std::uint64_t records_ = 0;
  std::uint64_t flows_ = 0;
  TimeNs window_start_ = std::numeric_limits<TimeNs>::max();
  TimeNs window_end_ = std::numeric_limits<TimeNs>::min();
  std::vector<NamedStep> steps_;
  std::vector<std::string> cuts_;
};

}  // namespace

void add_annotated_trace_options(CLI::App& command, AnnotatedTraceArgs& a) {
  add_options_apart(command, [&a](CLI::App& cmd) {  // cli/commands.h
    cmd.add_option("--annotated-trace", a.path,
                   "Write the run's timeline as a Chrome/Perfetto JSON trace to FILE (open it in "
                   "ui.perfetto.dev): the events of the workers the report details, with the steps, the "
                   "critical path (a track and flow arrows) and the findings on tracks of their own")
        ->type_name("FILE")
        ->check(non_empty_path);
    cmd.add_option("--annotated-trace-steps", a.steps,
                   "The window steps whose events and critical paths the annotated trace holds: the first N "
                   "(default 3); 0: every event of the input and every step's path")
        ->type_name("N")
        ->check(whole_number(0, 1'000'000));
    cmd.add_option(
           "--annotated-trace-max-events", a.max_events,
           "The most of the input's events the annotated trace holds (default 1000000), shared by its "
           "workers: past it, fewer steps (the trace says which)")
        ->type_name("N")
        ->check(whole_number(1, 1'000'000'000));
  });
}

bool annotated_worker(const ReportModel& report, const std::string& input, const std::string& worker) {
  for (const ReportWorker& w : report.workers)
    if (w.detailed && w.input_path == input && (worker.empty() || w.name == worker)) return true;
  return false;
}

std::string write_annotated_trace(const PreparedRun& run, const ReportModel& report,
                                  const AnnotatedTraceArgs& args) {
  std::size_t workers = 0;
  for (const ReportWorker& w : report.workers) workers += w.detailed;
  std::string said;
  write_file_atomically(args.path, [&](const std::function<void(std::string_view)>& write) {
    TraceFile file(report, args, workers, write);
    for_each_annotated_profile(
        run, args.steps,
        [&](const std::string& input, const std::string& worker) {
          return annotated_worker(report, input, worker);
        },
        [&](const Profile& p, const AnnotatedSteps& a) { file.add(p, a); });
    said = file.finish();
  });
  if (said.empty()) return "";
  return fmt::format("perfgate: note: {} holds {} (--annotated-trace-max-events {})\n", args.path, said,
                     args.max_events);
}

std::string relative_link(const std::string& page, const std::string& target) {
  std::error_code ec;
  fs::path folder = fs::absolute(page, ec).parent_path().lexically_normal();
  fs::path to = fs::absolute(target, ec).lexically_normal();
  fs::path relative = to.lexically_relative(folder);
  std::string text = (relative.empty() ? to : relative).generic_string();
  std::string link;
  for (unsigned char c : text) {
    bool plain = std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/';
    link += plain ? std::string(1, static_cast<char>(c)) : fmt::format("%{:02X}", c);
  }
  return link;
}

}  // namespace perfgate::cli
