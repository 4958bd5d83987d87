#include "analyse/steps/window.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "common/errors.h"

namespace perfgate {
namespace {

std::int64_t step_number(const Step& s, std::size_t index) {
  return s.number.value_or(static_cast<std::int64_t>(index));
}

std::string available_range(const StepDetection& d) {
  if (d.steps.empty()) return "no steps";
  return fmt::format("steps {} to {}", step_number(d.steps.front(), 0),
                     step_number(d.steps.back(), d.steps.size() - 1));
}

// Widens [lo, hi) to every range of `items`.
template <typename T>
void widen(const std::vector<T>& items, TimeNs& lo, TimeNs& hi) {
  for (const T& x : items) {
    lo = std::min(lo, x.start);
    hi = std::max(hi, x.end);
  }
}

// A time on the trace's clock as the options take it: microseconds.
std::string us_text(TimeNs t) {
  return fmt::format("{:.3f}", static_cast<double>(t) / 1000.0);
}

// The window's errors name the options as the request does (RequestError): the front end says them
// as its flags or arguments.
using FieldNames = RequestError::FieldNames;

std::string time_range_text(const WindowOptions& options) {
  return fmt::format("{} to {}", options.time_start ? us_text(*options.time_start) + " us" : "the start",
                     options.time_stop ? us_text(*options.time_stop) + " us" : "the end");
}

// A profile without steps: the window is the part of the trace inside the time range.
void clip_to_time_range(Window& w, const WindowOptions& options) {
  TimeNs trace_start = w.host_start, trace_end = w.end;
  if (options.time_start) {
    w.start = std::max(w.start, *options.time_start);
    w.host_start = std::max(w.host_start, *options.time_start);
  }
  if (options.time_stop) w.end = std::min(w.end, *options.time_stop);
  w.host_end = w.end;
  if (w.end <= w.start || w.end <= w.host_start)
    throw RequestError("time_start", [range = time_range_text(options), from = us_text(trace_start),
                                      to = us_text(trace_end)](const FieldNames& name) {
      return fmt::format("{}/{} ({}) hold none of the trace: it runs from {} us to {} us", name("time_start"),
                         name("time_stop"), range, from, to);
    });
}

}  // namespace

void set_capture_spans(const Profile& p, Window& w) {
  constexpr TimeNs kEmpty = std::numeric_limits<TimeNs>::max();
  TimeNs gpu_lo = kEmpty, gpu_hi = std::numeric_limits<TimeNs>::min();
  widen(p.gpu_activities, gpu_lo, gpu_hi);
  TimeNs lo = gpu_lo, hi = gpu_hi;
  widen(p.host_events, lo, hi);
  widen(p.runtime_calls, lo, hi);
  widen(p.gpu_ranges, lo, hi);
  widen(p.gpu_syncs, lo, hi);
  for (const MemorySample& m : p.memory_samples) {
    lo = std::min(lo, m.time);
    hi = std::max(hi, m.time);
  }
  if (gpu_lo != kEmpty) {
    w.gpu_start = gpu_lo;
    w.gpu_end = gpu_hi;
  }
  // Where a whole capture's own span is recorded (nsys), the capture span is the capture's: from
  // "Profiling has started." to "Profiling has stopped.", widened to any event outside them.
  if (p.info.window_spans_capture && p.info.profiler_end > p.info.profiler_start) {
    lo = std::min(lo, p.info.profiler_start);
    hi = std::max(hi, p.info.profiler_end);
  }
  if (lo != kEmpty) {
    w.capture_start = lo;
    w.capture_end = hi;
  }
}

std::vector<Interval> steps_on_gpu_clock(const StepDetection& detection, const Window& window) {
  if (window.steps.empty()) {
    if (window.gpu_end <= window.gpu_start) return {};
    return {{window.gpu_start, window.gpu_end}};
  }
  auto launched = [&](std::size_t i) {
    const Step& s = detection.steps[i];
    return s.gpu_last_end > s.gpu_first_start;
  };
  auto first = std::find_if(window.steps.begin(), window.steps.end(), launched);
  if (first == window.steps.end()) return {};
  std::vector<Interval> spans;
  TimeNs previous_end = detection.steps[*first].gpu_first_start;
  for (std::size_t i : window.steps) {
    const Step& s = detection.steps[i];
    Interval span{previous_end, previous_end};
    if (launched(i)) {
      span.start = std::max(previous_end, s.gpu_first_start);
      span.end = std::max(span.start, s.gpu_last_end);
    }
    spans.push_back(span);
    previous_end = span.end;
  }
  return spans;
}

Window select_window(StepDetection& detection, const WindowOptions& options) {
  if (options.time_start && options.time_stop && *options.time_start >= *options.time_stop)
    throw RequestError("time_start", [start = us_text(*options.time_start),
                                      stop = us_text(*options.time_stop)](const FieldNames& name) {
      return fmt::format("{} {} us is not before {} {} us", name("time_start"), start, name("time_stop"),
                         stop);
    });
  Window w;
  if (detection.steps.empty()) {
    if (options.iter_start || options.iter_stop || options.skip_first > 0)
      throw RequestError(options.iter_start  ? "iter_start"
                         : options.iter_stop ? "iter_stop"
                                             : "skip_first",
                         [](const FieldNames& name) {
                           return fmt::format("{}, {} and {} need steps, and this profile has none",
                                              name("iter_start"), name("iter_stop"), name("skip_first"));
                         });
    w.start = detection.whole_trace_start;
    w.end = detection.whole_trace_end;
    w.host_start = std::min(detection.whole_trace_host_start, w.start);
    w.host_end = w.end;
    if (options.time_start || options.time_stop) clip_to_time_range(w, options);
    return w;
  }
  for (std::size_t i = 0; i < detection.steps.size(); ++i) {
    const Step& s = detection.steps[i];
    std::int64_t n = step_number(s, i);
    if (options.iter_start && n < *options.iter_start) continue;
    if (options.iter_stop && n > *options.iter_stop) continue;
    if (options.time_start && s.start < *options.time_start) continue;
    if (options.time_stop && s.end > *options.time_stop) continue;
    w.steps.push_back(i);
  }
  if (w.steps.empty() && (options.time_start || options.time_stop))
    throw RequestError("time_start", [range = time_range_text(options), steps = available_range(detection),
                                      from = us_text(detection.steps.front().start),
                                      to = us_text(detection.steps.back().end)](const FieldNames& name) {
      return fmt::format("{}/{} ({}) hold no whole step: the profile has {}, from {} us to {} us",
                         name("time_start"), name("time_stop"), range, steps, from, to);
    });
  if (w.steps.empty())
    throw RequestError("iter_start", [steps = available_range(detection)](const FieldNames& name) {
      return fmt::format("{}/{} select no step: the profile has {}", name("iter_start"), name("iter_stop"),
                         steps);
    });
  if (options.skip_first < 0)
    throw RequestError("skip_first", [](const FieldNames& name) {
      return fmt::format("{} must not be negative", name("skip_first"));
    });
  if (static_cast<std::size_t>(options.skip_first) >= w.steps.size())
    throw RequestError("skip_first", [skip = options.skip_first,
                                      steps = w.steps.size()](const FieldNames& name) {
      return fmt::format("{} {} leaves no step: the window has {} steps", name("skip_first"), skip, steps);
    });
  w.steps.erase(w.steps.begin(), w.steps.begin() + options.skip_first);
  for (std::size_t i : w.steps) detection.steps[i].in_window = true;
  const Step& first = detection.steps[w.steps.front()];
  const Step& last = detection.steps[w.steps.back()];
  w.start = first.start;
  w.end = last.end;
  w.host_start = first.host_start;
  w.host_end = last.host_end;
  w.first_number = step_number(first, w.steps.front());
  w.last_number = step_number(last, w.steps.back());
  return w;
}

Note time_range_note(const Window& window, const WindowOptions& options) {
  return note<NoteId::window_time_range>(
      arg<"start">(options.time_start ? us_text(*options.time_start) + " us" : std::string("its start")),
      arg<"stop">(options.time_stop ? us_text(*options.time_stop) + " us" : std::string("its end")),
      arg<"steps">(window.steps.size()));
}

}  // namespace perfgate
