#include <limits>

#include <fmt/format.h>

#include "load/kineto/event_builder.h"
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
