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

}  // namespace perfgate::kineto
