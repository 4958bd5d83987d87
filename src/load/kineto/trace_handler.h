// The Boost.JSON SAX handler for Chrome/Kineto traces. It walks the document with a small frame
// stack, keeps only the fields perfgate uses in a reused RawEvent, and hands each finished event
// to the EventBuilder: no DOM of the trace is ever built.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "io/json_handler.h"
#include "load/kineto/fields.h"
#include "load/kineto/json_capture.h"
#include "load/kineto/raw_event.h"

namespace perfgate::kineto {

// A document with a 'traceEvents' key is a trace, however malformed: never "not a trace".
inline constexpr const char* kTraceEventsNotArray = "top-level key 'traceEvents' must be an array";

class EventBuilder;

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

// Its callbacks are the parser's per-token path: JsonHandler gives it the rest, and nothing here is
// virtual.
class TraceHandler : public JsonHandler {
 public:
  static constexpr std::size_t max_string_size = 64 * 1024 * 1024;
  static constexpr std::size_t kMaxKeptString = 1024 * 1024;  // longest name, stack or shapes kept
  static constexpr std::size_t kMaxNumberText = 4096;         // longest number (its text is kept)

  explicit TraceHandler(EventBuilder& builder) : builder_(builder) {}

  const TraceMetadataText& metadata() const { return metadata_; }
  std::uint64_t events_seen() const { return events_seen_; }
  // The document's outermost container has closed.
  bool document_closed() const { return metadata_.saw_trace_events && frames_.empty(); }
  // The input buffer the parser was given is about to be reused or freed: the event in progress
  // copies the text it holds as views. Call after every write_some before the buffer changes.
  void keep_views();
  // String values that were not valid UTF-8: each bad byte was replaced by U+FFFD.
  std::uint64_t invalid_utf8_strings() const { return invalid_utf8_; }

  bool on_object_begin(error_code& ec);
  bool on_object_end(std::size_t, error_code& ec);
  bool on_array_begin(error_code& ec);
  bool on_array_end(std::size_t, error_code& ec);
  bool on_key_part(string_view s, std::size_t, error_code& ec);
  bool on_key(string_view s, std::size_t, error_code& ec);
  bool on_string_part(string_view s, std::size_t, error_code& ec);
  bool on_string(string_view s, std::size_t, error_code& ec);
  bool on_number_part(string_view s, error_code&);
  bool on_int64(std::int64_t v, string_view s, error_code& ec);
  bool on_uint64(std::uint64_t v, string_view s, error_code& ec);
  bool on_double(double v, string_view s, error_code& ec);
  bool on_bool(bool v, error_code& ec);
  bool on_null(error_code& ec);

 private:
  enum class Frame : unsigned char { TopObject, EventsArray, Event, Args, IntArray };
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

  Frame top() const { return frames_.back(); }
  // The paths every value takes are forced inline into the parser's callbacks (the compiler left
  // them as calls; inlined, ResNet-50 took 857 -> 826 M instructions). Only trace_handler.cpp,
  // which defines them, calls them.
  [[gnu::always_inline]] inline bool begin_container(char open, error_code& ec);
  [[gnu::always_inline]] inline bool end_container(char close, error_code& ec);
  [[gnu::always_inline]] inline bool string_value(std::string_view s, error_code& ec);
  bool check_kept_size(std::size_t bytes, error_code& ec);
  static bool is_integer_arg(Field field);
  [[gnu::always_inline]] inline bool number_value(const Number& n, error_code& ec);
  [[gnu::always_inline]] inline bool event_number(const Number& n, error_code& ec);
  static void store_time(const Number& n, std::optional<std::int64_t>& ns, std::string& text);
  std::string_view number_text(string_view last);
  bool number_fits(std::size_t length, error_code& ec) {
    return length <= kMaxNumberText || number_too_long(ec);
  }
  bool number_too_long(error_code& ec);
  bool args_number(const Number& n, error_code& ec);
  [[gnu::always_inline]] inline bool event_string(std::string_view s, error_code& ec);
  bool args_string(std::string_view s, error_code& ec);
  void keep_text(std::string_view& field, std::string& copy, std::string_view s) const;
  bool top_level_scalar(std::string_view text);
  bool start_skip();
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
  std::vector<Frame> frames_;
  Field pending_ = Field::Unknown;  // the key whose value comes next
  std::string key_;                 // key text, when it arrives in parts
  std::string top_key_;             // last top-level key (kept for unknown scalar attributes)
  std::string text_;                // string value arriving in parts
  std::string number_;              // number text arriving in parts
  std::uint64_t skip_depth_ = 0;    // >0: inside a value nobody reads
  bool capturing_ = false;
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
