// The host plane (/host:CPU): each line a thread; its events host ops (XLA's and the runtime's
// TraceMe ranges, PjitFunction, TensorFlow ops), Python functions ("$file.py:N name", from JAX's
// Python tracer), runtime calls (events with a correlation id: cuLaunchKernel, hipMemcpyDtoDAsync)
// and step ranges (events with a step number, or a TraceMe name that encodes one).
#include <charconv>

#include <fmt/format.h>

#include "common/errors.h"
#include "load/xplane/builder.h"

namespace perfgate::xplane {
namespace {

// A TraceMe's name as TraceMeEncode writes its arguments, "train#step_num=3,_r=1#", where the
// profiler left it unparsed: the name before the arguments, and the step_num among them.
bool encoded_step(std::string_view raw, std::string_view& name, std::int64_t& step) {
  std::size_t open = raw.find('#');
  if (open == std::string_view::npos || open == 0 || raw.size() < open + 2 || !raw.ends_with('#'))
    return false;
  std::string_view args = raw.substr(open + 1, raw.size() - open - 2);
  while (!args.empty()) {
    std::size_t comma = args.find(',');
    std::string_view arg = args.substr(0, comma);
    if (arg.starts_with("step_num=")) {
      std::string_view v = arg.substr(9);
      auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), step);
      if (v.empty() || ec != std::errc() || end != v.data() + v.size() || step < 0) return false;
      name = raw.substr(0, open);
      return true;
    }
    args = comma == std::string_view::npos ? std::string_view() : args.substr(comma + 1);
  }
  return false;
}

}  // namespace

void Builder::host_plane(const Plane& plane) {
  StatKeys keys(plane);
  std::int64_t pid = 0;
  for (const Stat& s : plane.stats)
    if (plane.stat_name(s) == "process_id") s.integer(pid);
  Event e;
  std::string step_name;
  for (const Line& line : plane.lines) {
    if (p_.threads.size() >= (std::size_t{1} << 30) - 1)
      throw InputError(fmt::format("{}: more than 2^30 host threads", path_));
    auto thread = static_cast<std::uint32_t>(p_.threads.size());
    p_.threads.push_back(
        {.pid = pid,
         .tid = line.id,
         .name = p_.strings.intern(line.display_name.empty() ? line.name : line.display_name)});
    for (const wire::Field& field : line.events) {
      read_event(field, e, &event_check_);
      if (e.aggregated) {
        ++aggregated_;
        continue;
      }
      TimeNs start = 0, end = 0;
      if (!span(line, e, start, end)) continue;
      const EventMetadata* meta = plane.event(e.metadata_id);
      std::string_view name =
          meta ? (meta->name.empty() ? meta->display_name : meta->name) : std::string_view();
      std::int64_t correlation = 0, step = -1;
      bool has_correlation = false, has_step = false;
      ContextEnd produced{.thread = thread, .start = start, .end = end}, consumed = produced;
      bool has_producer = false, has_consumer = false;
      for (const Stat& s : e.stats) {
        StatKey key = keys(s);
        if (key == StatKey::CorrelationId) has_correlation = s.integer(correlation);
        if (key == StatKey::StepNum) has_step = s.integer(step) && step >= 0;
        if (key == StatKey::ProducerType) s.integer(produced.type);
        if (key == StatKey::ProducerId) has_producer = s.integer(produced.id);
        if (key == StatKey::ConsumerType) s.integer(consumed.type);
        if (key == StatKey::ConsumerId) has_consumer = s.integer(consumed.id);
      }
      if (has_producer) producers_.push_back(produced);
      if (has_consumer) consumers_.push_back(consumed);
      if (!has_step && !has_correlation) has_step = encoded_step(name, name, step);
      host_steps_ = host_steps_ || has_step;
      if (has_correlation) {
        p_.runtime_calls.push_back({.start = start,
                                    .end = end,
                                    .correlation = correlation,
                                    .name = p_.strings.intern(name),
                                    .thread = thread});
      } else if (end == start) {
        ++instants_;  // MemoryAllocation, ThreadpoolListener::StartRegion: no span to attribute
        continue;
      } else {
        HostEvent h;
        h.start = start;
        h.end = end;
        h.thread = thread;
        if (has_step) {
          step_name = fmt::format("{} (step {})", name, step);
          h.name = p_.strings.intern(step_name);
          h.kind = HostKind::Annotation;
        } else {
          h.name = p_.strings.intern(name);
          h.kind = name.starts_with('$') ? HostKind::PythonFunction : HostKind::Op;
        }
        p_.host_events.push_back(h);
      }
      if ((++events_ & 0xffff) == 0) check_memory();
    }
  }
}

}  // namespace perfgate::xplane
