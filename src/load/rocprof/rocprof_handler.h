// The Boost.JSON SAX handler for rocprofv3's JSON (`rocprofv3 --output-format json`: the
// rocprofiler-sdk-tool document). It follows the path to the lists perfgate reads (agents,
// kernel_symbols, strings.buffer_records and strings.marker_api, and buffer_records' kernel_dispatch,
// memory_copy, hip_api, rccl_api and marker_api) and hands each record's scalars to a RecordSink as they
// arrive, keyed by their path inside the record ("dispatch_info.agent_id.handle"): no DOM is built.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "io/json_handler.h"

namespace perfgate::rocprof {

enum class Record : std::uint8_t {
  None,
  Metadata,    // metadata: pid, init_time, fini_time
  Agent,       // agents[]
  Symbol,      // kernel_symbols[]
  KindNames,   // strings.buffer_records[]: a record kind's name and its operations' names
  Dispatch,    // buffer_records.kernel_dispatch[]
  MemoryCopy,  // buffer_records.memory_copy[]
  HipApi,      // buffer_records.hip_api[]
  RcclApi,     // buffer_records.rccl_api[]
  MarkerApi,   // buffer_records.marker_api[]: roctx ranges, marks and other roctx calls
  MarkerText,  // strings.marker_api[]: {"key": a marker record's correlation id, "value": its message}
};

class RecordSink {
 public:
  virtual ~RecordSink() = default;
  virtual void process() = 0;  // a process's object of the "rocprofiler-sdk-tool" list begins
  virtual void begin(Record record) = 0;
  // A scalar of the record at `path` (keys joined by '.'); an array's items have the array's path.
  virtual void field(std::string_view path, const JsonScalar& value) = 0;
  virtual void end() = 0;
};

class RocprofHandler : public ScalarJsonHandler<RocprofHandler> {
 public:
  // A string outside the records or in the metadata (whose numbers alone are read: a command line
  // may be long) costs nothing whatever its length: it is passed over. One inside a record is kept
  // up to kMaxKeptString and refused past it, naming the record and its field.
  static constexpr std::size_t max_string_size = std::size_t(-1);
  static constexpr std::size_t kMaxKeptString = std::size_t{1} << 20;

  explicit RocprofHandler(RecordSink& sink) : sink_(sink) {}
  bool saw_tool() const { return saw_tool_; }

  bool on_string_part(string_view s, std::size_t n, error_code& ec) {
    if (passes_strings_over()) return true;
    return n <= kMaxKeptString ? ScalarJsonHandler::on_string_part(s, n, ec) : too_long(ec);
  }
  bool on_string(string_view s, std::size_t n, error_code& ec) {
    if (passes_strings_over()) return true;
    return n <= kMaxKeptString ? ScalarJsonHandler::on_string(s, n, ec) : too_long(ec);
  }

 private:
  friend ScalarJsonHandler<RocprofHandler>;
  bool open(bool array, error_code& ec);
  bool close(bool array, error_code& ec);
  bool key(std::string_view key, error_code& ec);
  bool scalar(const JsonScalar& value, error_code& ec);
  // Outside the records, below the lists' depth, nothing is read.
  bool skipping() const { return record_ == Record::None && frames_.size() >= 6; }
  Record record_at() const;
  bool too_long(error_code& ec);
  bool passes_strings_over() const { return record_ == Record::None || record_ == Record::Metadata; }

  struct Frame {
    std::string key;  // the key it is the value of; empty in an array
    bool array = false;
    std::size_t path_size = 0;  // path_'s size before this frame's key was added
  };
  RecordSink& sink_;
  std::vector<Frame> frames_;
  std::string key_;
  std::string path_;  // the keys from the record down to the open frame, each followed by '.'
  Record record_ = Record::None;
  std::size_t record_depth_ = 0;
  std::uint64_t record_index_ = 0;  // the record's position in its list
  bool saw_tool_ = false;
};

}  // namespace perfgate::rocprof
