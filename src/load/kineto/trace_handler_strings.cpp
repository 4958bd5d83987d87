#include <charconv>

#include <fmt/format.h>

#include "common/utf8.h"
#include "load/kineto/event_builder.h"
#include "load/kineto/trace_handler.h"

// The handler's string values: event fields, args, ids given as text.
namespace perfgate::kineto {
namespace {

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

// The limit applies to the whole value, whether the parser hands it over in parts or at once.
bool TraceHandler::check_kept_size(std::size_t bytes, error_code& ec) {
  if (bytes > kMaxKeptString && frame_ != Frame::Capture && frame_ != Frame::TopObject &&
      frame_ != Frame::Document)
    return fail(ec, fmt::format("{}: the value of '{}' is longer than {} bytes", event_label(),
                                field_label(pending_), kMaxKeptString));
  return true;
}

// A value read that came in parts, or is longer than the limit.
bool TraceHandler::string_in_parts(std::string_view last, error_code& ec) {
  if (!check_kept_size(text_.size() + last.size(), ec)) return false;
  value_in_input_ = text_.empty();
  std::string_view value = last;
  if (!text_.empty()) {
    text_.append(last);
    value = text_;
  }
  bool ok = checked_string(value, ec);
  text_.clear();
  return ok;
}

// The parser allows invalid UTF-8 (Kineto has written raw bytes in names): repaired here, once,
// so that every text the model holds, and every output, is valid UTF-8.
bool TraceHandler::checked_string(std::string_view value, error_code& ec) {
  if (!is_valid_utf8(value)) {
    std::size_t replaced = 0;
    repaired_ = repair_utf8(value, replaced);
    value = repaired_;
    value_in_input_ = false;
    ++invalid_utf8_;
  }
  return string_value(value, ec);
}

bool TraceHandler::string_value(std::string_view s, error_code& ec) {
  switch (frame_) {
    case Frame::Document:
      return fail(ec, "the JSON document is a single string, not a trace");
    case Frame::Capture:
      capture_.string_value(s);
      limit_capture();
      return true;
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
    case Frame::Skip:
      return true;
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
    case Field::TopLevelOther:
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
  keep(event_.call_stack, event_.call_stack_copy);
}

bool TraceHandler::event_string(std::string_view s, error_code& ec) {
  switch (pending_) {
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
      return type_error(ec, "a number");
    case Field::Args:
      return type_error(ec, "an object");
    default:
      break;
  }
  return true;
}

bool TraceHandler::args_string(std::string_view s, error_code& ec) {
  Field field = pending_;
  // Ids that link events must be integers; descriptive args vary by vendor and are best effort.
  auto integer = [&](std::optional<std::int64_t>& out) {
    auto n = parse_integer_text(s);
    if (!n) return type_error(ec, "an integer");
    out = n;
    return true;
  };
  auto lenient = [&](std::optional<std::int64_t>& out) {
    if (auto n = parse_integer_text(s)) out = n;
    return true;
  };
  switch (field) {
    case Field::CallStack:
      keep_text(event_.call_stack, event_.call_stack_copy, s);
      break;
    case Field::ArgName:
      event_.arg_name.assign(s);
      break;
    case Field::LaunchedKernel:
      event_.launched_kernel.assign(s);
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
    case Field::DmaSize:
      return lenient(event_.dma_size);
    case Field::DmaDirection:
      event_.dma_direction.assign(s.substr(0, 32));
      break;
    case Field::BlocksPerSm:
    case Field::Occupancy: {
      auto d = parse_double_text(s);
      if (!d) return type_error(ec, "a number");
      (field == Field::BlocksPerSm ? event_.blocks_per_sm : event_.occupancy_pct) = d;
      break;
    }
    default:
      break;  // other args are free-form: ROCm writes sizes and kinds as text
  }
  return true;
}

}  // namespace perfgate::kineto
