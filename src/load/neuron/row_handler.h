// The Boost.JSON SAX handler for Neuron profiles. It follows the top-level section it is in and
// hands each row's fields (scalars only; nested values are skipped) to a RowSink as they arrive:
// no DOM of the profile is built, and only the fields perfgate reads are kept.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "io/json_handler.h"

namespace perfgate::neuron {

// A scalar as the profile wrote it; numbers and booleans are sometimes strings ("2", "false").
using Scalar = JsonScalar;

enum class Section : std::uint8_t {
  None,
  Summary,
  Instructions,
  Dma,
  ActiveTime,
  Warnings,
  Layers,
  Facts,
  Node,
  BufferUsage,  // instruction_usage: SBUF and PSUM occupancy over time
  MemoryUse     // nc_mem_usage: device memory by use
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

class RowHandler : public ScalarJsonHandler<RowHandler> {
 public:
  RowHandler(RowSink& sink, bool summary_json) : sink_(sink), summary_json_(summary_json) {}
  bool saw_object() const { return saw_object_; }

 private:
  friend ScalarJsonHandler<RowHandler>;
  bool open(bool array, error_code& ec);
  bool close(bool array, error_code& ec);
  bool key(std::string_view key, error_code& ec);
  bool scalar(const Scalar& value, error_code& ec);
  bool check(error_code& ec, std::string message) { return message.empty() || fail(ec, std::move(message)); }

  RowSink& sink_;
  bool summary_json_;
  int depth_ = 0;      // open containers
  int row_depth_ = 0;  // the depth of the open row object; 0: none
  Section section_ = Section::None;
  std::string top_key_;  // the section's key
  std::string key_;      // the current key
  bool saw_object_ = false;
};

}  // namespace perfgate::neuron
