#include "baseline/report_parser.h"

#include <zlib.h>

#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/value_stack.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "perfgate/errors.h"

namespace perfgate {
namespace {

namespace json = boost::json;
using error_code = boost::system::error_code;
using string_view = json::string_view;

// Forwards every event to a value_stack (the DOM builder json::parser uses), except inside the
// top-level "steps" array, where it keeps the two values the gate reads.
class ReportHandler {
 public:
  static constexpr std::size_t max_object_size = std::size_t(-1);
  static constexpr std::size_t max_array_size = std::size_t(-1);
  static constexpr std::size_t max_key_size = std::size_t(-1);
  static constexpr std::size_t max_string_size = std::size_t(-1);

  ParsedReport& out;
  json::value_stack stack;

  explicit ReportHandler(ParsedReport& o) : out(o) {}

  bool on_document_begin(error_code&) {
    stack.reset();
    return true;
  }
  bool on_document_end(error_code&) { return true; }
  bool on_object_begin(error_code&) { return open(false); }
  bool on_object_end(std::size_t n, error_code&) { return close(n, false); }
  bool on_array_begin(error_code&) { return open(true); }
  bool on_array_end(std::size_t n, error_code&) { return close(n, true); }
  bool on_key_part(string_view s, std::size_t, error_code&) {
    key_.append(s.data(), s.size());
    if (!in_steps()) stack.push_chars(s);
    return true;
  }
  bool on_key(string_view s, std::size_t, error_code&) {
    key_.append(s.data(), s.size());
    if (!in_steps()) stack.push_key(s);
    if (depth_ == 1) top_key_ = key_;
    if (in_steps() && depth_ == steps_depth_ + 1) step_key_ = key_;
    key_.clear();
    return true;
  }
  bool on_string_part(string_view s, std::size_t, error_code&) {
    if (!in_steps()) stack.push_chars(s);
    return true;
  }
  bool on_string(string_view s, std::size_t, error_code&) {
    if (!in_steps()) stack.push_string(s);
    return step_scalar(std::nullopt, std::nullopt);
  }
  bool on_number_part(string_view, error_code&) { return true; }
  bool on_int64(std::int64_t v, string_view, error_code&) {
    if (!in_steps()) stack.push_int64(v);
    return step_scalar(static_cast<double>(v), std::nullopt);
  }
  bool on_uint64(std::uint64_t v, string_view, error_code&) {
    if (!in_steps()) stack.push_uint64(v);
    return step_scalar(static_cast<double>(v), std::nullopt);
  }
  bool on_double(double v, string_view, error_code&) {
    if (!in_steps()) stack.push_double(v);
    return step_scalar(v, std::nullopt);
  }
  bool on_bool(bool v, error_code&) {
    if (!in_steps()) stack.push_bool(v);
    return step_scalar(std::nullopt, v);
  }
  bool on_null(error_code&) {
    if (!in_steps()) stack.push_null();
    return step_scalar(std::nullopt, std::nullopt);
  }
  bool on_comment_part(string_view, error_code&) { return true; }
  bool on_comment(string_view, error_code&) { return true; }

 private:
  bool in_steps() const { return steps_depth_ > 0; }

  bool open(bool array) {
    ++depth_;
    if (!in_steps() && array && depth_ == 2 && top_key_ == "steps") {
      steps_depth_ = depth_;
      out.has_steps = true;
    } else if (in_steps() && depth_ == steps_depth_ + 1) {
      out.steps.push_back({std::nullopt, std::nullopt, !array});
      step_key_.clear();
    }
    return true;
  }

  bool close(std::size_t n, bool array) {
    if (in_steps() && depth_ == steps_depth_) {
      steps_depth_ = 0;
      stack.push_array(0);  // the value of "steps" in the DOM: its entries were kept apart
    } else if (!in_steps()) {
      array ? stack.push_array(n) : stack.push_object(n);
    }
    --depth_;
    return true;
  }

  // A scalar: inside the steps array, a step's own `duration_us` or `in_window`, or an entry
  // that is not an object.
  bool step_scalar(std::optional<double> number, std::optional<bool> flag) {
    if (!in_steps()) return true;
    if (depth_ == steps_depth_) {
      out.steps.push_back({std::nullopt, std::nullopt, false});
      return true;
    }
    if (depth_ != steps_depth_ + 1) return true;
    if (step_key_ == "duration_us") out.steps.back().duration_us = number;
    if (step_key_ == "in_window") out.steps.back().in_window = flag.value_or(false);  // not a flag: not in it
    return true;
  }

  int depth_ = 0;
  int steps_depth_ = 0;  // the depth of the steps array while inside it, else 0
  std::string key_;      // a key arriving in parts
  std::string top_key_;  // the last key of the top-level object
  std::string step_key_;
};

struct GzFile {
  gzFile f;
  ~GzFile() {
    if (f) gzclose(f);
  }
};

}  // namespace

ParsedReport parse_report_file(const std::string& path, std::size_t limit) {
  GzFile in{gzopen(path.c_str(), "rb")};
  if (!in.f) throw InputError(fmt::format("{}: cannot open the baseline: {}", path, std::strerror(errno)));
  ParsedReport out;
  json::basic_parser<ReportHandler> parser(json::parse_options{}, out);
  char buffer[1 << 16];
  std::size_t offset = 0;
  bool first = true;
  for (;;) {
    int got = gzread(in.f, buffer, sizeof buffer);
    if (got < 0) {
      int code = 0;
      throw InputError(fmt::format("{}: cannot read the baseline: {}", path, gzerror(in.f, &code)));
    }
    const char* data = buffer;
    auto n = static_cast<std::size_t>(got);
    if (first && n >= 3 && std::equal(data, data + 3, "\xEF\xBB\xBF")) {
      data += 3;  // a UTF-8 byte order mark
      n -= 3;
    }
    first = false;
    error_code ec;
    if (n == 0) {
      if (!parser.done()) parser.write_some(false, nullptr, 0, ec);
      if (ec || !parser.done())
        throw InputError(fmt::format("{}: invalid JSON at byte {}: {}", path, offset,
                                     ec ? ec.message() : "the document ends early"));
      break;
    }
    std::size_t used = parser.done() ? 0 : parser.write_some(true, data, n, ec);
    if (ec)
      throw InputError(fmt::format("{}: invalid JSON at byte {}: {}", path, offset + used, ec.message()));
    if (used < n && std::any_of(data + used, data + n,
                                [](char c) { return !std::isspace(static_cast<unsigned char>(c)); }))
      throw InputError(
          fmt::format("{}: invalid JSON at byte {}: extra data after the document", path, offset + used));
    offset += n;
    if (offset > limit)
      throw InputError(fmt::format("{}: not a usable perfgate report: larger than 1 GiB", path));
  }
  json::value root = parser.handler().stack.release();
  if (!root.is_object())
    throw InputError(fmt::format("{}: not a usable perfgate report: the top level must be an object", path));
  out.root = std::move(root.get_object());
  return out;
}

}  // namespace perfgate
