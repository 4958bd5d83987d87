#include "load/legacy/event_handler.h"

#include <boost/json/error.hpp>

#include <cmath>
#include <utility>

#include <fmt/format.h>

namespace perfgate::legacy {
namespace {

constexpr int kTraceDepth = 1;  // the bare array
constexpr int kEventDepth = 2;  // an event's object
constexpr int kArgsDepth = 3;   // its "args"

}  // namespace

bool EventHandler::fail(error_code& ec, std::string message) {
  if (error_.empty()) error_ = std::move(message);
  ec = boost::json::error::syntax;
  return false;
}

bool EventHandler::on_object_begin(error_code& ec) {
  ++depth_;
  if (capturing()) {
    capture_.begin_container('{');
    return true;
  }
  if (depth_ == kTraceDepth) return fail(ec, "a JSON object, not the legacy profiler's array of events");
  if (depth_ == kEventDepth) {
    event_ = RawEvent{};
    field_ = Field::None;
  } else if (depth_ == kArgsDepth + 1 && (field_ == Field::InputDims || field_ == Field::InputTypes)) {
    capture_.reset();
    capture_.begin_container('{');
    capture_depth_ = depth_;
  }
  return true;
}

bool EventHandler::on_object_end(std::size_t, error_code& ec) {
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

bool EventHandler::on_array_begin(error_code& ec) {
  ++depth_;
  if (capturing()) {
    capture_.begin_container('[');
    return true;
  }
  if (depth_ == kEventDepth) return fail(ec, "a list in the trace's array, where an event's object belongs");
  if (depth_ == kArgsDepth + 1 && (field_ == Field::InputDims || field_ == Field::InputTypes)) {
    capture_.reset();
    capture_.begin_container('[');
    capture_depth_ = depth_;
  }
  return true;
}

bool EventHandler::on_array_end(std::size_t, error_code&) {
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

bool EventHandler::on_key_part(string_view s, std::size_t, error_code&) {
  key_.append(s.data(), s.size());
  return true;
}

bool EventHandler::on_key(string_view s, std::size_t, error_code&) {
  std::string_view key(s.data(), s.size());
  if (!key_.empty()) {
    key_.append(key);
    key = key_;
  }
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
  key_.clear();
  return true;
}

bool EventHandler::on_string_part(string_view s, std::size_t, error_code&) {
  text_.append(s.data(), s.size());
  return true;
}

bool EventHandler::on_string(string_view s, std::size_t, error_code&) {
  std::string_view value(s.data(), s.size());
  if (!text_.empty()) {
    text_.append(value);
    value = text_;
  }
  if (capturing()) {
    capture_.string_value(value);
  } else if (depth_ == kEventDepth) {
    if (field_ == Field::Name) event_.name = value;
    if (field_ == Field::Phase) event_.phase = value;
    if (field_ == Field::Tid) event_.thread = value;
  } else if (depth_ == kArgsDepth && field_ == Field::Stack) {
    event_.stack = value;
  }
  text_.clear();
  return true;
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

bool EventHandler::on_int64(std::int64_t v, string_view, error_code& ec) {
  return number(static_cast<double>(v), std::to_string(v), ec);
}

bool EventHandler::on_uint64(std::uint64_t v, string_view, error_code& ec) {
  return number(static_cast<double>(v), std::to_string(v), ec);
}

bool EventHandler::on_double(double v, string_view, error_code& ec) {
  return number(v, fmt::format("{}", v), ec);
}

bool EventHandler::on_bool(bool v, error_code&) {
  if (capturing()) capture_.raw_value(v ? "true" : "false");
  return true;
}

bool EventHandler::on_null(error_code&) {
  if (capturing()) capture_.raw_value("null");
  return true;
}

}  // namespace perfgate::legacy
