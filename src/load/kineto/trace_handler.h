// The Boost.JSON SAX handler for Chrome/Kineto traces. It walks the document with a small frame
// stack, keeps only the fields perfgate uses in a reused RawEvent, and hands each finished event
// to the EventBuilder: no DOM of the trace is ever built.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/utf8.h"
#include "io/json_handler.h"
#include "load/kineto/fields.h"
#include "load/kineto/json_capture.h"
#include "load/kineto/raw_event.h"

namespace perfgate::kineto {

// A document with a 'traceEvents' key is a trace, however malformed: never "not a trace".
inline constexpr const char* kTraceEventsNotArray = "top-level key 'traceEvents' must be an array";

class EventBuilder;

// The args kept as numbers, by field: one table for the handler's fast path and args_number.
using IntegerArg = std::optional<std::int64_t> RawEventScalars::*;
using DoubleArg = std::optional<double> RawEventScalars::*;
constexpr IntegerArg integer_arg(Field field) {
  switch (field) {
    case Field::ExternalId:
      return &RawEventScalars::external_id;
    case Field::Correlation:
      return &RawEventScalars::correlation;
    case Field::Device:
      return &RawEventScalars::device;
    case Field::Stream:
      return &RawEventScalars::stream;
    case Field::WaitOnStream:
      return &RawEventScalars::wait_on_stream;
    case Field::WaitOnEventRecord:
      return &RawEventScalars::wait_on_event_record;
    case Field::SequenceNumber:
      return &RawEventScalars::sequence_number;
    case Field::RegistersPerThread:
      return &RawEventScalars::registers_per_thread;
    case Field::SharedMemory:
      return &RawEventScalars::shared_memory;
    case Field::Bytes:
      return &RawEventScalars::bytes;
    case Field::DmaSize:
      return &RawEventScalars::dma_size;
    case Field::MemoryDeviceType:
      return &RawEventScalars::memory_device_type;
    case Field::MemoryDeviceId:
      return &RawEventScalars::memory_device_id;
    case Field::InElements:
      return &RawEventScalars::in_elements;
    case Field::OutElements:
      return &RawEventScalars::out_elements;
    case Field::GroupSize:
      return &RawEventScalars::group_size;
    case Field::TotalAllocated:
      return &RawEventScalars::total_allocated;
    case Field::TotalReserved:
      return &RawEventScalars::total_reserved;
    default:
      return nullptr;
  }
}
constexpr DoubleArg double_arg(Field field) {
  switch (field) {
    case Field::BlocksPerSm:
      return &RawEventScalars::blocks_per_sm;
    case Field::Occupancy:
      return &RawEventScalars::occupancy_pct;
    case Field::Flops:
      return &RawEventScalars::flops;
    default:
      return nullptr;
  }
}

// Small top-level documents kept as text and parsed after the stream ends.
struct TraceMetadataText {
  std::string device_properties;
  std::string distributed_info;
  std::string schema_version;
  std::string trace_name;
  std::string base_time_ns;
  std::vector<std::pair<std::string, std::string>> attributes;  // other top-level scalars
  bool saw_trace_events = false;
  std::string too_long;  // a metadata document longer than TraceHandler::kMaxKeptString: its key
};

// The callbacks are the parser's per-token path (ResNet-50: 2.2 million tokens in 75,718 events).
// Each one that the events' common tokens reach is defined here, inline, so that the parser's
// instantiation (kineto_reader.cpp, parallel_reader.cpp) takes it in, and is one test or one
// switch: `pending_` says what the next value is (set by the key before it, or by the container it
// is in), so a value nobody reads costs a comparison. Everything else is out of line.
class TraceHandler : public JsonHandler {
 public:
  static constexpr std::size_t max_string_size = 64 * 1024 * 1024;
  static constexpr std::size_t kMaxKeptString = 1024 * 1024;  // longest name, stack or shapes kept
  static constexpr std::size_t kMaxNumberText = 4096;         // longest number (its text is kept)

  explicit TraceHandler(EventBuilder& builder) : builder_(builder) {}

  const TraceMetadataText& metadata() const { return metadata_; }
  std::uint64_t events_seen() const { return events_seen_; }
  // The document's outermost container has closed.
  bool document_closed() const { return metadata_.saw_trace_events && frame_ == Frame::Document; }
  // The input buffer the parser was given is about to be reused or freed: the event in progress
  // copies the text it holds as views. Call after every write_some before the buffer changes.
  void keep_views();
  // String values that were not valid UTF-8: each bad byte was replaced by U+FFFD. The names and
  // call stacks among them are counted by the builder, which checks each distinct one once.
  std::uint64_t invalid_utf8_strings() const;

  bool on_object_begin(error_code& ec) {
    switch (frame_) {
      case Frame::EventsArray:
        event_.clear();
        ++events_seen_;
        enter(Frame::Event, Field::Unknown);
        return true;
      case Frame::Event:
        if (pending_ != Field::Args) break;
        enter(Frame::Args, Field::Unknown);
        return true;
      default:
        break;
    }
    return open_nested('{') || begin_container('{', ec);
  }
  bool on_object_end(std::size_t, error_code& ec) { return end_container('}', ec); }
  bool on_array_begin(error_code& ec) {
    switch (frame_) {
      case Frame::Args:
        if (pending_ == Field::InputDims || pending_ == Field::InputTypes ||
            pending_ == Field::ConcreteInputs) {
          start_capture(pending_ == Field::InputDims    ? CaptureTarget::InputDims
                        : pending_ == Field::InputTypes ? CaptureTarget::InputTypes
                                                        : CaptureTarget::ConcreteInputs,
                        '[');
          return true;
        }
        if (pending_ == Field::Grid || pending_ == Field::Block) {
          int_array_ = pending_ == Field::Grid ? event_.grid : event_.block;
          int_array_index_ = 0;
          enter(Frame::IntArray, Field::IntArrayItem);
          return true;
        }
        break;
      default:
        break;
    }
    return open_nested('[') || begin_container('[', ec);
  }
  bool on_array_end(std::size_t, error_code& ec) { return end_container(']', ec); }

  bool on_key_part(string_view s, std::size_t, error_code&) {
    if (frame_ != Frame::Skip) key_.append(s.data(), s.size());
    return true;
  }
  bool on_key(string_view s, std::size_t, error_code&) {
    return key_.empty() ? read_key({s.data(), s.size()}) : joined_key(s);
  }

  bool on_string_part(string_view s, std::size_t, error_code& ec) {
    if (pending_ == Field::Unknown) return true;  // a value nobody reads (or one being skipped)
    text_.append(s.data(), s.size());
    return check_kept_size(text_.size(), ec);
  }
  bool on_string(string_view s, std::size_t, error_code& ec) {
    if (pending_ == Field::Unknown) return true;
    std::string_view value(s.data(), s.size());
    if (!text_.empty() || value.size() > kMaxKeptString) return string_in_parts(value, ec);
    value_in_input_ = true;
    switch (pending_) {
      // Checked for UTF-8 by the builder: a name or a call stack when it is interned (once per
      // text), a phase or a category where it is listed as ignored (known ones are ASCII).
      case Field::Name:
        event_.name = value;
        return true;
      case Field::CallStack:
        event_.call_stack = value;
        return true;
      case Field::Ph:
        event_.ph = value;
        return true;
      case Field::Cat:
        event_.cat = value;
        return true;
      case Field::Pid:  // "25738": an integer written as text (PyTorch 1.8) needs no UTF-8 check
        if (decimal_id(event_.pid, value)) return true;
        break;
      case Field::Tid:
        if (decimal_id(event_.tid, value)) return true;
        break;
      case Field::Captured:  // the types of an op's inputs
        if (!capture_.plain_string_value(value)) {
          if (!is_valid_utf8(value)) break;
          capture_.string_value(value);
        }
        limit_capture();
        return true;
      default:
        break;
    }
    return checked_string(value, ec);
  }

  bool on_number_part(string_view s, error_code& ec) {
    if (pending_ == Field::Unknown) return true;
    number_.append(s.data(), s.size());
    return number_fits(number_.size(), ec);
  }
  // An integer's text is at most 20 characters: within kMaxNumberText. The common cases (a time,
  // an id, an integer arg, a grid or block entry, a captured shape) are stored here; this part
  // keeps no frame of its own, so the parser's number loop takes it in, and every other case (a
  // number in parts, a time out of range, a value of the wrong type) is int64_value's.
  [[gnu::always_inline]] bool on_int64(std::int64_t v, string_view s, error_code& ec) {
    if (pending_ == Field::Unknown) return true;
    if (number_.empty()) {
      switch (pending_) {
        case Field::Ts:
          if (!in_micros_range(v)) break;
          event_.ts_ns = v * 1000;
          event_.has_ts = true;
          return true;
        case Field::Dur:
          if (!in_micros_range(v)) break;
          event_.dur_ns = v * 1000;
          event_.has_dur = true;
          return true;
        case Field::Pid:
          return set_id(event_.pid, v);
        case Field::Tid:
          return set_id(event_.tid, v);
        case Field::Id:
          return set_id(event_.id, v);
        case Field::IntArrayItem:
          int_array_item(v);
          return true;
        case Field::Captured:  // the shapes of an op's inputs
          capture_.raw_value({s.data(), s.size()});
          limit_capture();
          return true;
        default:
          if (IntegerArg arg = integer_arg(pending_)) {
            event_.*arg = v;
            return true;
          }
          if (DoubleArg arg = double_arg(pending_)) {  // "est. achieved occupancy %": 50
            event_.*arg = static_cast<double>(v);
            return true;
          }
          break;
      }
    }
    return int64_value(v, s, ec);
  }
  bool on_uint64(std::uint64_t v, string_view s, error_code& ec);
  bool on_double(double v, string_view s, error_code& ec);
  bool on_bool(bool v, error_code& ec);
  bool on_null(error_code& ec);

 private:
  enum class Frame : unsigned char { Document, TopObject, EventsArray, Event, Args, IntArray, Skip, Capture };
  enum class CaptureTarget : unsigned char {
    InputDims,
    InputTypes,
    ConcreteInputs,
    DeviceProperties,
    DistributedInfo
  };

  struct Number {
    std::int64_t as_int = 0;  // the integer part; 0 where !in_range
    double as_double = 0;
    bool is_integer = false;  // written as an integer that fits int64
    bool in_range = false;    // has an integer part within int64 (not NaN, infinite or huge)
    std::string_view text;
  };

  static constexpr std::int64_t kMaxMicros = INT64_MAX / 1000 - 1;
  static bool in_micros_range(std::int64_t v) { return v >= -kMaxMicros && v <= kMaxMicros; }
  static bool set_id(IdValue& id, std::int64_t v) {
    id.present = true;
    id.is_text = false;
    id.number = v;
    return true;
  }

  // An id written as up to 18 decimal digits; else false (set_id_text reads the rest: "0x1f",
  // "-3", "stream 7").
  static bool decimal_id(IdValue& id, std::string_view s) {
    if (s.empty() || s.size() > 18) return false;
    std::int64_t v = 0;
    for (char c : s) {
      if (c < '0' || c > '9') return false;
      v = v * 10 + (c - '0');
    }
    return set_id(id, v);
  }

  // A container opens inside the current one: `frame` with what its first value means.
  void enter(Frame frame, Field pending) {
    parents_.push_back(frame_);
    frame_ = frame;
    pending_ = pending;
  }
  // The current container has closed: back to the one around it.
  void leave() {
    frame_ = parents_.back();
    parents_.pop_back();
    pending_ = frame_ == Frame::EventsArray ? Field::EventsArrayItem
               : frame_ == Frame::Document  ? Field::Document
                                            : Field::Unknown;
  }
  // A container opening inside a skipped or captured value; false elsewhere.
  bool open_nested(char open) {
    if (frame_ == Frame::Skip) {
      ++skip_depth_;
      return true;
    }
    if (frame_ != Frame::Capture) return false;
    capture_.begin_container(open);
    limit_capture();
    return true;
  }
  bool begin_container(char open, error_code& ec);
  bool end_container(char close, error_code& ec) {
    switch (frame_) {
      case Frame::Event:
        leave();
        return add_event(ec);
      case Frame::Skip:
        if (--skip_depth_ == 0) leave();
        return true;
      case Frame::Capture:
        return end_captured(close);
      default:  // args, grid and block, traceEvents, the top level
        leave();
        return true;
    }
  }
  bool end_captured(char close);
  bool add_event(error_code& ec);
  // What the value after `key` is, in the current container.
  bool read_key(std::string_view key) {
    switch (frame_) {
      case Frame::Event:
        pending_ = event_field(key);
        return true;
      case Frame::Args:
        pending_ = args_field(key);
        return true;
      case Frame::Skip:
        return true;
      default:
        return other_key(key);
    }
  }
  bool joined_key(string_view last);
  bool other_key(std::string_view key);
  bool check_kept_size(std::size_t bytes, error_code& ec);
  bool string_in_parts(std::string_view last, error_code& ec);
  bool checked_string(std::string_view s, error_code& ec);
  bool string_value(std::string_view s, error_code& ec);
  static bool is_integer_arg(Field field);
  bool number_in_parts(Number n, string_view last, error_code& ec);
  [[gnu::noinline]] bool int64_value(std::int64_t v, string_view s, error_code& ec);
  // An entry of args.grid or args.block: the first three are kept (-1 where over int32).
  void int_array_item(std::int64_t v) {
    if (int_array_index_ < 3)
      int_array_[int_array_index_] = v > INT32_MAX ? -1 : static_cast<std::int32_t>(v);
    ++int_array_index_;
  }
  bool number_value(const Number& n, error_code& ec);
  bool event_number(const Number& n, error_code& ec);
  static void store_time(const Number& n, std::optional<std::int64_t>& ns, std::string& text);
  bool number_fits(std::size_t length, error_code& ec) {
    return length <= kMaxNumberText || number_too_long(ec);
  }
  bool number_too_long(error_code& ec);
  bool args_number(const Number& n, error_code& ec);
  bool event_string(std::string_view s, error_code& ec);
  bool args_string(std::string_view s, error_code& ec);
  void keep_text(std::string_view& field, std::string& copy, std::string_view s) const;
  bool top_level_scalar(std::string_view text);
  void start_skip();
  void start_capture(CaptureTarget target, char open);
  // Inline: called for every token of every captured value (shapes, types).
  void limit_capture() {
    if (capture_.text().size() > kMaxKeptString) abandon_capture();
  }
  void abandon_capture();
  void finish_capture();
  bool type_error(error_code& ec, const char* expected);
  std::string event_label() const;

  EventBuilder& builder_;
  RawEvent event_;
  TraceMetadataText metadata_;
  Frame frame_ = Frame::Document;
  std::vector<Frame> parents_;       // the frames around frame_
  Field pending_ = Field::Document;  // what the next value is (Unknown: nobody reads it)
  std::string key_;                  // key text, when it arrives in parts
  std::string top_key_;              // last top-level key (kept for unknown scalar attributes)
  std::string text_;                 // string value arriving in parts
  std::string number_;               // number text arriving in parts
  std::uint64_t skip_depth_ = 0;     // Frame::Skip: containers open inside the skipped value
  CaptureTarget capture_target_ = CaptureTarget::InputDims;
  JsonCapture capture_;
  int int_array_index_ = 0;
  std::int32_t* int_array_ = nullptr;
  std::uint64_t events_seen_ = 0;
  std::uint64_t invalid_utf8_ = 0;
  std::string repaired_;         // the current string value with invalid UTF-8 replaced
  bool value_in_input_ = false;  // the current string value is a view into the parser's input
};

}  // namespace perfgate::kineto
