#include "load/kineto/trace_text.h"

#include <algorithm>
#include <cstring>

namespace perfgate::kineto {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

}  // namespace

boost::json::parse_options trace_parse_options(int max_depth) {
  boost::json::parse_options options;
  options.max_depth = static_cast<std::size_t>(max_depth);
  options.allow_trailing_commas = true;  // some exporters leave one before the closing bracket
  options.allow_invalid_utf8 = true;     // Kineto has written raw bytes in names; they are escaped on output
  return options;
}

std::size_t byte_order_mark(const char* data, std::size_t size) {
  return size >= 3 && std::memcmp(data, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
}

bool only_whitespace(const char* data, std::size_t size) {
  return std::all_of(data, data + size, is_space);
}

EventsArrayFinder::State EventsArrayFinder::scan(const char* data, std::size_t size) {
  for (std::size_t i = 0; i < size && state_ == State::Searching; ++i) {
    char c = data[i];
    if (in_string_) {
      if (escaped_) {
        escaped_ = false;
        key_ok_ = false;
      } else if (c == '\\') {
        escaped_ = true;
        key_ok_ = false;
      } else if (c == '"') {
        in_string_ = false;
        string_done_ = depth_ == 1;
      } else if (depth_ == 1 && key_.size() < 16) {
        key_.push_back(c);
      } else if (depth_ == 1) {
        key_ok_ = false;
      }
      continue;
    }
    if (is_space(c)) continue;
    if (!started_) {
      started_ = true;
      if (c != '{' && c != '[') state_ = State::NotFound;
      if (c == '[') {
        state_ = State::Found;
        offset_ = i;
        return state_;
      }
    }
    bool was_key = string_done_ && key_ok_;
    string_done_ = false;
    if (c == ':' && depth_ == 1) {
      after_colon_ = was_key;
      continue;
    }
    bool names_events = after_colon_ && key_ == "traceEvents";
    after_colon_ = false;
    switch (c) {
      case '"':
        in_string_ = true;
        if (depth_ == 1) {
          key_.clear();
          key_ok_ = true;
        }
        break;
      case '[':
        if (depth_ == 1 && names_events) {
          state_ = State::Found;
          offset_ = i;
          return state_;
        }
        ++depth_;
        break;
      case '{':
        ++depth_;
        break;
      case ']':
      case '}':
        if (--depth_ <= 0) state_ = State::NotFound;  // the document ended without the array
        break;
      default:
        break;
    }
  }
  return state_;
}

namespace {

// Whether the '{' at `brace` follows "}," with only whitespace between.
bool follows_event_end(const char* data, std::size_t brace) {
  std::size_t i = brace;
  while (i > 0 && is_space(data[i - 1])) --i;
  if (i == 0 || data[i - 1] != ',') return false;
  --i;
  while (i > 0 && is_space(data[i - 1])) --i;
  return i > 0 && data[i - 1] == '}';
}

}  // namespace

std::size_t last_event_start(const char* data, std::size_t size) {
  for (std::size_t end = size; end > 0;) {
    const void* hit = memrchr(data, '{', end);
    if (!hit) break;
    std::size_t brace = static_cast<std::size_t>(static_cast<const char*>(hit) - data);
    if (follows_event_end(data, brace)) return brace;
    end = brace;
  }
  return std::string::npos;
}

std::size_t first_event_start(const char* data, std::size_t size, std::size_t from) {
  while (from < size) {
    const void* hit = std::memchr(data + from, '{', size - from);
    if (!hit) break;
    std::size_t brace = static_cast<std::size_t>(static_cast<const char*>(hit) - data);
    if (follows_event_end(data, brace)) return brace;
    from = brace + 1;
  }
  return std::string::npos;
}

}  // namespace perfgate::kineto
