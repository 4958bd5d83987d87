// The Boost.JSON SAX handler for Neuron profiles. It follows the top-level section it is in and
// hands each row's fields (scalars only; nested values are skipped) to a RowSink as they arrive:
// no DOM of the profile is built, and only the fields perfgate reads are kept.
#pragma once

#include <boost/json/basic_parser.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace perfgate::neuron {

// A scalar as the profile wrote it; numbers and booleans are sometimes strings ("2", "false").
struct Scalar {
  enum class Kind : std::uint8_t { Null, Int, UInt, Double, Bool, String };
  Kind kind = Kind::Null;
  std::int64_t i = 0;
  std::uint64_t u = 0;
  double d = 0;
  bool b = false;
  std::string_view text;  // String: the text (valid until the callback returns)
};

enum class Section : std::uint8_t {
  None,
  Summary,
  Instructions,
  Dma,
  ActiveTime,
  Warnings,
  Layers,
  Facts,
  Node
};

// Receives the rows. A row is an object of a section's list (or the section's own object); its
// fields are the row object's scalar members. Returns an error message, empty when fine.
class RowSink {
 public:
  virtual ~RowSink() = default;
  virtual std::string begin_row(Section section, std::string_view name) = 0;  // name: a node's id
  virtual std::string field(std::string_view key, const Scalar& value) = 0;
  virtual std::string end_row() = 0;
};

class RowHandler {
 public:
  using error_code = boost::system::error_code;
  using string_view = boost::json::string_view;

  static constexpr std::size_t max_object_size = std::size_t(-1);
  static constexpr std::size_t max_array_size = std::size_t(-1);
  static constexpr std::size_t max_key_size = 64 * 1024;
  static constexpr std::size_t max_string_size = 1024 * 1024;

  RowHandler(RowSink& sink, bool summary_json) : sink_(sink), summary_json_(summary_json) {}
  const std::string& error() const { return error_; }
  bool saw_object() const { return saw_object_; }

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
  bool begin(bool object, error_code& ec);
  bool end(error_code& ec);
  bool scalar(const Scalar& value, error_code& ec);
  bool fail(error_code& ec, std::string message);
  bool check(error_code& ec, std::string message) { return message.empty() || fail(ec, std::move(message)); }

  RowSink& sink_;
  bool summary_json_;
  int depth_ = 0;      // open containers
  int row_depth_ = 0;  // the depth of the open row object; 0: none
  Section section_ = Section::None;
  std::string top_key_;  // the section's key
  std::string key_;      // the current key (parts joined)
  std::string text_;     // a string value arriving in parts
  bool key_in_parts_ = false;
  bool text_in_parts_ = false;
  bool saw_object_ = false;
  std::string error_;
};

}  // namespace perfgate::neuron
