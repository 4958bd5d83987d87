#include "load/kineto/trace_handler.h"

#include <fmt/format.h>

#include "common/utf8.h"
#include "load/kineto/event_builder.h"

// The handler's structure: containers, keys, captured values and messages. Its string values are
// read in trace_handler_strings.cpp, numbers, booleans and nulls in trace_handler_scalars.cpp.
namespace perfgate::kineto {

// "event #12 "aten::mm" (cpu_op)": its position in traceEvents, then the name and category read so
// far (a message may come before them).
std::string TraceHandler::event_label() const {
  std::string label = fmt::format("event #{}", events_seen_ - 1);
  // The name and the category are checked for UTF-8 by the builder, after this message may be
  // written: repaired here (a valid text comes back as it is).
  std::size_t replaced = 0;
  if (!event_.name.empty()) label += fmt::format(" \"{}\"", repair_utf8(event_.name.substr(0, 80), replaced));
  if (!event_.cat.empty()) label += fmt::format(" ({})", repair_utf8(event_.cat.substr(0, 40), replaced));
  return label;
}

std::uint64_t TraceHandler::invalid_utf8_strings() const {
  return invalid_utf8_ + builder_.invalid_utf8_strings();
}

bool TraceHandler::type_error(error_code& ec, const char* expected) {
  const char* key = field_label(pending_);
  if (frame_ == Frame::Document || frame_ == Frame::TopObject)
    return fail(ec, fmt::format("top-level key '{}' must be {}", key, expected));
  return fail(ec, fmt::format("{}: field '{}' must be {}", event_label(), key, expected));
}

void TraceHandler::start_skip() {
  enter(Frame::Skip, Field::Unknown);
  skip_depth_ = 1;
}

void TraceHandler::start_capture(CaptureTarget target, char open) {
  capture_target_ = target;
  capture_.reset();
  capture_.begin_container(open);
  enter(Frame::Capture, Field::Captured);
}

// A value captured past kMaxKeptString (its text would grow with the input): the rest of it is
// skipped. Shapes and types are dropped, as finish_capture drops long ones; a metadata document is
// refused when the trace is completed (TraceMetadataText::too_long).
void TraceHandler::abandon_capture() {
  skip_depth_ = static_cast<std::uint64_t>(capture_.depth());
  frame_ = Frame::Skip;  // in the capture's place: leave() returns to the frame around it
  pending_ = Field::Unknown;
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

// The containers the inline callbacks leave here: the document's, the top level's, skipped and
// captured values, and wrong types.
bool TraceHandler::begin_container(char open, error_code& ec) {
  Field field = pending_;
  switch (frame_) {
    case Frame::Skip:
    case Frame::Capture:
      return open_nested(open);
    case Frame::Document:
      if (open == '[') {
        metadata_.saw_trace_events = true;
        enter(Frame::EventsArray, Field::EventsArrayItem);
      } else {
        enter(Frame::TopObject, Field::Unknown);
      }
      return true;
    case Frame::TopObject:
      if (field == Field::TraceEvents) {
        if (open != '[') return fail(ec, kTraceEventsNotArray);
        metadata_.saw_trace_events = true;
        enter(Frame::EventsArray, Field::EventsArrayItem);
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
      enter(Frame::Event, Field::Unknown);
      return true;
    case Frame::Event:
      if (field == Field::Args) {
        if (open != '{') return fail(ec, fmt::format("{}: field 'args' must be an object", event_label()));
        enter(Frame::Args, Field::Unknown);
        return true;
      }
      if (field == Field::Ts || field == Field::Dur || field == Field::Name || field == Field::Ph)
        return type_error(ec, field == Field::Name || field == Field::Ph ? "a string" : "a number");
      if (field == Field::Pid || field == Field::Tid || field == Field::Id)
        return type_error(ec, "a number or a string");
      start_skip();
      return true;
    case Frame::Args:
      if ((field == Field::Grid || field == Field::Block) && open == '[') {
        int_array_ = field == Field::Grid ? event_.grid : event_.block;
        int_array_index_ = 0;
        enter(Frame::IntArray, Field::IntArrayItem);
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
      if (is_integer_arg(field)) return type_error(ec, "an integer");
      start_skip();
      return true;
    case Frame::IntArray:
      return fail(ec, fmt::format("{}: grid/block entries must be integers", event_label()));
  }
  return true;
}

// A container of a captured value has closed; the capture ends with its outermost one.
bool TraceHandler::end_captured(char close) {
  capture_.end_container(close);
  if (capture_.depth() == 0) {
    finish_capture();
    leave();
  } else {
    limit_capture();
  }
  return true;
}

bool TraceHandler::add_event(error_code& ec) {
  std::string problem = builder_.add(event_, events_seen_ - 1);
  if (!problem.empty()) return fail(ec, fmt::format("{}: {}", event_label(), problem));
  return true;
}

// Args that must hold integers: wrong types are errors (docs/formats.md), not silently dropped.
bool TraceHandler::is_integer_arg(Field field) {
  return field == Field::ExternalId || field == Field::Correlation || field == Field::SequenceNumber ||
         field == Field::Device || field == Field::Stream || field == Field::WaitOnStream ||
         field == Field::WaitOnEventRecord;
}

// A key that arrived in parts (across the parser's input buffers).
bool TraceHandler::joined_key(string_view last) {
  key_.append(last.data(), last.size());
  read_key(key_);
  key_.clear();
  return true;
}

bool TraceHandler::other_key(std::string_view key) {
  switch (frame_) {
    case Frame::TopObject:
      pending_ = top_level_field(key);
      if (pending_ == Field::Unknown) {
        pending_ = Field::TopLevelOther;
        top_key_.assign(key);
      }
      break;
    case Frame::Capture:
      capture_.key(key);
      limit_capture();
      break;
    default:  // keys stand only in objects: not reached
      pending_ = Field::Unknown;
  }
  return true;
}

}  // namespace perfgate::kineto
