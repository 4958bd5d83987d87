#include "load/legacy/event_handler.h"

#include <cmath>
#include <utility>

#include <fmt/format.h>

namespace perfgate::legacy {
namespace {

constexpr int kTraceDepth = 1;  // the bare array
constexpr int kEventDepth = 2;  // an event's object
constexpr int kArgsDepth = 3;   // its "args"

}  // namespace

bool EventHandler::open_object(error_code& ec) {
  ++depth_;
  if (capturing()) {
    capture_.begin_container('{');
    return true;
  }
  if (depth_ == kTraceDepth) return fail(ec, "a JSON object, not the legacy profiler's array of events");
  if (depth_ == kEventDepth) {
    event_ = RawEvent{};
    field_ = Field::None;
    ++events_;
  } else if (depth_ == kArgsDepth + 1 && (field_ == Field::InputDims || field_ == Field::InputTypes)) {
    capture_.reset();
    capture_.begin_container('{');
    capture_depth_ = depth_;
  }
  return true;
}

bool EventHandler::close_object(error_code& ec) {
  if (capturing()) {
    capture_.end_container('}');
    if (depth_ == capture_depth_) capture_depth_ = 0;
    --depth_;
    return true;
  }
  if (depth_ == kEventDepth) {
    --depth_;
    std::string why = sink_.event(event_);
    return why.empty() || fail(ec, std::move(why));
  }
  --depth_;
  field_ = Field::None;
  return true;
}

bool EventHandler::open_array(error_code& ec) {
  ++depth_;
  if (capturing()) {
    capture_.begin_container('[');
    return true;
  }
  if (depth_ == kEventDepth) return not_an_object(ec);
  if (depth_ == kArgsDepth + 1 && (field_ == Field::InputDims || field_ == Field::InputTypes)) {
    capture_.reset();
    capture_.begin_container('[');
    capture_depth_ = depth_;
  }
  return true;
}

bool EventHandler::close_array() {
  if (capturing()) {
    capture_.end_container(']');
    if (depth_ == capture_depth_) {
      capture_depth_ = 0;
      (field_ == Field::InputDims ? event_.input_dims : event_.input_types) = capture_.text();
      field_ = Field::None;
    }
  }
  --depth_;
  return true;
}

bool EventHandler::key(std::string_view key, error_code&) {
  if (capturing()) {
    capture_.key(key);
  } else if (depth_ == kEventDepth) {
    field_ = key == "name"  ? Field::Name
             : key == "ph"  ? Field::Phase
             : key == "ts"  ? Field::Ts
             : key == "dur" ? Field::Dur
             : key == "tid" ? Field::Tid
                            : Field::None;
  } else if (depth_ == kArgsDepth) {
    // What record_shapes and with_stack write where a build records them (Kineto's spellings).
    field_ = key == "Input Dims" || key == "Input dims" ? Field::InputDims
             : key == "Input type"                      ? Field::InputTypes
             : key == "Call stack"                      ? Field::Stack
                                                        : Field::None;
  }
  return true;
}

// The Kineto reader's words for an element of the events' array that is not an object.
bool EventHandler::not_an_object(error_code& ec) {
  return fail(ec, fmt::format("event #{} is not an object", events_));
}

bool EventHandler::scalar(const JsonScalar& v, error_code& ec) {
  if (depth_ == kTraceDepth && !capturing()) return not_an_object(ec);  // [{...}, 5, "x", null]
  switch (v.kind) {
    case JsonScalar::Kind::String:
      text(v.text);
      return true;
    case JsonScalar::Kind::Int:
      return number(static_cast<double>(v.i), std::to_string(v.i), ec);
    case JsonScalar::Kind::UInt:
      return number(static_cast<double>(v.u), std::to_string(v.u), ec);
    case JsonScalar::Kind::Double:
      return number(v.d, fmt::format("{}", v.d), ec);
    case JsonScalar::Kind::Bool:
      if (capturing()) capture_.raw_value(v.b ? "true" : "false");
      return true;
    case JsonScalar::Kind::Null:
      if (capturing()) capture_.raw_value("null");
      return true;
  }
  return true;
}

void EventHandler::text(std::string_view value) {
  if (capturing()) {
    capture_.string_value(value);
  } else if (depth_ == kEventDepth) {
    if (field_ == Field::Name) event_.name = value;
    if (field_ == Field::Phase) event_.phase = value;
    if (field_ == Field::Tid) event_.thread = value;
  } else if (depth_ == kArgsDepth && field_ == Field::Stack) {
    event_.stack = value;
  }
}

bool EventHandler::number(double value, std::string_view text, error_code& ec) {
  if (capturing()) {
    capture_.raw_value(text);
    return true;
  }
  if (depth_ != kEventDepth) return true;
  if (field_ == Field::Ts || field_ == Field::Dur) {
    if (!std::isfinite(value)) return fail(ec, "an event's time is not a finite number");
    (field_ == Field::Ts ? event_.ts_us : event_.dur_us) = value;
  } else if (field_ == Field::Tid) {
    event_.thread = text;
  }
  return true;
}

}  // namespace perfgate::legacy
