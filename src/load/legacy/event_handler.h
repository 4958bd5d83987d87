// The Boost.JSON SAX handler for PyTorch's legacy autograd-profiler traces (docs/formats.md,
// "PyTorch legacy profiler JSON"): a bare array of complete events ("ph": "X") with a name, "ts" and
// "dur" in microseconds, a thread ("tid": an integer, or a string for remote events) and "args".
// Each event is handed to the sink when its object ends; no DOM of the trace is built.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "io/json_handler.h"
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

class EventHandler : public ScalarJsonHandler<EventHandler> {
 public:
  explicit EventHandler(EventSink& sink) : sink_(sink) {}

 private:
  friend ScalarJsonHandler<EventHandler>;
  enum class Field : std::uint8_t { None, Name, Phase, Ts, Dur, Tid, InputDims, InputTypes, Stack };

  bool open(bool array, error_code& ec) { return array ? open_array(ec) : open_object(ec); }
  bool close(bool array, error_code& ec) { return array ? close_array() : close_object(ec); }
  bool open_object(error_code& ec);
  bool close_object(error_code& ec);
  bool open_array(error_code& ec);
  bool close_array();
  bool key(std::string_view key, error_code& ec);
  bool scalar(const JsonScalar& value, error_code& ec);
  bool not_an_object(error_code& ec);
  void text(std::string_view value);
  bool number(double value, std::string_view text, error_code& ec);
  bool capturing() const { return capture_depth_ > 0; }

  EventSink& sink_;
  int depth_ = 0;           // open containers: 1 the trace's array, 2 an event, 3 its args
  std::size_t events_ = 0;  // the array's elements so far, each an event
  RawEvent event_;
  Field field_ = Field::None;
  int capture_depth_ = 0;  // the depth at which a captured args value began; 0: none
  kineto::JsonCapture capture_;
};

}  // namespace perfgate::legacy
