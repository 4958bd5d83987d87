#include "analyse/window.h"

#include <algorithm>

#include <fmt/format.h>

#include "perfgate/errors.h"

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

}  // namespace

Window select_window(StepDetection& detection, const WindowOptions& options) {
  Window w;
  if (detection.steps.empty()) {
    if (options.iter_start || options.iter_stop || options.skip_first > 0)
      throw ConfigError("--iter-start, --iter-stop and --skip-first need steps, and this profile has none");
    w.start = detection.whole_trace_start;
    w.end = detection.whole_trace_end;
    w.host_start = std::min(detection.whole_trace_host_start, w.start);
    w.host_end = w.end;
    return w;
  }
  for (std::size_t i = 0; i < detection.steps.size(); ++i) {
    std::int64_t n = step_number(detection.steps[i], i);
    if (options.iter_start && n < *options.iter_start) continue;
    if (options.iter_stop && n > *options.iter_stop) continue;
    w.steps.push_back(i);
  }
  if (w.steps.empty())
    throw ConfigError(fmt::format("--iter-start/--iter-stop select no step: the profile has {}",
                                  available_range(detection)));
  if (options.skip_first < 0) throw ConfigError("--skip-first must not be negative");
  if (static_cast<std::size_t>(options.skip_first) >= w.steps.size())
    throw ConfigError(fmt::format("--skip-first {} leaves no step: the window has {} steps",
                                  options.skip_first, w.steps.size()));
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

}  // namespace perfgate
