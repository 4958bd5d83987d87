#include "load/legacy/legacy_reader.h"

#include <boost/json/basic_parser_impl.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "common/errors.h"
#include "common/utf8.h"
#include "io/input_limit.h"
#include "load/json_stream.h"
#include "load/legacy/event_handler.h"

namespace perfgate::legacy {
namespace {

constexpr std::size_t kChunk = std::size_t{1} << 20;

// What the legacy profiler records as an op: ATen and autograd functions ("aten::addmm",
// "autograd::engine::evaluate_function: AddmmBackward0", "torch::autograd::AccumulateGrad") and
// autograd nodes ("AddmmBackward0"). Everything else is a record_function range, as Kineto's
// user_annotation: ProfilerStep#N, "Optimizer.step#SGD.step", the training loop's own names.
bool is_op_name(std::string_view name) {
  if (name.find("::") != std::string_view::npos) return true;
  std::size_t end = name.size();
  while (end > 0 && name[end - 1] >= '0' && name[end - 1] <= '9') --end;
  return name.substr(0, end).ends_with("Backward");
}

class ProfileSink : public EventSink {
 public:
  explicit ProfileSink(Profile& profile) : p_(profile) {}

  std::string event(const RawEvent& e) override {
    if (e.phase != "X") {  // the "s"/"f" flow arrows to CUDA kernels carry no time of their own
      ++other_phases_;
      return {};
    }
    if (!e.ts_us || !e.dur_us)
      return fmt::format("the event '{}' has no \"{}\"", e.name, e.ts_us ? "dur" : "ts");
    // Microseconds, whole or fractional, as nanoseconds; the limits of perfgate/profile.h.
    double start = std::round(*e.ts_us * 1e3), duration = std::round(*e.dur_us * 1e3);
    constexpr double kLimit = static_cast<double>(kMaxTimeNs / 2);
    if (std::fabs(start) >= kLimit)
      return fmt::format("the event '{}' starts at {} us, beyond any profile's time", e.name, *e.ts_us);
    if (duration < 0 || duration > static_cast<double>(kMaxDurationNs))
      return fmt::format("the event '{}' lasts {} us, not between 0 and 30 days", e.name, *e.dur_us);
    if (__builtin_add_overflow(total_ns_, static_cast<TimeNs>(duration), &total_ns_) ||
        total_ns_ >= kMaxTimeNs)
      return "the events' durations add up to more than any profile's time";
    HostEvent h;
    h.start = static_cast<TimeNs>(start);
    h.end = h.start + static_cast<TimeNs>(duration);
    h.name = intern(e.name);
    h.thread = thread(e.thread);
    h.kind = is_op_name(e.name) ? HostKind::Op : HostKind::Annotation;
    if (!e.input_dims.empty() || !e.input_types.empty() || !e.stack.empty()) {
      OpDetails d;
      d.input_dims = intern(e.input_dims);
      d.input_types = intern(e.input_types);
      d.call_stack = intern(e.stack);
      h.details = static_cast<std::uint32_t>(p_.op_details.size());
      p_.op_details.push_back(d);
    }
    earliest_ = std::min(earliest_, h.start);
    p_.host_events.push_back(h);
    return {};
  }

  std::uint64_t memory_bytes() const {
    return p_.host_events.capacity() * sizeof(HostEvent) + p_.op_details.capacity() * sizeof(OpDetails) +
           p_.strings.memory_bytes();
  }
  TimeNs earliest() const { return earliest_; }
  std::uint64_t invalid_utf8() const { return invalid_utf8_; }
  std::uint64_t other_phases() const { return other_phases_; }

 private:
  StringId intern(std::string_view text) {
    if (is_valid_utf8(text)) return p_.strings.intern(text);
    std::size_t replaced = 0;
    std::string repaired = repair_utf8(text, replaced);
    invalid_utf8_ += replaced;
    return p_.strings.intern(repaired);
  }

  // A thread per distinct "tid": integers as written, remote events' text by their order.
  std::uint32_t thread(const std::string& tid) {
    auto [it, added] = threads_.try_emplace(tid, static_cast<std::uint32_t>(p_.threads.size()));
    if (added) {
      ThreadInfo t;
      char* end = nullptr;
      long long number = std::strtoll(tid.c_str(), &end, 10);
      bool numeric = !tid.empty() && end && *end == '\0';
      t.tid = numeric ? number : static_cast<std::int64_t>(p_.threads.size());
      t.name = intern(numeric ? "thread " + tid : tid);
      p_.threads.push_back(t);
    }
    return it->second;
  }

  Profile& p_;
  std::unordered_map<std::string, std::uint32_t> threads_;
  TimeNs total_ns_ = 0;
  TimeNs earliest_ = std::numeric_limits<TimeNs>::max();
  std::uint64_t invalid_utf8_ = 0;
  std::uint64_t other_phases_ = 0;
};

bool only_space(std::string_view s) {
  return s.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

// What the format cannot say, said once in the report.
void describe(Profile& p, const ProfileSink& sink) {
  bool shapes = std::any_of(p.op_details.begin(), p.op_details.end(),
                            [](const OpDetails& d) { return d.input_dims != kNoString; });
  p.notes.push_back(note<NoteId::legacy_trace>(arg<"no_shapes">(!shapes)));
  if (sink.invalid_utf8() > 0)
    p.notes.push_back(note<NoteId::legacy_invalid_utf8>(arg<"count">(sink.invalid_utf8())));
}

// The legacy trace's sniff: a parse of the head up to the end of the first event, which must be an
// object on the process "CPU functions" without "cat" (Kineto events have one). Keys are compared
// exactly at the event's level, whatever their order or the length of the other values.
class FirstEventSniff : public ScalarJsonHandler<FirstEventSniff> {
 public:
  bool legacy() const { return legacy_; }

 private:
  friend ScalarJsonHandler<FirstEventSniff>;
  bool open(bool array, error_code& ec) {
    ++depth_;
    if (depth_ == 1 && !array) return decide(false, ec);  // not a bare array
    if (depth_ == 2 && array) return decide(false, ec);   // the first element is not an event
    return true;
  }
  bool close(bool, error_code& ec) {
    --depth_;
    if (depth_ == 1) return decide(cpu_functions_ && !cat_, ec);  // the first event ended
    if (depth_ == 0) return decide(false, ec);                    // an empty array
    return true;
  }
  bool key(std::string_view key, error_code&) {
    pid_ = depth_ == 2 && key == "pid";
    if (depth_ == 2 && key == "cat") cat_ = true;
    return true;
  }
  bool scalar(const JsonScalar& v, error_code& ec) {
    if (depth_ == 1) return decide(false, ec);  // the first element is a number, text or null
    if (pid_) cpu_functions_ = v.kind == JsonScalar::Kind::String && v.text == "CPU functions";
    pid_ = false;
    return true;
  }
  bool skipping() const { return depth_ > 2; }  // an event's args: nothing here is read
  bool decide(bool is_legacy, error_code& ec) {
    legacy_ = is_legacy;
    return fail(ec, "decided");  // stops the parse: the rest of the head is not needed
  }

  int depth_ = 0;
  bool pid_ = false;  // the next value is the event's "pid"
  bool cpu_functions_ = false, cat_ = false, legacy_ = false;
};

}  // namespace

bool detect(std::string_view head) {
  boost::json::parse_options options;
  options.max_depth = 64;
  options.allow_invalid_utf8 = true;
  boost::json::basic_parser<FirstEventSniff> parser(options);
  boost::system::error_code ec;
  parser.write_some(true, head.data(), head.size(), ec);  // stops at the verdict, or the head's end
  return parser.handler().legacy();
}

Profile read_trace(std::unique_ptr<ByteSource> source, const std::string& path,
                   const std::function<void(std::uint64_t)>& on_progress, std::uint64_t max_memory) {
  Profile profile;
  profile.source_path = path;
  ProfileSink sink(profile);
  boost::json::parse_options options;
  options.max_depth = 64;
  options.allow_invalid_utf8 = true;  // repaired when interned
  boost::json::basic_parser<EventHandler> parser(options, sink);
  std::vector<char> buffer(kChunk);
  std::uint64_t offset = 0;  // bytes of the text parsed so far
  bool first = true;
  for (std::size_t n; (n = source->read(buffer.data(), buffer.size())) > 0;) {
    std::string_view text(buffer.data(), n);
    if (first && text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // UTF-8 byte order mark
    first = false;
    boost::system::error_code ec;
    std::size_t parsed = parser.done() ? 0 : parser.write_some(true, text.data(), text.size(), ec);
    if (ec) throw json_parse_error(parser, path, ec, offset + parsed);
    if (parsed < text.size() && !only_space(text.substr(parsed)))
      throw InputError(
          fmt::format("{}: invalid JSON: extra data after the document (at byte {})", path, offset + parsed));
    offset += text.size();
    check_input_memory(path, sink.memory_bytes(), max_memory);
    if (on_progress) on_progress(source->file_bytes_consumed());
  }
  finish_json(parser, path, offset);
  if (profile.host_events.empty())
    throw NotAProfileError(
        fmt::format("{}: a legacy profiler trace without a complete (\"ph\": \"X\") event", path));
  // Times as the profiler wrote them, moved so that none is negative (model/profile.h).
  if (TimeNs shift = std::min<TimeNs>(0, sink.earliest()); shift < 0)
    for (HostEvent& e : profile.host_events) {
      e.start -= shift;
      e.end -= shift;
    }
  profile.info.format = "pytorch-legacy-json";
  describe(profile, sink);
  build_host_tree(profile);
  sort_by_start(profile);
  return profile;
}

}  // namespace perfgate::legacy
