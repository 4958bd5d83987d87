#include "load/rocprof/rocprof_handler.h"

#include <fmt/format.h>

namespace perfgate::rocprof {

// frames_: [0] the document, [1] "rocprofiler-sdk-tool" (an array), [2] one process's object,
// [3] its section, [4] and [5] the lists' items.
Record RocprofHandler::record_at() const {
  std::size_t n = frames_.size();
  if (n < 4 || frames_[1].key != "rocprofiler-sdk-tool" || !frames_[1].array || frames_[2].array)
    return Record::None;
  const Frame& section = frames_[3];
  if (n == 4) return section.key == "metadata" && !section.array ? Record::Metadata : Record::None;
  if (n == 5 && section.array && !frames_[4].array) {
    if (section.key == "agents") return Record::Agent;
    if (section.key == "kernel_symbols") return Record::Symbol;
    return Record::None;
  }
  if (n != 6 || section.array || !frames_[4].array || frames_[5].array) return Record::None;
  const std::string& list = frames_[4].key;
  if (section.key == "strings")
    return list == "buffer_records" ? Record::KindNames
           : list == "marker_api"   ? Record::MarkerText
                                    : Record::None;
  if (section.key != "buffer_records") return Record::None;
  if (list == "kernel_dispatch") return Record::Dispatch;
  if (list == "memory_copy") return Record::MemoryCopy;
  if (list == "hip_api") return Record::HipApi;
  if (list == "rccl_api") return Record::RcclApi;
  if (list == "marker_api") return Record::MarkerApi;
  return Record::None;
}

bool RocprofHandler::open(bool array, error_code&) {
  Frame f{.key = std::move(key_), .array = array, .path_size = path_.size()};
  key_.clear();
  if (record_ != Record::None && !f.key.empty()) {
    path_ += f.key;
    path_ += '.';
  }
  frames_.push_back(std::move(f));
  if (array && (frames_.size() == 4 || frames_.size() == 5)) record_index_ = 0;  // a list of records
  if (frames_.size() == 2 && frames_[1].key == "rocprofiler-sdk-tool") saw_tool_ = true;
  if (frames_.size() == 3 && saw_tool_ && frames_[1].array && !array) sink_.process();
  if (record_ == Record::None) {
    record_ = record_at();
    if (record_ != Record::None) {
      record_depth_ = frames_.size();
      path_.clear();
      sink_.begin(record_);
    }
  }
  return true;
}

bool RocprofHandler::close(bool, error_code&) {
  if (frames_.empty()) return true;
  if (record_ != Record::None && frames_.size() == record_depth_) {
    sink_.end();
    record_ = Record::None;
    ++record_index_;
    path_.clear();
  } else {
    path_.resize(frames_.back().path_size);
  }
  frames_.pop_back();
  return true;
}

bool RocprofHandler::too_long(error_code& ec) {
  // The record: metadata, an item of a section's list (agents, kernel_symbols) or of a list inside
  // a section (buffer_records.kernel_dispatch, strings.marker_api).
  std::string record = record_depth_ == 4 ? std::string("metadata")
                       : record_depth_ == 5
                           ? fmt::format("{} record #{}", frames_[3].key, record_index_)
                           : fmt::format("{}.{} record #{}", frames_[3].key, frames_[4].key, record_index_);
  // An array's item is named by the array's path, an object's value by its key.
  std::string field = path_;
  if (frames_.back().array && !field.empty())
    field.pop_back();
  else
    field += key_;
  return fail(ec, fmt::format("a rocprofv3 JSON document whose {} has a '{}' longer than {} bytes (perfgate "
                              "keeps names and values up to 1 MiB)",
                              record, field, kMaxKeptString));
}

bool RocprofHandler::key(std::string_view key, error_code&) {
  key_.assign(key);
  return true;
}

bool RocprofHandler::scalar(const JsonScalar& value, error_code&) {
  if (record_ == Record::None) return true;
  if (!frames_.empty() && frames_.back().array) {
    // An array's item: the array's own path, without its trailing '.'.
    std::string_view path(path_);
    if (!path.empty()) path.remove_suffix(1);
    sink_.field(path, value);
    return true;
  }
  std::size_t size = path_.size();
  path_ += key_;
  sink_.field(path_, value);
  path_.resize(size);
  return true;
}

}  // namespace perfgate::rocprof
