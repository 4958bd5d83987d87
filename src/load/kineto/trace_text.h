// Byte-level facts about a trace's JSON text that the readers need before (or instead of) parsing
// it: the parse options, where the traceEvents array starts, where one event ends and the next
// begins.
#pragma once

#include <boost/json/basic_parser.hpp>

#include <cstddef>
#include <string>

namespace perfgate::kineto {

inline constexpr int kMaxJsonDepth = 64;

// The options every trace is parsed with; `max_depth` counts from the text's own first bracket.
boost::json::parse_options trace_parse_options(int max_depth);

// 3 when `data` starts with a UTF-8 byte order mark, else 0.
std::size_t byte_order_mark(const char* data, std::size_t size);

bool only_whitespace(const char* data, std::size_t size);

// Finds the '[' that opens the traceEvents array, fed the text in pieces from its start: the
// top-level object's "traceEvents" key, or the document itself when it is an array. A key written
// with escapes is not recognised (the caller then reads the trace in one pass).
class EventsArrayFinder {
 public:
  enum class State { Searching, Found, NotFound };
  // Scans `data` (the next piece); when found, `offset()` is the bracket's offset in this piece.
  State scan(const char* data, std::size_t size);
  std::size_t offset() const { return offset_; }
  // Nesting level of the array: 1 for an array document, 2 in the top-level object.
  int array_depth() const { return depth_ + 1; }

 private:
  State state_ = State::Searching;
  int depth_ = 0;
  bool in_string_ = false;
  bool escaped_ = false;
  bool started_ = false;
  std::string key_;      // the depth-1 string being read (or just read)
  bool key_ok_ = false;  // key_ holds the whole string, without escapes
  bool after_colon_ = false;
  bool string_done_ = false;
  std::size_t offset_ = 0;
};

// An event start is a '{' after "}," (whitespace allowed between). It may be a false start (e.g.
// inside nested args): parsing the pieces tells. Both return npos where there is none.
// The last event start in `data`.
std::size_t last_event_start(const char* data, std::size_t size);
// The first event start at or after `from`.
std::size_t first_event_start(const char* data, std::size_t size, std::size_t from);

}  // namespace perfgate::kineto
