#include "load/neuron/row_handler.h"

#include <boost/json/error.hpp>

#include <array>
#include <utility>

namespace perfgate::neuron {
namespace {

Section section_of(std::string_view key, bool summary_json) {
  if (summary_json) return Section::Node;
  static constexpr std::array<std::pair<std::string_view, Section>, 9> kSections = {{
      {"summary", Section::Summary},
      {"instruction", Section::Instructions},
      {"dma", Section::Dma},
      {"active_time", Section::ActiveTime},
      {"warnings", Section::Warnings},
      {"layer_summary", Section::Layers},
      {"metadata", Section::Facts},
      {"profile_info", Section::Facts},
      {"model_info", Section::Facts},
  }};
  for (const auto& [name, section] : kSections)
    if (key == name) return section;
  return Section::None;
}

}  // namespace

bool RowHandler::fail(error_code& ec, std::string message) {
  if (error_.empty()) error_ = std::move(message);
  ec = boost::json::error::syntax;
  return false;
}

// Depth 1 is the document's object; a section's value is at depth 2: a list of rows (depth 3), or
// one object that is the row itself (summary as an object, metadata, a summary-json node).
bool RowHandler::begin(bool object, error_code& ec) {
  ++depth_;
  if (depth_ == 1) {
    if (!object) return fail(ec, "the document is a list, not a Neuron profile's object");
    saw_object_ = true;
    return true;
  }
  if (section_ == Section::None || row_depth_ != 0) return true;  // skipped, or nested in a row
  if (depth_ == 2 && !object) return true;                        // a list of rows
  if (depth_ == 2 || depth_ == 3) {
    if (!object) return true;  // a list in a list: nothing perfgate reads
    row_depth_ = depth_;
    return check(ec, sink_.begin_row(section_, top_key_));
  }
  return true;
}

bool RowHandler::end(error_code& ec) {
  if (row_depth_ == depth_) {
    row_depth_ = 0;
    --depth_;
    return check(ec, sink_.end_row());
  }
  if (depth_ == 2) section_ = Section::None;
  --depth_;
  return true;
}

bool RowHandler::scalar(const Scalar& value, error_code& ec) {
  if (depth_ == 0) return fail(ec, "the document is not a JSON object");
  if (row_depth_ != 0 && depth_ == row_depth_) return check(ec, sink_.field(key_, value));
  if (depth_ == 1) section_ = Section::None;  // a scalar section: nothing perfgate reads
  if (depth_ == 2 && section_ != Section::None && section_ != Section::Facts && section_ != Section::Node)
    return fail(ec, "'" + top_key_ + "' holds a " +
                        (value.kind == Scalar::Kind::String ? "string" : "scalar") +
                        " in its list where a row (an object) was expected");
  return true;
}

bool RowHandler::on_object_begin(error_code& ec) {
  return begin(true, ec);
}
bool RowHandler::on_object_end(std::size_t, error_code& ec) {
  return end(ec);
}
bool RowHandler::on_array_begin(error_code& ec) {
  return begin(false, ec);
}
bool RowHandler::on_array_end(std::size_t, error_code& ec) {
  return end(ec);
}

bool RowHandler::on_key_part(string_view s, std::size_t, error_code&) {
  if (!key_in_parts_) key_.clear();
  key_in_parts_ = true;
  key_.append(s.data(), s.size());
  return true;
}

bool RowHandler::on_key(string_view s, std::size_t, error_code&) {
  if (!key_in_parts_) key_.clear();
  key_in_parts_ = false;
  key_.append(s.data(), s.size());
  if (depth_ == 1) {
    top_key_ = key_;
    section_ = section_of(top_key_, summary_json_);
  }
  return true;
}

bool RowHandler::on_string_part(string_view s, std::size_t, error_code&) {
  if (!text_in_parts_) text_.clear();
  text_in_parts_ = true;
  text_.append(s.data(), s.size());
  return true;
}

bool RowHandler::on_string(string_view s, std::size_t, error_code& ec) {
  Scalar v;
  v.kind = Scalar::Kind::String;
  if (text_in_parts_) {
    text_.append(s.data(), s.size());
    text_in_parts_ = false;
    v.text = text_;
  } else {
    v.text = std::string_view(s.data(), s.size());
  }
  return scalar(v, ec);
}

bool RowHandler::on_int64(std::int64_t i, string_view, error_code& ec) {
  Scalar v;
  v.kind = Scalar::Kind::Int;
  v.i = i;
  return scalar(v, ec);
}

bool RowHandler::on_uint64(std::uint64_t u, string_view, error_code& ec) {
  Scalar v;
  v.kind = Scalar::Kind::UInt;
  v.u = u;
  return scalar(v, ec);
}

bool RowHandler::on_double(double d, string_view, error_code& ec) {
  Scalar v;
  v.kind = Scalar::Kind::Double;
  v.d = d;
  return scalar(v, ec);
}

bool RowHandler::on_bool(bool b, error_code& ec) {
  Scalar v;
  v.kind = Scalar::Kind::Bool;
  v.b = b;
  return scalar(v, ec);
}

bool RowHandler::on_null(error_code& ec) {
  return scalar(Scalar{}, ec);
}

}  // namespace perfgate::neuron
