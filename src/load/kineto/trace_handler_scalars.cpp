#include <limits>

#include <fmt/format.h>

#include "load/kineto/event_builder.h"
#include "load/kineto/number_text.h"
#include "load/kineto/trace_handler.h"

// The handler's numbers (times kept exactly, ids, args), booleans and nulls.
namespace perfgate::kineto {
namespace {

// A double's integer part, where it has one in range: NaN (which "0e400" parses as), infinities
// and magnitudes beyond int64 have none (converting them is undefined behaviour).
std::optional<std::int64_t> as_int64(double v) {
  if (!(v > -9.2e18 && v < 9.2e18)) return std::nullopt;
  return static_cast<std::int64_t>(v);
}

}  // namespace

// A number that came in parts (across the parser's input buffers): its text joined.
bool TraceHandler::number_in_parts(Number n, string_view last, error_code& ec) {
  number_.append(last.data(), last.size());
  n.text = number_;
  bool ok = number_fits(number_.size(), ec) && number_value(n, ec);
  number_.clear();
  return ok;
}

// An integer on_int64 does not store where it stands: one in parts, or one another case reads.
bool TraceHandler::int64_value(std::int64_t v, string_view s, error_code& ec) {
  if (!number_.empty()) return number_in_parts(Number{v, static_cast<double>(v), true, true, {}}, s, ec);
  return number_value(Number{v, static_cast<double>(v), true, true, {s.data(), s.size()}}, ec);
}

// A number's text is kept (number_in_parts) while it arrives in parts: whether in parts or not, it
// may be at most kMaxNumberText long, so that the limit does not depend on where buffers end.
bool TraceHandler::number_too_long(error_code& ec) {
  std::string where = frame_ == Frame::Document || frame_ == Frame::TopObject ? "" : event_label() + ": ";
  return fail(ec, fmt::format("{}a number longer than {} characters", where, kMaxNumberText));
}

bool TraceHandler::on_uint64(std::uint64_t v, string_view s, error_code& ec) {
  if (pending_ == Field::Unknown) return true;
  bool fits = v <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  Number n{fits ? static_cast<std::int64_t>(v) : 0, static_cast<double>(v), fits, fits, {s.data(), s.size()}};
  if (!number_.empty()) return number_in_parts(n, s, ec);
  return number_fits(s.size(), ec) && number_value(n, ec);
}

bool TraceHandler::on_double(double v, string_view s, error_code& ec) {
  if (pending_ == Field::Unknown) return true;
  // A time with a fraction ("ts": 1712195495519689.047, nanosecond traces and ROCm's) is read
  // exactly where it lies, not kept as text and read when the event is built (issue 58: 79 M of the
  // 570 M instructions of v100_ns_resolution_rank0).
  if ((pending_ == Field::Ts || pending_ == Field::Dur) && number_.empty() && s.size() <= kMaxNumberText) {
    if (std::optional<std::int64_t> ns = micros_text_to_nanos({s.data(), s.size()})) {
      bool ts = pending_ == Field::Ts;
      (ts ? event_.ts_ns : event_.dur_ns) = ns;
      (ts ? event_.has_ts : event_.has_dur) = true;
      (ts ? event_.ts_text : event_.dur_text).clear();
      return true;
    }
  }
  std::optional<std::int64_t> integer = as_int64(v);
  Number n{integer.value_or(0), v, false, integer.has_value(), {s.data(), s.size()}};
  if (!number_.empty()) return number_in_parts(n, s, ec);
  return number_fits(s.size(), ec) && number_value(n, ec);
}

bool TraceHandler::number_value(const Number& n, error_code& ec) {
  switch (frame_) {
    case Frame::Document:
      return fail(ec, "the JSON document is a single number, not a trace");
    case Frame::Capture:
      capture_.raw_value(n.text);
      limit_capture();
      return true;
    case Frame::Skip:
      return true;
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
      int_array_item(n.as_int);
      return true;
  }
  return true;
}

// Integer microseconds are nanoseconds at once; other numbers keep their text, read exactly later
// (micros_text_to_nanos), as a double would lose nanoseconds of epoch times.
void TraceHandler::store_time(const Number& n, std::optional<std::int64_t>& ns, std::string& text) {
  if (n.is_integer && in_micros_range(n.as_int)) {
    ns = n.as_int * 1000;
    text.clear();
  } else {
    ns.reset();
    text.assign(n.text);
  }
}

bool TraceHandler::event_number(const Number& n, error_code& ec) {
  // A fractional id keeps its integer part (as before); one with no integer in range is refused.
  auto set_number_id = [&](IdValue& id) {
    if (!n.in_range) return type_error(ec, "a number within the 64-bit integer range, or a string");
    return set_id(id, n.as_int);
  };
  switch (pending_) {
    case Field::Ts:
      store_time(n, event_.ts_ns, event_.ts_text);
      event_.has_ts = true;
      break;
    case Field::Dur:
      store_time(n, event_.dur_ns, event_.dur_text);
      event_.has_dur = true;
      break;
    case Field::Pid:
      return set_number_id(event_.pid);
    case Field::Tid:
      return set_number_id(event_.tid);
    case Field::Id:
      return set_number_id(event_.id);
    case Field::Ph:
    case Field::Cat:
    case Field::Name:
      return type_error(ec, "a string");
    case Field::Args:
      return type_error(ec, "an object");
    default:
      break;
  }
  return true;
}

bool TraceHandler::args_number(const Number& n, error_code& ec) {
  Field field = pending_;
  // Ids that link events (correlation 1.5 would link to 1) and the device and stream.
  if (is_integer_arg(field) && !n.is_integer) return type_error(ec, "an integer");
  if (IntegerArg arg = integer_arg(field)) {
    event_.*arg = n.as_int;  // a fraction where one is allowed (a byte count) keeps its integer part
    return true;
  }
  if (DoubleArg arg = double_arg(field)) {
    event_.*arg = n.as_double;
    return true;
  }
  if (field == Field::Grid || field == Field::Block) return type_error(ec, "an array of integers");
  return true;
}

bool TraceHandler::on_bool(bool v, error_code& ec) {
  if (pending_ == Field::Unknown) return true;
  if (frame_ == Frame::Document) return fail(ec, "the JSON document is a single value, not a trace");
  if (frame_ == Frame::Capture) {
    capture_.raw_value(v ? "true" : "false");
    limit_capture();
    return true;
  }
  if (pending_ == Field::TraceEvents) return fail(ec, kTraceEventsNotArray);
  if (pending_ == Field::Ts || pending_ == Field::Dur) return type_error(ec, "a number");
  return true;
}

bool TraceHandler::on_null(error_code& ec) {
  if (pending_ == Field::Unknown) return true;  // null reads as absent
  if (frame_ == Frame::Document) return fail(ec, "the JSON document is a single value, not a trace");
  if (frame_ == Frame::Capture) {
    capture_.raw_value("null");
    limit_capture();
    return true;
  }
  if (pending_ == Field::TraceEvents) return fail(ec, kTraceEventsNotArray);
  return true;
}

}  // namespace perfgate::kineto
