#include "analyse/steps/steps.h"

#include <re2/re2.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <memory>
#include <mutex>

#include <fmt/format.h>
#include <boost/container/small_vector.hpp>

#include "analyse/run/worker_hold.h"
#include "analyse/steps/inferred.h"
#include "common/errors.h"

namespace perfgate {
namespace {

constexpr TimeNs kNoTime = std::numeric_limits<TimeNs>::max();

bool is_step_marker_kind(const HostEvent& e) {
  return e.kind != HostKind::PythonFunction;
}

// The compiled pattern, shared by every worker that asks for the same one: compiling a step
// pattern costs ~50,000 instructions, more than analysing a rank of a few events (issue 78). The
// patterns come from the rules and options, so few; the cache is emptied if a long-lived process
// (the MCP server) is handed more.
std::shared_ptr<const RE2> compile(const std::string& pattern, std::string_view option) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const RE2>, std::less<>> compiled;
  constexpr std::size_t kMostKept = 64;
  {
    std::lock_guard lock(mutex);
    auto it = compiled.find(pattern);
    if (it != compiled.end()) return it->second;
  }
  RE2::Options options;
  options.set_log_errors(false);
  auto re = std::make_shared<const RE2>(pattern, options);
  if (!re->ok()) throw ConfigError(fmt::format("invalid {} pattern '{}': {}", option, pattern, re->error()));
  std::lock_guard lock(mutex);
  if (compiled.size() >= kMostKept) compiled.clear();
  compiled.emplace(pattern, re);
  return re;
}

// The step number a matching name carries: its first non-empty capture group that is a number.
std::optional<std::int64_t> step_number(std::string_view name, const RE2& re) {
  int groups = re.NumberOfCapturingGroups();
  if (groups <= 0) return std::nullopt;
  boost::container::small_vector<re2::StringPiece, 8> pieces(static_cast<std::size_t>(groups) + 1);
  if (!re.Match(name, 0, name.size(), RE2::ANCHOR_BOTH, pieces.data(), groups + 1)) return std::nullopt;
  for (int g = 1; g <= groups; ++g) {
    const re2::StringPiece& piece = pieces[static_cast<std::size_t>(g)];
    std::int64_t n = 0;
    auto [p, ec] = std::from_chars(piece.data(), piece.data() + piece.size(), n);
    if (!piece.empty() && ec == std::errc() && p == piece.data() + piece.size()) return n;
  }
  return std::nullopt;
}

// Whether a name matches the pattern (whole, or anywhere in it), decided once per name: the host
// events (24,000 in ResNet-50) share a few hundred names.
class MatchByName {
 public:
  MatchByName(const Profile& p, const RE2& re, RE2::Anchor anchor)
      : p_(p), re_(re), anchor_(anchor), known_(p.strings.size(), kUnknown) {}
  bool operator()(StringId name) {
    if (name >= known_.size()) return match(name);
    if (known_[name] == kUnknown) known_[name] = match(name) ? kYes : kNo;
    return known_[name] == kYes;
  }

 private:
  static constexpr signed char kUnknown = 0, kNo = 1, kYes = 2;
  bool match(StringId name) const {
    std::string_view text = p_.str(name);
    return re_.Match(text, 0, text.size(), anchor_, nullptr, 0);
  }
  const Profile& p_;
  const RE2& re_;
  RE2::Anchor anchor_;
  std::vector<signed char> known_;
};

// Ranges whose whole name matches the pattern, each a step (ProfilerStep#N by default).
std::vector<Step> named_steps(const Profile& p, const RE2& re, std::vector<std::uint32_t>& markers) {
  std::vector<Step> steps;
  RowHold hold(steps, [](Step& s) { s.name = std::string(s.name); });  // kept to the report
  MatchByName matches(p, re, RE2::ANCHOR_BOTH);
  for (std::uint32_t i = 0; i < p.host_events.size(); ++i) {
    const HostEvent& e = p.host_events[i];
    if (!is_step_marker_kind(e) || !matches(e.name)) continue;
    markers.push_back(i);
    Step s;
    s.name = std::string(p.str(e.name));
    s.number = step_number(s.name, re);
    s.host_start = e.start;
    s.host_end = e.end;
    steps.push_back(std::move(s));
    hold.added();
  }
  hold.finish();
  auto by_start = [](const Step& a, const Step& b) { return a.host_start < b.host_start; };
  // Ranges come in start order on each thread: sorted already, no buffer for a stable sort.
  if (!std::is_sorted(steps.begin(), steps.end(), by_start))
    std::stable_sort(steps.begin(), steps.end(), by_start);
  // Names without a number are numbered by their order.
  for (std::size_t k = 0; k < steps.size(); ++k)
    if (!steps[k].number) steps[k].number = static_cast<std::int64_t>(k);
  return steps;
}

// DLProf's key node: each start of a matching op opens a step that lasts until the next start;
// the last lasts until its op ends. A match nested in the previous one is not a new step.
std::vector<Step> key_op_steps(const Profile& p, const std::string& pattern,
                               std::vector<std::uint32_t>& markers) {
  std::shared_ptr<const RE2> compiled = compile(pattern, "--key-op");
  const RE2& re = *compiled;
  std::vector<const HostEvent*> matches;
  MatchByName matching(p, re, RE2::UNANCHORED);
  for (const HostEvent& e : p.host_events)
    if (is_step_marker_kind(e) && matching(e.name)) matches.push_back(&e);
  for (const HostEvent* e : matches) markers.push_back(static_cast<std::uint32_t>(e - p.host_events.data()));
  std::stable_sort(matches.begin(), matches.end(),
                   [](const HostEvent* a, const HostEvent* b) { return a->start < b->start; });

  std::vector<Step> steps;
  TimeNs previous_end = std::numeric_limits<TimeNs>::min();
  for (const HostEvent* e : matches) {
    if (e->start < previous_end) continue;
    previous_end = e->end;
    if (!steps.empty()) steps.back().host_end = e->start;
    Step s;
    s.number = static_cast<std::int64_t>(steps.size());
    s.name = fmt::format("{} #{}", p.str(e->name), steps.size());
    s.host_start = e->start;
    s.host_end = e->end;
    steps.push_back(std::move(s));
  }
  return steps;
}

struct DeviceSpans {
  std::vector<TimeNs> first_start;  // per step, kNoTime when it launched nothing
  std::vector<TimeNs> last_end;
  std::vector<bool> matched;  // per GPU activity: launched inside some step
};

// Runtime calls lying wholly inside a step's host span contribute their GPU activities to it
// (a two-way merge of steps and calls, both sorted by start).
DeviceSpans device_spans(const Profile& p, const Attribution& a, std::vector<Step>& steps) {
  DeviceSpans d;
  d.first_start.assign(steps.size(), kNoTime);
  d.last_end.assign(steps.size(), std::numeric_limits<TimeNs>::min());
  d.matched.assign(p.gpu_activities.size(), false);
  std::size_t s = 0, r = 0;
  const auto& calls = p.runtime_calls;
  while (s < steps.size() && r < calls.size()) {
    const RuntimeCall& call = calls[r];
    if (call.start < steps[s].host_start) {
      ++r;
    } else if (call.end <= steps[s].host_end) {
      for (std::uint32_t act : a.launched_by(r)) {
        d.first_start[s] = std::min(d.first_start[s], p.gpu_activities[act].start);
        d.last_end[s] = std::max(d.last_end[s], p.gpu_activities[act].end);
        d.matched[act] = true;
        ++steps[s].gpu_activities;
      }
      ++r;
    } else if (call.start < steps[s].host_end) {
      ++r;  // straddles the step's end
    } else {
      ++s;
    }
  }
  return d;
}

// The first step starts no earlier than the end of GPU work launched before it (still running).
TimeNs first_step_floor(const Profile& p, const DeviceSpans& d, const std::vector<Step>& steps) {
  TimeNs floor = steps.front().host_start;
  if (d.first_start.front() == kNoTime) return floor;
  for (std::size_t i = 0; i < p.gpu_activities.size(); ++i) {
    const GpuActivity& act = p.gpu_activities[i];
    if (!d.matched[i] && act.end < d.first_start.front()) floor = std::max(floor, act.end);
  }
  return floor;
}

void extend_to_device(const Profile& p, const DeviceSpans& d, std::vector<Step>& steps) {
  TimeNs previous_end = first_step_floor(p, d, steps);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    Step& s = steps[i];
    s.start = std::max(previous_end, s.host_start);
    s.end = d.first_start[i] == kNoTime ? std::max(s.host_end, s.start) : std::max(s.host_end, d.last_end[i]);
    s.end = std::max(s.end, s.start);
    if (d.first_start[i] != kNoTime) {
      s.gpu_first_start = d.first_start[i];
      s.gpu_last_end = d.last_end[i];
    }
    previous_end = s.end;
  }
}

void drop_cut_off_tail(StepDetection& det) {
  auto& steps = det.steps;
  if (steps.size() < 2) return;
  std::size_t last = steps.size();
  while (last > 0 && steps[last - 1].gpu_activities == 0) --last;
  if (last == 0) return;
  std::size_t keep = last;
  std::size_t i = last - 1;
  bool cut_off = i > 0 && steps[i - 1].gpu_activities * 0.8 > steps[i].gpu_activities;
  if (cut_off) keep = i;
  for (std::size_t k = keep; k < steps.size(); ++k) {
    std::string reason =
        k == i && cut_off
            ? fmt::format(
                  "launched {} GPU activities against {} in the step before it: profiling stopped before all "
                  "its GPU work was captured",
                  steps[k].gpu_activities, steps[k - 1].gpu_activities)
            : std::string(
                  "trailing step that launched no GPU work: profiling stopped before its GPU work was "
                  "captured");
    det.dropped.push_back({steps[k].name, std::move(reason)});
  }
  steps.resize(keep);
}

void whole_trace_span(const Profile& p, StepDetection& det) {
  TimeNs lo = kNoTime, hi = std::numeric_limits<TimeNs>::min();
  auto widen = [&](TimeNs s, TimeNs e) {
    lo = std::min(lo, s);
    hi = std::max(hi, e);
  };
  // As the plugin: the CPU ops' span; failing that, any host range, then the CUDA calls and GPU
  // activity (an nsys export without NVTX), then the allocator samples.
  for (const HostEvent& e : p.host_events)
    if (e.kind == HostKind::Op) widen(e.start, e.end);
  if (lo == kNoTime)
    for (const HostEvent& e : p.host_events) widen(e.start, e.end);
  if (lo == kNoTime) {
    for (const RuntimeCall& r : p.runtime_calls) widen(r.start, r.end);
    for (const GpuActivity& a : p.gpu_activities) widen(a.start, a.end);
  }
  // Nothing but allocator samples (a PyTorch memory snapshot): their span, so that the memory
  // curve covers the recorded trace.
  if (lo == kNoTime)
    for (const MemorySample& m : p.memory_samples) widen(m.time, m.time);
  if (lo == kNoTime) lo = hi = 0;
  det.whole_trace_start = lo;
  det.whole_trace_end = hi;
}

// The inferred units as steps (--step-pattern inferred): each from its opening range's start to
// the next one's, as a key op's.
std::vector<Step> inferred_steps(const InferredIterations& inferred) {
  std::vector<Step> steps;
  for (const InferredUnit& u : inferred.units) {
    Step s;
    s.number = static_cast<std::int64_t>(steps.size());
    s.name = fmt::format("{} (inferred #{})", u.name, steps.size());
    s.host_start = u.start;
    s.host_end = u.end;
    steps.push_back(std::move(s));
  }
  return steps;
}

// The rules' list the format's step ranges come from, as a message names it.
const char* step_ranges_key(StepMarking marking) {
  switch (marking) {
    case StepMarking::NvtxRanges:
      return "nvtx_step_ranges";
    case StepMarking::XSpaceAnnotations:
      return "xspace_step_ranges";
    case StepMarking::ProfilerStepRanges:
      break;
  }
  return "profiler_step_ranges";
}

}  // namespace

// Without steps, the plugin's single window: the CPU ops' span, extended like a step to the end
// of the GPU work launched inside it.
void whole_trace_window(const Profile& p, const Attribution& a, StepDetection& det) {
  whole_trace_span(p, det);
  std::vector<Step> pseudo(1);
  pseudo[0].host_start = det.whole_trace_start;
  pseudo[0].host_end = det.whole_trace_end;
  det.whole_trace_host_start = det.whole_trace_start;
  DeviceSpans spans = device_spans(p, a, pseudo);
  if (std::find(spans.matched.begin(), spans.matched.end(), true) != spans.matched.end()) {
    extend_to_device(p, spans, pseudo);
    det.whole_trace_start = pseudo[0].start;
    det.whole_trace_end = pseudo[0].end;
  }
  // The whole capture: CUDA calls and GPU work outside the ops' span (before the first op, or
  // launched before a cut window began) are counted and shown, never dropped; also where the host
  // ranges launched nothing (an nsys export whose NVTX ranges hold no launch was cut to their span).
  if (!p.info.window_spans_capture) return;
  for (const RuntimeCall& r : p.runtime_calls) {
    det.whole_trace_start = std::min(det.whole_trace_start, r.start);
    det.whole_trace_end = std::max(det.whole_trace_end, r.end);
  }
  for (const GpuActivity& g : p.gpu_activities) {
    det.whole_trace_start = std::min(det.whole_trace_start, g.start);
    det.whole_trace_end = std::max(det.whole_trace_end, g.end);
  }
  // From the capture's own start where the export records it (nsys: "Profiling has started."), as
  // DLProf's wall clock: the time before the first recorded event is the window's too (issue 53).
  if (p.info.profiler_end > p.info.profiler_start)
    det.whole_trace_start = std::min(det.whole_trace_start, p.info.profiler_start);
}

StepDetection detect_steps(const Profile& p, const Attribution& a, const CompiledClassification& rules,
                           const AnalysisOptions& options, std::vector<Note>& warnings) {
  StepDetection det;
  const std::string& key_op = options.key_op;
  bool inferred = options.step_pattern == kInferredStepPattern && key_op.empty();
  bool by_rules = options.step_pattern.empty();
  const std::string& pattern = by_rules ? rules.step_ranges(p.info.step_marking) : options.step_pattern;
  if (!key_op.empty()) {
    det.steps = key_op_steps(p, key_op, det.marker_events);
  } else if (inferred) {
    det.inferred = infer_iterations(p, a);
    if (det.inferred) det.steps = inferred_steps(*det.inferred);
  } else if (!pattern.empty()) {  // an empty list in the rules: no range is a step
    const char* option = !by_rules ? "--step-pattern" : step_ranges_key(p.info.step_marking);
    std::shared_ptr<const RE2> re = compile(pattern, option);
    det.steps = named_steps(p, *re, det.marker_events);
  }
  bool serving = false;
  if (det.steps.empty() && key_op.empty() && by_rules && !inferred) {
    for (const std::string& serving_pattern : rules.serving_step_ranges) {
      std::shared_ptr<const RE2> re = compile(serving_pattern, "serving_step_ranges");
      det.steps = named_steps(p, *re, det.marker_events);
      if ((serving = !det.steps.empty())) break;
    }
  }
  if (det.steps.empty()) {
    if (!key_op.empty()) warnings.push_back(note<NoteId::steps_key_op_unmatched>(arg<"key_op">(key_op)));
    if (inferred)
      warnings.push_back(note<NoteId::steps_inferred_none>());
    else if (key_op.empty())
      det.inferred = infer_iterations(p, a);
    whole_trace_window(p, a, det);
    return det;
  }
  // "profiler-step": the steps the profiler itself marks, by the rules' profiler_step_ranges
  // (Kineto's ProfilerStep#N by default, also where --step-pattern names the same pattern) or
  // xspace_step_ranges (JAX's and TensorFlow's step annotations); any other pattern is "step-pattern".
  bool own_steps = pattern == rules.profiler_step_ranges ||
                   (by_rules && p.info.step_marking == StepMarking::XSpaceAnnotations);
  det.source = !key_op.empty()         ? StepSource::KeyOp
               : inferred              ? StepSource::Inferred
               : own_steps && !serving ? StepSource::ProfilerStep
                                       : StepSource::StepPattern;
  DeviceSpans spans = device_spans(p, a, det.steps);
  bool uses_gpu = std::find(spans.matched.begin(), spans.matched.end(), true) != spans.matched.end();
  if (!uses_gpu) {
    for (Step& s : det.steps) {
      s.start = s.host_start;
      s.end = s.host_end;
    }
    return det;
  }
  extend_to_device(p, spans, det.steps);
  drop_cut_off_tail(det);
  return det;
}

}  // namespace perfgate
