#include "load/kineto/trace_handler.h"

#include <charconv>
#include <limits>

#include <fmt/format.h>

#include "common/utf8.h"
#include "load/kineto/event_builder.h"

namespace perfgate::kineto {
namespace {

// A document with a 'traceEvents' key is a trace, however malformed: never "not a trace".
constexpr const char* kTraceEventsNotArray = "top-level key 'traceEvents' must be an array";

std::optional<std::int64_t> parse_integer_text(std::string_view s) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);  // ROCm writes streams and sizes as "0x0"
    base = 16;
  }
  std::int64_t value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value, base);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return value;
}

std::optional<double> parse_double_text(std::string_view s) {
  double value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return value;
}

// A double's integer part, where it has one in range: NaN (which "0e400" parses as), infinities
// and magnitudes beyond int64 have none (converting them is undefined behaviour).
std::optional<std::int64_t> as_int64(double v) {
  if (!(v > -9.2e18 && v < 9.2e18)) return std::nullopt;
  return static_cast<std::int64_t>(v);
}

// An id given as text: "25738" is a number; "stream 7" and "Spans" stay text.
void set_id_text(IdValue& id, std::string_view s) {
  id.present = true;
  if (auto n = parse_integer_text(s)) {
    id.is_text = false;
    id.number = *n;
  } else {
    id.is_text = true;
    id.text.assign(s);
  }
}

}  // namespace

bool TraceHandler::fail(error_code& ec, std::string message) {
  if (error_.empty()) error_ = std::move(message);
  ec = boost::system::errc::make_error_code(boost::system::errc::invalid_argument);
  return false;
}

// "event #12 "aten::mm" (cpu_op)": its position in traceEvents, then the name and category read so
// far (a message may come before them).
std::string TraceHandler::event_label() const {
  std::string label = fmt::format("event #{}", events_seen_ - 1);
  std::string_view name = event_.name;
  if (!name.empty()) label += fmt::format(" \"{}\"", name.substr(0, 80));
  std::string_view category = event_.cat;
  if (!category.empty()) label += fmt::format(" ({})", category.substr(0, 40));
  return label;
}

bool TraceHandler::type_error(error_code& ec, const char* expected) {
  const char* key = field_label(pending_);
  if (frames_.empty() || top() == Frame::TopObject)
    return fail(ec, fmt::format("top-level key '{}' must be {}", key, expected));
  return fail(ec, fmt::format("{}: field '{}' must be {}", event_label(), key, expected));
}

bool TraceHandler::start_skip() {
  skip_depth_ = 1;
  pending_ = Field::Unknown;
  return true;
}

void TraceHandler::start_capture(CaptureTarget target, char open) {
  capturing_ = true;
  capture_target_ = target;
  capture_.reset();
  capture_.begin_container(open);
  pending_ = Field::Unknown;
}

// A value captured past kMaxKeptString (its text would grow with the input): the rest of it is
// skipped. Shapes and types are dropped, as finish_capture drops long ones; a metadata document is
// refused when the trace is completed (TraceMetadataText::too_long).
void TraceHandler::abandon_capture() {
  skip_depth_ = static_cast<std::uint64_t>(capture_.depth());
  capturing_ = false;
  switch (capture_target_) {
    case CaptureTarget::InputDims:
      event_.input_dims.clear();
      break;
    case CaptureTarget::InputTypes:
      event_.input_types.clear();
      break;
    case CaptureTarget::ConcreteInputs:
      event_.concrete_inputs.clear();
      break;
    case CaptureTarget::DeviceProperties:
      metadata_.too_long = "deviceProperties";
      break;
    case CaptureTarget::DistributedInfo:
      metadata_.too_long = "distributedInfo";
      break;
  }
  capture_.reset();
}

void TraceHandler::finish_capture() {
  capturing_ = false;
  std::string_view text = capture_.text();
  // Shapes of huge tensor lists are dropped rather than kept past the string limit.
  bool keep = text.size() <= kMaxKeptString;
  auto keep_in = [&](std::string& field) {  // assigned, not replaced: the field's memory is reused
    if (keep)
      field.assign(text);
    else
      field.clear();
  };
  switch (capture_target_) {
    case CaptureTarget::InputDims:
      keep_in(event_.input_dims);
      break;
    case CaptureTarget::InputTypes:
      keep_in(event_.input_types);
      break;
    case CaptureTarget::ConcreteInputs:
      keep_in(event_.concrete_inputs);
      break;
    case CaptureTarget::DeviceProperties:
      metadata_.device_properties = text;
      break;
    case CaptureTarget::DistributedInfo:
      metadata_.distributed_info = text;
      break;
  }
}

bool TraceHandler::begin_container(char open, error_code& ec) {
  if (skip_depth_ > 0) {
    ++skip_depth_;
    return true;
  }
  if (capturing_) {
    capture_.begin_container(open);
    limit_capture();
    return true;
  }
  if (frames_.empty()) {
    frames_.push_back(open == '{' ? Frame::TopObject : Frame::EventsArray);
    if (open == '[') metadata_.saw_trace_events = true;
    return true;
  }
  Field field = pending_;
  pending_ = Field::Unknown;
  switch (top()) {
    case Frame::TopObject:
      if (field == Field::TraceEvents) {
        if (open != '[') return fail(ec, kTraceEventsNotArray);
        metadata_.saw_trace_events = true;
        frames_.push_back(Frame::EventsArray);
      } else if (field == Field::DeviceProperties) {
        start_capture(CaptureTarget::DeviceProperties, open);
      } else if (field == Field::DistributedInfo) {
        start_capture(CaptureTarget::DistributedInfo, open);
      } else {
        start_skip();
      }
      return true;
    case Frame::EventsArray:
      if (open != '{') return fail(ec, fmt::format("event #{} is not an object", events_seen_));
      event_.clear();
      ++events_seen_;
      frames_.push_back(Frame::Event);
      return true;
    case Frame::Event:
      if (field == Field::Args) {
        if (open != '{') return fail(ec, fmt::format("{}: field 'args' must be an object", event_label()));
        frames_.push_back(Frame::Args);
        return true;
      }
      if (field == Field::Ts || field == Field::Dur || field == Field::Name || field == Field::Ph) {
        pending_ = field;
        return type_error(ec, field == Field::Name || field == Field::Ph ? "a string" : "a number");
      }
      if (field == Field::Pid || field == Field::Tid || field == Field::Id) {
        pending_ = field;
        return type_error(ec, "a number or a string");
      }
      return start_skip();
    case Frame::Args:
      if ((field == Field::Grid || field == Field::Block) && open == '[') {
        int_array_ = field == Field::Grid ? event_.grid : event_.block;
        int_array_index_ = 0;
        frames_.push_back(Frame::IntArray);
        return true;
      }
      if (field == Field::InputDims) {
        start_capture(CaptureTarget::InputDims, open);
        return true;
      }
      if (field == Field::InputTypes) {
        start_capture(CaptureTarget::InputTypes, open);
        return true;
      }
      if (field == Field::ConcreteInputs) {
        start_capture(CaptureTarget::ConcreteInputs, open);
        return true;
      }
      if (is_integer_arg(field)) {
        pending_ = field;
        return type_error(ec, "an integer");
      }
      return start_skip();
    case Frame::IntArray:
      return fail(ec, fmt::format("{}: grid/block entries must be integers", event_label()));
  }
  return true;
}

bool TraceHandler::end_container(char close, error_code& ec) {
  if (skip_depth_ > 0) {
    --skip_depth_;
    return true;
  }
  if (capturing_) {
    capture_.end_container(close);
    if (capture_.depth() == 0)
      finish_capture();
    else
      limit_capture();
    return true;
  }
  Frame frame = top();
  frames_.pop_back();
  pending_ = Field::Unknown;
  if (frame == Frame::Event) {
    std::string problem = builder_.add(event_, events_seen_ - 1);
    if (!problem.empty()) return fail(ec, fmt::format("{}: {}", event_label(), problem));
  }
  return true;
}

// Args that must hold integers: wrong types are errors (docs/formats.md), not silently dropped.
bool TraceHandler::is_integer_arg(Field field) {
  return field == Field::ExternalId || field == Field::Correlation || field == Field::SequenceNumber ||
         field == Field::Device || field == Field::Stream || field == Field::WaitOnStream ||
         field == Field::WaitOnEventRecord;
}

bool TraceHandler::on_object_begin(error_code& ec) {
  return begin_container('{', ec);
}
bool TraceHandler::on_object_end(std::size_t, error_code& ec) {
  return end_container('}', ec);
}
bool TraceHandler::on_array_begin(error_code& ec) {
  return begin_container('[', ec);
}
bool TraceHandler::on_array_end(std::size_t, error_code& ec) {
  return end_container(']', ec);
}

bool TraceHandler::on_key_part(string_view s, std::size_t, error_code&) {
  if (skip_depth_ == 0) key_.append(s.data(), s.size());
  return true;
}

bool TraceHandler::on_key(string_view s, std::size_t, error_code&) {
  if (skip_depth_ > 0) return true;
  std::string_view key(s.data(), s.size());
  if (!key_.empty()) {
    key_.append(key);
    key = key_;
  }
  if (capturing_) {
    capture_.key(key);
    limit_capture();
  } else {
    switch (top()) {
      case Frame::TopObject:
        pending_ = top_level_field(key);
        if (pending_ == Field::Unknown) top_key_.assign(key);
        break;
      case Frame::Event:
        pending_ = event_field(key);
        break;
      case Frame::Args:
        pending_ = args_field(key);
        break;
      default:
        pending_ = Field::Unknown;
    }
  }
  key_.clear();
  return true;
}

bool TraceHandler::on_string_part(string_view s, std::size_t, error_code& ec) {
  if (skip_depth_ > 0 || frames_.empty()) return true;
  if (!capturing_ && pending_ == Field::Unknown && top() != Frame::TopObject) return true;
  text_.append(s.data(), s.size());
  return check_kept_size(text_.size(), ec);
}

// The limit applies to the whole value, whether the parser hands it over in parts or at once.
bool TraceHandler::check_kept_size(std::size_t bytes, error_code& ec) {
  if (bytes > kMaxKeptString && !capturing_ && top() != Frame::TopObject)
    return fail(ec, fmt::format("{}: the value of '{}' is longer than {} bytes", event_label(),
                                field_label(pending_), kMaxKeptString));
  return true;
}

bool TraceHandler::on_string(string_view s, std::size_t, error_code& ec) {
  if (skip_depth_ > 0) return true;
  std::string_view value(s.data(), s.size());
  if (!frames_.empty() && (capturing_ || pending_ != Field::Unknown || top() == Frame::TopObject) &&
      !check_kept_size(text_.size() + value.size(), ec))
    return false;
  value_in_input_ = text_.empty();
  if (!text_.empty()) {
    text_.append(value);
    value = text_;
  }
  // The parser allows invalid UTF-8 (Kineto has written raw bytes in names): repaired here, once,
  // so that every name the model holds, and every output, is valid UTF-8.
  if (!is_valid_utf8(value)) {
    std::size_t replaced = 0;
    repaired_ = repair_utf8(value, replaced);
    value = repaired_;
    value_in_input_ = false;
    ++invalid_utf8_;
  }
  bool ok = string_value(value, ec);
  text_.clear();
  return ok;
}

bool TraceHandler::string_value(std::string_view s, error_code& ec) {
  if (frames_.empty()) return fail(ec, "the JSON document is a single string, not a trace");
  if (capturing_) {
    capture_.string_value(s);
    limit_capture();
    return true;
  }
  switch (top()) {
    case Frame::TopObject:
      if (pending_ == Field::TraceEvents) return fail(ec, kTraceEventsNotArray);
      return top_level_scalar(s);
    case Frame::EventsArray:
      return fail(ec, fmt::format("event #{} is not an object", events_seen_));
    case Frame::Event:
      return event_string(s, ec);
    case Frame::Args:
      return args_string(s, ec);
    case Frame::IntArray:
      return fail(ec, fmt::format("{}: grid/block entries must be integers", event_label()));
  }
  return true;
}

bool TraceHandler::top_level_scalar(std::string_view text) {
  Field field = pending_;
  pending_ = Field::Unknown;
  switch (field) {
    case Field::SchemaVersion:
      metadata_.schema_version.assign(text);
      break;
    case Field::TraceName:
      metadata_.trace_name.assign(text);
      break;
    case Field::BaseTimeNanoseconds:
      metadata_.base_time_ns.assign(text);
      break;
    case Field::Unknown:
      // Facts such as cuda_runtime_version or hostname; bounded, they are only shown.
      if (metadata_.attributes.size() < 64 && top_key_.size() <= 128)
        metadata_.attributes.emplace_back(top_key_, std::string(text.substr(0, 256)));
      break;
    default:
      break;
  }
  return true;
}

// A value in the parser's input is kept as a view until the input changes (keep_views); one the
// handler assembled (from parts, or repaired) is copied at once.
void TraceHandler::keep_text(std::string_view& field, std::string& copy, std::string_view s) const {
  if (value_in_input_) {
    field = s;
  } else {
    copy.assign(s);
    field = copy;
  }
}

void TraceHandler::keep_views() {
  auto keep = [](std::string_view& field, std::string& copy) {
    if (field.empty() || field.data() == copy.data()) return;
    copy.assign(field);
    field = copy;
  };
  keep(event_.ph, event_.ph_copy);
  keep(event_.cat, event_.cat_copy);
  keep(event_.name, event_.name_copy);
}

bool TraceHandler::event_string(std::string_view s, error_code& ec) {
  Field field = pending_;
  pending_ = Field::Unknown;
  switch (field) {
    case Field::Ph:
      keep_text(event_.ph, event_.ph_copy, s);
      break;
    case Field::Cat:
      keep_text(event_.cat, event_.cat_copy, s);
      break;
    case Field::Name:
      keep_text(event_.name, event_.name_copy, s);
      break;
    case Field::Pid:
      set_id_text(event_.pid, s);
      break;
    case Field::Tid:
      set_id_text(event_.tid, s);
      break;
    case Field::Id:
      set_id_text(event_.id, s);
      break;
    case Field::Ts:
    case Field::Dur:
      pending_ = field;
      return type_error(ec, "a number");
    case Field::Args:
      pending_ = field;
      return type_error(ec, "an object");
    default:
      break;
  }
  return true;
}

bool TraceHandler::args_string(std::string_view s, error_code& ec) {
  Field field = pending_;
  pending_ = Field::Unknown;
  // Ids that link events must be integers; descriptive args vary by vendor and are best effort.
  auto integer = [&](std::optional<std::int64_t>& out) {
    auto n = parse_integer_text(s);
    if (!n) {
      pending_ = field;
      return type_error(ec, "an integer");
    }
    out = n;
    return true;
  };
  auto lenient = [&](std::optional<std::int64_t>& out) {
    if (auto n = parse_integer_text(s)) out = n;
    return true;
  };
  switch (field) {
    case Field::CallStack:
      event_.call_stack.assign(s);
      break;
    case Field::ArgName:
      event_.arg_name.assign(s);
      break;
    case Field::Dtype:
      event_.dtype.assign(s.substr(0, 64));
      break;
    case Field::CollectiveName:
      event_.collective.assign(s.substr(0, 64));
      break;
    case Field::ProcessGroupName:
      event_.process_group.assign(s.substr(0, 128));
      break;
    case Field::ExternalId:
      return integer(event_.external_id);
    case Field::Correlation:
      return integer(event_.correlation);
    case Field::Device:  // ROCm writes these as text ("stream": "0x0"): an integer in text is read
      return integer(event_.device);
    case Field::Stream:
      return integer(event_.stream);
    case Field::SequenceNumber:
      return integer(event_.sequence_number);
    case Field::Bytes:
      return lenient(event_.bytes);
    case Field::BlocksPerSm:
    case Field::Occupancy: {
      auto d = parse_double_text(s);
      if (!d) {
        pending_ = field;
        return type_error(ec, "a number");
      }
      (field == Field::BlocksPerSm ? event_.blocks_per_sm : event_.occupancy_pct) = d;
      break;
    }
    default:
      break;  // other args are free-form: ROCm writes sizes and kinds as text
  }
  return true;
}

// A number's text: the parser's view when the number came in one piece, else the pieces joined.
std::string_view TraceHandler::number_text(string_view last) {
  if (number_.empty()) return {last.data(), last.size()};
  number_.append(last.data(), last.size());
  return number_;
}

bool TraceHandler::on_number_part(string_view s, error_code& ec) {
  if (skip_depth_ > 0) return true;
  number_.append(s.data(), s.size());
  return number_fits(number_.size(), ec);
}

// A number's text is kept (number_text) while it arrives in parts: whether in parts or not, it may
// be at most kMaxNumberText long, so that the limit does not depend on where buffers end.
bool TraceHandler::number_too_long(error_code& ec) {
  std::string where = frames_.empty() || top() == Frame::TopObject ? "" : event_label() + ": ";
  return fail(ec, fmt::format("{}a number longer than {} characters", where, kMaxNumberText));
}

bool TraceHandler::on_int64(std::int64_t v, string_view s, error_code& ec) {
  if (skip_depth_ > 0) return true;
  std::string_view text = number_text(s);
  bool ok =
      number_fits(text.size(), ec) && number_value(Number{v, static_cast<double>(v), true, true, text}, ec);
  number_.clear();
  return ok;
}

bool TraceHandler::on_uint64(std::uint64_t v, string_view s, error_code& ec) {
  if (skip_depth_ > 0) return true;
  bool fits = v <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  std::string_view text = number_text(s);
  bool ok = number_fits(text.size(), ec) && number_value(Number{fits ? static_cast<std::int64_t>(v) : 0,
                                                                static_cast<double>(v), fits, fits, text},
                                                         ec);
  number_.clear();
  return ok;
}

bool TraceHandler::on_double(double v, string_view s, error_code& ec) {
  if (skip_depth_ > 0) return true;
  std::optional<std::int64_t> integer = as_int64(v);
  std::string_view text = number_text(s);
  bool ok = number_fits(text.size(), ec) &&
            number_value(Number{integer.value_or(0), v, false, integer.has_value(), text}, ec);
  number_.clear();
  return ok;
}

bool TraceHandler::number_value(const Number& n, error_code& ec) {
  if (frames_.empty()) return fail(ec, "the JSON document is a single number, not a trace");
  if (capturing_) {
    capture_.raw_value(n.text);
    limit_capture();
    return true;
  }
  switch (top()) {
    case Frame::TopObject:
      if (pending_ == Field::TraceEvents) return fail(ec, kTraceEventsNotArray);
      return top_level_scalar(n.text);
    case Frame::EventsArray:
      return fail(ec, fmt::format("event #{} is not an object", events_seen_));
    case Frame::Event:
      return event_number(n, ec);
    case Frame::Args:
      return args_number(n, ec);
    case Frame::IntArray:
      if (!n.is_integer)
        return fail(ec, fmt::format("{}: grid/block entries must be integers", event_label()));
      if (int_array_index_ < 3) {
        std::int64_t v = n.as_int;
        int_array_[int_array_index_] =
            v > std::numeric_limits<std::int32_t>::max() ? -1 : static_cast<std::int32_t>(v);
      }
      ++int_array_index_;
      return true;
  }
  return true;
}

// Integer microseconds are nanoseconds at once; other numbers keep their text, read exactly later
// (micros_text_to_nanos), as a double would lose nanoseconds of epoch times.
void TraceHandler::store_time(const Number& n, std::optional<std::int64_t>& ns, std::string& text) {
  constexpr std::int64_t kMaxMicros = std::numeric_limits<std::int64_t>::max() / 1000 - 1;
  if (n.is_integer && n.as_int >= -kMaxMicros && n.as_int <= kMaxMicros) {
    ns = n.as_int * 1000;
    text.clear();
  } else {
    ns.reset();
    text.assign(n.text);
  }
}

bool TraceHandler::event_number(const Number& n, error_code& ec) {
  Field field = pending_;
  pending_ = Field::Unknown;
  // A fractional id keeps its integer part (as before); one with no integer in range is refused.
  auto set_id = [&](IdValue& id) {
    if (!n.in_range) {
      pending_ = field;
      return type_error(ec, "a number within the 64-bit integer range, or a string");
    }
    id.present = true;
    id.is_text = false;
    id.number = n.as_int;
    return true;
  };
  switch (field) {
    case Field::Ts:
      store_time(n, event_.ts_ns, event_.ts_text);
      event_.has_ts = true;
      break;
    case Field::Dur:
      store_time(n, event_.dur_ns, event_.dur_text);
      event_.has_dur = true;
      break;
    case Field::Pid:
      return set_id(event_.pid);
    case Field::Tid:
      return set_id(event_.tid);
    case Field::Id:
      return set_id(event_.id);
    case Field::Ph:
    case Field::Cat:
    case Field::Name:
      pending_ = field;
      return type_error(ec, "a string");
    case Field::Args:
      pending_ = field;
      return type_error(ec, "an object");
    default:
      break;
  }
  return true;
}

bool TraceHandler::args_number(const Number& n, error_code& ec) {
  Field field = pending_;
  pending_ = Field::Unknown;
  // Ids that link events (correlation 1.5 would link to 1) and the device and stream.
  if (is_integer_arg(field) && !n.is_integer) {
    pending_ = field;
    return type_error(ec, "an integer");
  }
  switch (field) {
    case Field::ExternalId:
      event_.external_id = n.as_int;
      break;
    case Field::Correlation:
      event_.correlation = n.as_int;
      break;
    case Field::Device:
      event_.device = n.as_int;
      break;
    case Field::Stream:
      event_.stream = n.as_int;
      break;
    case Field::WaitOnStream:
      event_.wait_on_stream = n.as_int;
      break;
    case Field::WaitOnEventRecord:
      event_.wait_on_event_record = n.as_int;
      break;
    case Field::SequenceNumber:
      event_.sequence_number = n.as_int;
      break;
    case Field::RegistersPerThread:
      event_.registers_per_thread = n.as_int;
      break;
    case Field::SharedMemory:
      event_.shared_memory = n.as_int;
      break;
    case Field::Bytes:
      event_.bytes = n.as_int;
      break;
    case Field::BlocksPerSm:
      event_.blocks_per_sm = n.as_double;
      break;
    case Field::Occupancy:
      event_.occupancy_pct = n.as_double;
      break;
    case Field::MemoryDeviceType:
      event_.memory_device_type = n.as_int;
      break;
    case Field::MemoryDeviceId:
      event_.memory_device_id = n.as_int;
      break;
    case Field::Flops:
      event_.flops = n.as_double;
      break;
    case Field::InElements:
      event_.in_elements = n.as_int;
      break;
    case Field::OutElements:
      event_.out_elements = n.as_int;
      break;
    case Field::GroupSize:
      event_.group_size = n.as_int;
      break;
    case Field::TotalAllocated:
      event_.total_allocated = n.as_int;
      break;
    case Field::TotalReserved:
      event_.total_reserved = n.as_int;
      break;
    case Field::Grid:
    case Field::Block:
      pending_ = field;
      return type_error(ec, "an array of integers");
    default:
      break;
  }
  return true;
}

bool TraceHandler::on_bool(bool v, error_code& ec) {
  if (skip_depth_ > 0) return true;
  if (frames_.empty()) return fail(ec, "the JSON document is a single value, not a trace");
  if (capturing_) {
    capture_.raw_value(v ? "true" : "false");
    limit_capture();
    return true;
  }
  if (pending_ == Field::TraceEvents) return fail(ec, kTraceEventsNotArray);
  if (pending_ == Field::Ts || pending_ == Field::Dur) return type_error(ec, "a number");
  pending_ = Field::Unknown;
  return true;
}

bool TraceHandler::on_null(error_code& ec) {
  if (skip_depth_ > 0) return true;
  if (frames_.empty()) return fail(ec, "the JSON document is a single value, not a trace");
  if (capturing_) {
    capture_.raw_value("null");
    limit_capture();
    return true;
  }
  if (pending_ == Field::TraceEvents) return fail(ec, kTraceEventsNotArray);
  pending_ = Field::Unknown;  // null reads as absent
  return true;
}

}  // namespace perfgate::kineto
