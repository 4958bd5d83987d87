#include "analyse/ops/warmup.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

namespace perfgate {
namespace {

// A runtime call at least this many times the median of its name (and at least kOutlierMinNs, of a
// name called kOutlierMinCalls times or more) is a one-off, not the call's steady cost: a lazy module
// load inside a first launch (CUDA_MODULE_LOADING=LAZY loads each module at its first use) took
// 629.6 ms of cudaLaunchKernel calls of 5 us (issue 72).
constexpr TimeNs kOutlierFactor = 10;
constexpr TimeNs kOutlierMinNs = 1'000'000;
constexpr std::size_t kOutlierMinCalls = 5;

TimeNs within_spans(Interval r, const std::vector<Interval>& spans) {
  TimeNs t = 0;
  for (Interval s : spans) t += overlap(r, s);
  return t;
}

// The least duration that makes a kernel launch of a name an outlier. Only launches of kernels are
// judged: a copy or a free that waits for queued GPU work (a100_80g_5steps: a 146.9 ms
// cudaMemcpyAsync) or a synchronising call is the steady state's, not a one-off. Only the names
// whose longest launch reaches kOutlierMinNs (few: launches take microseconds) keep their
// durations for a median; and only the first launch of a kernel is a one-off (a module loads at
// its first kernel's first launch), so that a launch held up by a full launch queue is not one.
class OutlierBounds {
 public:
  OutlierBounds(const Profile& p, const Attribution& a, NameClasses& classes)
      : launches_(p.runtime_calls.size(), false), first_launch_(p.runtime_calls.size(), false) {
    std::unordered_set<StringId> launched;
    for (std::size_t i = 0; i < p.gpu_activities.size(); ++i)
      if (p.gpu_activities[i].kind == GpuActivityKind::Kernel && a.activity_runtime[i] != kNone) {
        launches_[a.activity_runtime[i]] = true;
        if (launched.insert(p.gpu_activities[i].name).second) first_launch_[a.activity_runtime[i]] = true;
      }
    StringId top = 0;
    for (const RuntimeCall& c : p.runtime_calls) top = std::max(top, c.name);
    longest_.assign(p.runtime_calls.empty() ? 0 : top + 1, 0);
    for (std::size_t r = 0; r < p.runtime_calls.size(); ++r)
      if (launches_[r])
        longest_[p.runtime_calls[r].name] =
            std::max(longest_[p.runtime_calls[r].name], p.runtime_calls[r].end - p.runtime_calls[r].start);
    std::unordered_map<StringId, std::vector<TimeNs>> durations;
    for (std::size_t r = 0; r < p.runtime_calls.size(); ++r) {
      const RuntimeCall& c = p.runtime_calls[r];
      if (launches_[r] && longest_[c.name] >= kOutlierMinNs && !classes.sync_call(c.name) &&
          !classes.warmup_call(c.name))
        durations[c.name].push_back(c.end - c.start);
    }
    for (auto& [name, d] : durations) {
      if (d.size() < kOutlierMinCalls) continue;
      auto middle = d.begin() + static_cast<std::ptrdiff_t>(d.size() / 2);
      std::nth_element(d.begin(), middle, d.end());
      bound_[name] = std::max(kOutlierMinNs, *middle * kOutlierFactor);
    }
  }
  bool outlier(std::size_t r, const RuntimeCall& c) const {
    if (bound_.empty() || !first_launch_[r] || longest_[c.name] < kOutlierMinNs) return false;
    auto it = bound_.find(c.name);
    return it != bound_.end() && c.end - c.start >= it->second;
  }

 private:
  std::vector<bool> launches_;      // per runtime call: it launched a kernel
  std::vector<bool> first_launch_;  // per runtime call: it launched a kernel first launched then
  std::vector<TimeNs> longest_;
  std::unordered_map<StringId, TimeNs> bound_;
};

// A copy call of the first step at least kOutlierFactor times its name's median (and at least
// kOutlierMinNs, of a name called kOutlierMinCalls times or more) while its device ran almost
// nothing, the copy itself included, is set-up: the first copy of a process waits for the context and its
// pinned staging buffers (rocprof: a first 24-byte hipMemcpy of 275 ms; issue 89). A copy that waits for
// queued device work (a100_80g_5steps: a 146.9 ms cudaMemcpyAsync) keeps the device busy and is
// the steady state's. Few calls reach kOutlierMinNs: the durations of the rest are never kept.
std::vector<std::size_t> first_step_copy_outliers(const Profile& p, const Attribution& a,
                                                  Interval first_step) {
  std::vector<std::size_t> out;
  std::vector<std::size_t> candidates;  // activity indices
  for (std::size_t i = 0; i < p.gpu_activities.size(); ++i) {
    std::uint32_t r = a.activity_runtime[i];
    if (p.gpu_activities[i].kind != GpuActivityKind::Memcpy || r == kNone) continue;
    const RuntimeCall& c = p.runtime_calls[r];
    if (c.end - c.start >= kOutlierMinNs && overlap({c.start, c.end}, first_step) > 0)
      candidates.push_back(i);
  }
  if (candidates.empty()) return out;
  std::unordered_map<StringId, std::vector<TimeNs>> durations;
  for (std::size_t i : candidates) durations[p.runtime_calls[a.activity_runtime[i]].name];
  for (std::size_t i = 0; i < p.gpu_activities.size(); ++i) {
    std::uint32_t r = a.activity_runtime[i];
    if (p.gpu_activities[i].kind != GpuActivityKind::Memcpy || r == kNone) continue;
    auto it = durations.find(p.runtime_calls[r].name);
    if (it != durations.end()) it->second.push_back(p.runtime_calls[r].end - p.runtime_calls[r].start);
  }
  std::unordered_map<StringId, TimeNs> bound;
  for (auto& [name, d] : durations) {
    if (d.size() < kOutlierMinCalls) continue;
    auto middle = d.begin() + static_cast<std::ptrdiff_t>(d.size() / 2);
    std::nth_element(d.begin(), middle, d.end());
    bound[name] = std::max(kOutlierMinNs, *middle * kOutlierFactor);
  }
  for (std::size_t i : candidates) {
    std::uint32_t r = a.activity_runtime[i];
    const RuntimeCall& c = p.runtime_calls[r];
    auto it = bound.find(c.name);
    if (it == bound.end() || c.end - c.start < it->second) continue;
    // The device's work during the call, its own copy too: a tenth of it or more, and the call
    // waited for that work (a100_alexnet: a 34.9 ms cudaMemcpyAsync whose copy ran 34.7 ms of it).
    // Work launched before the call and not started when it began was queued: the copy waited for
    // it, and the wait is the queue's, not set-up (sglang_prefilldecode: a 60 B hipMemcpyWithStream
    // held the host 493.2 ms behind a kernel launched at 0.12 ms that started at 493 ms).
    IntervalList busy;
    bool queued = false;
    for (std::size_t j = 0; j < p.gpu_activities.size(); ++j) {
      const GpuActivity& g = p.gpu_activities[j];
      if (g.device != p.gpu_activities[i].device) continue;
      if (g.end > c.start && g.start < c.end) busy.push_back({g.start, g.end});
      std::uint32_t launch = a.activity_runtime[j];
      if (j != i && launch != kNone && p.runtime_calls[launch].end <= c.start && g.start > c.start)
        queued = true;
    }
    merge_in_place(busy);
    if (!queued && 10 * length_within(busy, {c.start, c.end}) < c.end - c.start) out.push_back(r);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

class OneOffFinder {
 public:
  OneOffFinder(const std::vector<Interval>& spans, TimeNs host_start)
      : spans_(spans), host_start_(host_start) {}

  // Counts `r` in `kind` where it lies in the window's steps.
  bool add(OneOff& kind, IntervalList& list, Interval r, std::string name) {
    if (within_spans(r, spans_) <= 0) return false;
    list.push_back(r);
    ++kind.count;
    if (r.end - r.start > kind.longest) {
      kind.longest = r.end - r.start;
      kind.name = std::move(name);
      kind.start = r.start - host_start_;
    }
    return true;
  }

  // The union of `list` within the window's steps, added to `all`.
  TimeNs finish(IntervalList& list, IntervalList& all) const {
    merge_in_place(list);
    TimeNs t = 0;
    for (Interval s : spans_) t += length_within(list, s);
    all.insert(all.end(), list.begin(), list.end());
    return t;
  }

 private:
  const std::vector<Interval>& spans_;
  TimeNs host_start_;
};

// Warm-up: the first call of each warm-up call, every JIT-compilation range, and an nsys window's
// start-up before its first recorded event.
IntervalList find_setup(const Profile& p, NameClasses& classes, OneOffFinder& finder, Warmup& out) {
  OneOff setup;
  IntervalList list;
  bool range = false;
  auto consider = [&](Interval r, std::string_view prefix, std::string_view name) {
    TimeNs before = setup.longest;
    if (finder.add(setup, list, r, fmt::format("{}{}", prefix, name)) && setup.longest > before)
      range = prefix == "the range ";
  };
  // Runtime calls are sorted by start: the first of each name is met first.
  std::unordered_set<StringId> seen;
  for (const RuntimeCall& c : p.runtime_calls)
    if (classes.warmup_call(c.name) && seen.insert(c.name).second)
      consider({c.start, c.end}, "the first call of ", p.str(c.name));
  for (const HostEvent& e : p.host_events)
    if (classes.warmup_range(e.name)) consider({e.start, e.end}, "the range ", p.str(e.name));
  // A window from the capture's own start (an nsys export): until its first recorded event the
  // process was starting up (interpreter, imports, libraries), before any CUDA call or range.
  if (p.info.window_spans_capture && p.info.profiler_end > p.info.profiler_start) {
    TimeNs first = kMaxTimeNs;
    if (!p.runtime_calls.empty()) first = std::min(first, p.runtime_calls.front().start);
    if (!p.gpu_activities.empty()) first = std::min(first, p.gpu_activities.front().start);
    if (!p.gpu_syncs.empty()) first = std::min(first, p.gpu_syncs.front().start);
    for (const HostEvent& e : p.host_events) first = std::min(first, e.start);
    if (first != kMaxTimeNs && first > p.info.profiler_start)
      consider({p.info.profiler_start, first}, "the start-up before the first recorded event", "");
  }
  out.name = setup.name;
  out.longest = setup.longest;
  out.start = setup.start;
  out.is_range = range;
  merge_in_place(list);
  return list;
}

// A step is set-up, not steady, where set-up one-offs (warm-up and outlier calls) cover at least
// kSetupStepPermille of it (the first call of cudaMalloc in a steady window takes microseconds) and
// the rest of it is still kSetupStepFactor times the later steps' median: its other work is set-up
// too (cuDNN's benchmark mode, autotuning, lazy initialisation the trace names no call for). A
// step that is long by its one-off alone is steady apart from it (resnet50_v100_workers4: the
// first step, 181.6 ms, holds a 40.0 ms first copy; the rest, 141.6 ms, is 1.12 times the later
// steps' median of 126.3 ms).
constexpr TimeNs kSetupStepPermille = 50;
constexpr TimeNs kSetupStepFactor = 2;

// The steps before the first steady step, where the window's first step is set-up (issue 89: a
// first step that creates the context, its streams and handles, loads modules and tunes its
// kernels is set-up as a whole, its device work too). They end at the steady step's start: its
// own lead-in (loading its input) is the steady state's, as in every later step, and --skip-first
// with their count leaves out exactly them. None in a window of one step, or of no steady step.
std::optional<Interval> setup_steps(const std::vector<Interval>& spans, const IntervalList& setup) {
  if (spans.size() < 2) return std::nullopt;
  std::vector<TimeNs> later;
  later.reserve(spans.size() - 1);
  for (std::size_t k = 1; k < spans.size(); ++k) later.push_back(spans[k].end - spans[k].start);
  auto middle = later.begin() + static_cast<std::ptrdiff_t>(later.size() / 2);
  std::nth_element(later.begin(), middle, later.end());
  const TimeNs median = *middle;
  for (std::size_t k = 0; k < spans.size(); ++k) {
    TimeNs length = spans[k].end - spans[k].start;
    TimeNs one_offs = length_within(setup, spans[k]);
    bool is_setup = length > 0 && 1000 * one_offs >= kSetupStepPermille * length &&
                    length - one_offs >= kSetupStepFactor * median;
    if (is_setup) continue;
    if (k == 0) return std::nullopt;
    return Interval{spans.front().start, spans[k].start};
  }
  return std::nullopt;
}

}  // namespace

Warmup warmup_in_window(const Profile& p, const Attribution& a, NameClasses& classes,
                        const std::vector<Interval>& spans, TimeNs host_start, TimeNs last_gpu_end,
                        IntervalList& one_offs) {
  Warmup out;
  OneOffFinder finder(spans, host_start);
  IntervalList all;
  IntervalList warm = find_setup(p, classes, finder, out);
  IntervalList outliers, teardown, profiler;
  OutlierBounds bounds(p, a, classes);
  std::vector<std::size_t> copies =
      spans.empty() ? std::vector<std::size_t>() : first_step_copy_outliers(p, a, spans.front());
  for (std::size_t r = 0; r < p.runtime_calls.size(); ++r) {
    const RuntimeCall& c = p.runtime_calls[r];
    if (bounds.outlier(r, c) || std::binary_search(copies.begin(), copies.end(), r))
      finder.add(out.outliers, outliers, {c.start, c.end}, std::string(p.str(c.name)));
    else if (c.start >= last_gpu_end && classes.teardown_call(c.name))
      finder.add(out.teardown, teardown, {c.start, c.end}, std::string(p.str(c.name)));
    else if (classes.profiler_event(c.name))
      finder.add(out.profiler, profiler, {c.start, c.end}, std::string(p.str(c.name)));
  }
  for (const HostEvent& e : p.host_events)
    if (classes.profiler_event(e.name))
      finder.add(out.profiler, profiler, {e.start, e.end}, std::string(p.str(e.name)));
  out.outliers.time = finder.finish(outliers, all);
  {
    IntervalList setup = all;  // warm-up and outliers: set-up
    setup.insert(setup.end(), warm.begin(), warm.end());
    merge_in_place(setup);
    if (std::optional<Interval> steps = setup_steps(spans, setup)) {
      warm.push_back(*steps);
      merge_in_place(warm);
      setup.push_back(*steps);
      merge_in_place(setup);
      if (steps->end - steps->start > out.longest) {
        std::size_t count = 0;
        while (count < spans.size() && spans[count].start < steps->end) ++count;
        out.name = count == 1 ? std::string("the window's first step (set-up)")
                              : fmt::format("the window's first {} steps (set-up)", count);
        out.longest = steps->end - steps->start;
        out.start = steps->start - host_start;
        out.is_range = false;
      }
    }
    for (Interval s : spans) {
      out.setup_union += length_within(setup, s);
      out.setup_time += length_within(warm, s);
    }
    all.insert(all.end(), warm.begin(), warm.end());
  }
  out.teardown.time = finder.finish(teardown, all);
  out.profiler.time = finder.finish(profiler, all);
  merge_in_place(all);
  for (Interval s : spans) out.time += length_within(all, s);
  one_offs = std::move(all);
  return out;
}

std::optional<Note> warmup_note(const Warmup& w, TimeNs step_time) {
  if (w.setup_time <= 0 || step_time <= 0 ||
      static_cast<double>(w.setup_time) < 0.05 * static_cast<double>(step_time))
    return std::nullopt;
  auto ms = [](TimeNs t) { return static_cast<double>(t) / 1e6; };
  return note<NoteId::ops_warmup_in_window>(
      arg<"ms">(ms(w.setup_time)),
      arg<"pct">(100.0 * static_cast<double>(w.setup_time) / static_cast<double>(step_time)),
      arg<"name">(w.name), arg<"start_ms">(ms(w.start)), arg<"longest_ms">(ms(w.longest)));
}

std::vector<Note> one_off_notes(const Warmup& w, TimeNs step_time) {
  std::vector<Note> out;
  if (step_time <= 0) return out;
  auto ms = [](TimeNs t) { return static_cast<double>(t) / 1e6; };
  auto pct = [&](TimeNs t) { return 100.0 * static_cast<double>(t) / static_cast<double>(step_time); };
  // As warm-up's note: only a kind that takes 5% of the window or more is named.
  auto named = [&](const OneOff& o) {
    return o.count > 0 && static_cast<double>(o.time) >= 0.05 * static_cast<double>(step_time);
  };
  if (const OneOff& o = w.outliers; named(o))
    out.push_back(note<NoteId::ops_one_off_outliers>(
        arg<"count">(o.count), arg<"ms">(ms(o.time)), arg<"pct">(pct(o.time)), arg<"name">(o.name),
        arg<"start_ms">(ms(o.start)), arg<"longest_ms">(ms(o.longest))));
  if (const OneOff& o = w.teardown; named(o))
    out.push_back(note<NoteId::ops_one_off_teardown>(arg<"count">(o.count), arg<"ms">(ms(o.time)),
                                                     arg<"pct">(pct(o.time)), arg<"name">(o.name)));
  if (const OneOff& o = w.profiler; named(o))
    out.push_back(note<NoteId::ops_one_off_profiler>(arg<"count">(o.count), arg<"ms">(ms(o.time)),
                                                     arg<"pct">(pct(o.time)), arg<"name">(o.name)));
  return out;
}

CapturePhases capture_phases(const Warmup& w, TimeNs step_time) {
  CapturePhases out;
  if (step_time <= 0) return out;
  auto us = [](TimeNs t) { return static_cast<double>(t) / 1e3; };
  out.window_us = us(step_time);
  out.setup_us = us(w.setup_union);
  out.teardown_us = us(w.teardown.time);
  out.profiler_us = us(w.profiler.time);
  out.steady_us = us(std::max<TimeNs>(0, step_time - w.time));
  // The longest one-off of any kind, by its name.
  const OneOff* longest = nullptr;
  for (const OneOff* o : {&w.outliers, &w.teardown, &w.profiler})
    if (o->count > 0 && (!longest || o->longest > longest->longest)) longest = o;
  if (w.longest > 0 && (!longest || w.longest >= longest->longest))
    out.evidence = fmt::format("{} took {:.1f} ms, {:.1f} ms into the window", w.name, us(w.longest) / 1e3,
                               us(w.start) / 1e3);
  else if (longest)
    out.evidence = fmt::format("{} took {:.1f} ms, {:.1f} ms into the window", longest->name,
                               us(longest->longest) / 1e3, us(longest->start) / 1e3);
  return out;
}

}  // namespace perfgate
