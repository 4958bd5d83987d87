#include "load/neuron/row_handler.h"

#include <array>
#include <utility>

namespace perfgate::neuron {
namespace {

Section section_of(std::string_view key, bool summary_json) {
  if (summary_json) return Section::Node;
  static constexpr std::array<std::pair<std::string_view, Section>, 11> kSections = {{
      {"summary", Section::Summary},
      {"instruction", Section::Instructions},
      {"dma", Section::Dma},
      {"active_time", Section::ActiveTime},
      {"warnings", Section::Warnings},
      {"layer_summary", Section::Layers},
      {"metadata", Section::Facts},
      {"profile_info", Section::Facts},
      {"model_info", Section::Facts},
      {"instruction_usage", Section::BufferUsage},
      {"nc_mem_usage", Section::MemoryUse},
  }};
  for (const auto& [name, section] : kSections)
    if (key == name) return section;
  return Section::None;
}

}  // namespace

// Depth 1 is the document's object; a section's value is at depth 2: a list of rows (depth 3), or
// one object that is the row itself (summary as an object, metadata, a summary-json node).
bool RowHandler::open(bool array, error_code& ec) {
  const bool object = !array;
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

bool RowHandler::close(bool, error_code& ec) {
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

bool RowHandler::key(std::string_view key, error_code&) {
  key_.assign(key);
  if (depth_ == 1) {
    top_key_ = key_;
    section_ = section_of(top_key_, summary_json_);
  }
  return true;
}

}  // namespace perfgate::neuron
