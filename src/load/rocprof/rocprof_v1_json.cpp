// rocprof v1's results.json (rocprof_v1.h): tblextr.py's Chrome trace, every value of an event a
// string (sqlitedb.py's dump_json writes "ts":"123"), numbers accepted too. Each "X" event's lane
// is its table, by the pid tblextr.py gives it (its __section): 0 rocTX, 1 COPY, 2 the HIP API,
// 3 the HSA API (not read), 6 + n GPU n (OPS, or KERN where the event's args have gpu-id), 518 + n
// GPU n's barrier packets (not read). Times from the args' BeginNs and EndNs where written (ts and
// dur are whole microseconds), streamed with Boost.JSON's SAX parser. A copy's bytes are those of
// the HIP call of its process, thread and stream in turn (the args' pid, tid, stream-id; the call's
// args' "args": rocprof_v1_builder.cpp).
#include <boost/json/basic_parser_impl.hpp>

#include <charconv>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "common/errors.h"
#include "io/input_limit.h"
#include "io/json_handler.h"
#include "load/json_stream.h"
#include "load/reader.h"
#include "load/rocprof/rocprof_v1.h"

namespace perfgate::rocprof {
namespace {

constexpr std::int64_t kCopyPid = 1, kHipPid = 2, kGpuBasePid = 6, kBarrierPid = kGpuBasePid + 512;

// A number written as a number or as a string of one; nullopt otherwise.
std::optional<std::int64_t> number_of(const JsonScalar& v) {
  switch (v.kind) {
    case JsonScalar::Kind::Int:
      return v.i;
    case JsonScalar::Kind::UInt:
      return v.u <= static_cast<std::uint64_t>(INT64_MAX) ? std::optional<std::int64_t>(v.u) : std::nullopt;
    case JsonScalar::Kind::Double:
      return std::isfinite(v.d) && std::fabs(v.d) < 9e18 ? std::optional<std::int64_t>(std::llround(v.d))
                                                         : std::nullopt;
    case JsonScalar::Kind::String: {
      std::int64_t i = 0;
      auto [end, ec] = std::from_chars(v.text.data(), v.text.data() + v.text.size(), i);
      if (ec == std::errc() && end == v.text.data() + v.text.size()) return i;
      double d = 0;
      auto [dend, dec] = std::from_chars(v.text.data(), v.text.data() + v.text.size(), d);
      if (dec == std::errc() && dend == v.text.data() + v.text.size() && std::isfinite(d) &&
          std::fabs(d) < 9e18)
        return std::llround(d);
      return std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

// tblextr.py quotes the names it stores ('"kernel"'); dump_json strips the quotes, as here.
std::string unquoted(std::string_view text) {
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') text = text.substr(1, text.size() - 2);
  return std::string(text.substr(0, std::size_t{1} << 16));
}

struct Event {
  std::string ph, name;
  std::optional<std::int64_t> pid, tid, ts, dur;
  std::optional<std::int64_t> begin, end, index, dev_id, gpu_id, queue_id, process, thread, stream_id;
  std::string args;  // the HIP call's arguments (its args' "args")
};

class V1JsonHandler : public ScalarJsonHandler<V1JsonHandler> {
 public:
  explicit V1JsonHandler(V1Builder& builder) : builder_(builder) {}
  bool saw_events() const { return saw_events_; }
  std::uint64_t skipped() const { return skipped_; }

 private:
  friend ScalarJsonHandler<V1JsonHandler>;
  bool open(bool array, error_code&) {
    bool events = frames_.size() == 1 && array && key_ == "traceEvents";
    saw_events_ = saw_events_ || events;
    bool event = frames_.size() == 2 && frames_[1].kind == Frame::Events && !array;
    frames_.push_back({events ? Frame::Events : event ? Frame::Event : Frame::Other, key_});
    if (in_event()) event_ = Event{};
    key_.clear();
    return true;
  }
  bool close(bool, error_code&) {
    if (in_event()) take();
    frames_.pop_back();
    return true;
  }
  bool key(std::string_view key, error_code&) {
    key_.assign(key.substr(0, 64));
    return true;
  }
  bool scalar(const JsonScalar& v, error_code&) {
    if (in_event()) {
      if (key_ == "ph" && v.kind == JsonScalar::Kind::String) event_.ph.assign(v.text.substr(0, 8));
      if (key_ == "name" && v.kind == JsonScalar::Kind::String) event_.name = unquoted(v.text);
      if (key_ == "pid") event_.pid = number_of(v);
      if (key_ == "tid") event_.tid = number_of(v);
      if (key_ == "ts") event_.ts = number_of(v);
      if (key_ == "dur") event_.dur = number_of(v);
    } else if (frames_.size() == 4 && frames_[2].kind == Frame::Event && frames_[3].key == "args") {
      if (key_ == "BeginNs") event_.begin = number_of(v);
      if (key_ == "EndNs") event_.end = number_of(v);
      if (key_ == "Index") event_.index = number_of(v);
      if (key_ == "dev-id") event_.dev_id = number_of(v);
      if (key_ == "gpu-id") event_.gpu_id = number_of(v);
      if (key_ == "queue-id") event_.queue_id = number_of(v);
      if (key_ == "pid") event_.process = number_of(v);
      if (key_ == "tid") event_.thread = number_of(v);
      if (key_ == "stream-id") event_.stream_id = number_of(v);
      if (key_ == "args" && v.kind == JsonScalar::Kind::String)
        event_.args.assign(v.text.substr(0, std::size_t{1} << 12));
    }
    return true;
  }
  bool in_event() const { return frames_.size() == 3 && frames_[2].kind == Frame::Event; }
  void take();

  struct Frame {
    enum Kind : std::uint8_t { Other, Events, Event } kind = Other;
    std::string key;
  };
  V1Builder& builder_;
  std::vector<Frame> frames_;
  std::string key_;
  Event event_;
  bool saw_events_ = false;
  std::uint64_t skipped_ = 0;
};

void V1JsonHandler::take() {
  const Event& e = event_;
  if (e.ph != "X" || !e.pid) return;
  std::int64_t pid = *e.pid;
  V1Record r;
  if (pid == 0)
    r.table = V1Table::Roctx;
  else if (pid == kCopyPid)
    r.table = V1Table::Copy;
  else if (pid == kHipPid)
    r.table = V1Table::Hip;
  else if (pid >= kGpuBasePid && pid < kBarrierPid)
    r.table = e.gpu_id ? V1Table::Kern : V1Table::Ops;
  else {
    ++skipped_;  // the HSA API, barrier packets
    return;
  }
  if (e.begin && e.end) {
    r.begin = *e.begin;
    r.end = *e.end;
  } else if (e.ts && e.dur && *e.ts >= 0 && *e.dur >= 0 && *e.ts < kMaxTimeNs / 1000 &&
             *e.dur < kMaxTimeNs / 1000) {
    r.begin = *e.ts * 1000;
    r.end = (*e.ts + *e.dur) * 1000;
  }
  r.device = e.dev_id ? *e.dev_id : e.gpu_id ? *e.gpu_id : pid >= kGpuBasePid ? pid - kGpuBasePid : -1;
  r.queue = e.queue_id ? *e.queue_id : -1;
  // The calling thread: the HIP lane's tid; a copy's or kernel's own lane is its stream, and its args'
  // tid the thread of its HIP call.
  r.tid = r.table == V1Table::Hip || r.table == V1Table::Roctx ? e.tid.value_or(0) : e.thread.value_or(0);
  r.correlation = e.index.value_or(0);
  r.pid = e.process.value_or(-1);
  r.stream = e.stream_id.value_or(-1);
  r.name = e.name;
  r.args = e.args;
  builder_.add(std::move(r));
}

constexpr std::size_t kChunk = std::size_t{1} << 20;

}  // namespace

bool looks_like_v1_json(std::string_view head) {
  // '{ "traceEvents":[{}': tblextr.py's first event is an empty object.
  std::string squeezed;
  for (char c : head.substr(0, 64))
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') squeezed += c;
  return squeezed.starts_with("{\"traceEvents\":[{}");
}

void read_v1_json(ByteSource& source, const std::string& path, std::uint64_t max_memory,
                  const std::function<void(std::uint64_t)>& on_progress,
                  const std::function<void(Profile&&)>& emit) {
  V1Builder builder;
  boost::json::parse_options parse_options;
  parse_options.max_depth = 64;
  parse_options.allow_invalid_utf8 = true;
  boost::json::basic_parser<V1JsonHandler> parser(parse_options, builder);
  stream_json(parser, source, path, kChunk, false, [&] {
    check_input_memory(path, builder.memory_bytes(), max_memory);
    if (on_progress) on_progress(source.file_bytes_consumed());
  });
  if (!parser.handler().saw_events())
    throw NotAProfileError(fmt::format("{}: not a rocprof v1 results.json (no 'traceEvents' list)", path));
  emit(builder.finish(path, "rocprof-v1-json"));
}

}  // namespace perfgate::rocprof

namespace perfgate {
namespace {

Sniffed sniff_v1(const FileHead& head) {
  return rocprof::looks_like_v1_json(head.json()) ? Sniffed::Yes : Sniffed::No;
}

void read_v1(const ReaderInput& in, const ProfileSink& emit) {
  rocprof::read_v1_json(*in.bytes.open({.map = false}), in.name(), in.options.max_input_memory, in.progress,
                        [&](Profile&& p) {
                          p.worker = in.worker;
                          emit(std::move(p));
                        });
}

}  // namespace

extern const Reader kRocprofV1JsonReader{"rocprof-v1-json", "a rocprof v1 results.json (rocprof --hip-trace)",
                                         sniff_v1, read_v1};

}  // namespace perfgate
