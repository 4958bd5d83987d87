// The Boost.JSON SAX handler for PyTorch's legacy autograd-profiler traces (docs/formats.md,
// "PyTorch legacy profiler JSON"): a bare array of complete events ("ph": "X") with a name, "ts" and
// "dur" in microseconds, a thread ("tid": an integer, or a string for remote events) and "args".
// Each event is handed to the sink when its object ends; no DOM of the trace is built.
#pragma once

#include <boost/json/basic_parser.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "load/kineto/json_capture.h"

namespace perfgate::legacy {

// One event's fields as written; what the event lacks stays empty.
struct RawEvent {
  std::string name;
  std::string phase;            // "X"; flow events ("s", "f") are skipped by the reader
  std::optional<double> ts_us;  // microseconds from the profiler's start
  std::optional<double> dur_us;
  std::string thread;       // the tid as text: "1", or " node_id:0, thread_id:1 "
  std::string input_dims;   // args "Input Dims" as compact JSON, where written
  std::string input_types;  // args "Input type"
  std::string stack;        // args "Call stack" (a string)
};

class EventSink {
 public:
  virtual ~EventSink() = default;
  // Returns an error message (naming what is wrong with the event), empty when fine.
  virtual std::string event(const RawEvent& e) = 0;
};

class EventHandler {
 public:
  using error_code = boost::system::error_code;
  using string_view = boost::json::string_view;

  static constexpr std::size_t max_object_size = std::size_t(-1);
  static constexpr std::size_t max_array_size = std::size_t(-1);
  static constexpr std::size_t max_key_size = 64 * 1024;
  static constexpr std::size_t max_string_size = 1024 * 1024;

  explicit EventHandler(EventSink& sink) : sink_(sink) {}
  const std::string& error() const { return error_; }

  bool on_document_begin(error_code&) { return true; }
  bool on_document_end(error_code&) { return true; }
  bool on_object_begin(error_code& ec);
  bool on_object_end(std::size_t, error_code& ec);
  bool on_array_begin(error_code& ec);
  bool on_array_end(std::size_t, error_code& ec);
  bool on_key_part(string_view s, std::size_t, error_code&);
  bool on_key(string_view s, std::size_t, error_code& ec);
  bool on_string_part(string_view s, std::size_t, error_code&);
  bool on_string(string_view s, std::size_t, error_code& ec);
  bool on_number_part(string_view, error_code&) { return true; }
  bool on_int64(std::int64_t v, string_view, error_code& ec);
  bool on_uint64(std::uint64_t v, string_view, error_code& ec);
  bool on_double(double v, string_view, error_code& ec);
  bool on_bool(bool v, error_code& ec);
  bool on_null(error_code& ec);
  bool on_comment_part(string_view, error_code&) { return true; }
  bool on_comment(string_view, error_code&) { return true; }

 private:
  enum class Field : std::uint8_t { None, Name, Phase, Ts, Dur, Tid, InputDims, InputTypes, Stack };
  bool fail(error_code& ec, std::string message);
  bool number(double value, std::string_view text, error_code& ec);
  bool capturing() const { return capture_depth_ > 0; }

  EventSink& sink_;
  int depth_ = 0;  // open containers: 1 the trace's array, 2 an event, 3 its args
  RawEvent event_;
  Field field_ = Field::None;
  int capture_depth_ = 0;  // the depth at which a captured args value began; 0: none
  kineto::JsonCapture capture_;
  std::string key_;   // a key arriving in parts
  std::string text_;  // a string arriving in parts
  std::string error_;
};

}  // namespace perfgate::legacy
