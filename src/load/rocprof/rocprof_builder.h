// Turns rocprofv3's records (rocprof_handler.h) into profiles, one per process of the document.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "load/rocprof/rocprof_handler.h"
#include "model/profile.h"

namespace perfgate::rocprof {

// The end of a profile both rocprof readers build: its window the capture's span, which is what it
// recorded (rocprof writes no start of its own: a roctx range that opens before its first HIP call
// is inside the window, as an NVTX range is in an nsys one), sorted, the host tree built (a note
// counts the ranges that overlap instead of nesting).
void finish_recorded(Profile& profile);

class ProfileBuilder : public RecordSink {
 public:
  void process() override { processes_.emplace_back(); }
  void begin(Record record) override;
  void field(std::string_view path, const JsonScalar& value) override;
  void end() override;
  std::uint64_t memory_bytes() const;
  // The profiles read, in document order; each is finished (sorted, named, its devices listed).
  std::vector<Profile> finish(const std::string& path);

 private:
  struct Agent {
    std::uint64_t handle = 0;
    std::int64_t type = 0;  // 2: a GPU
    std::int64_t gpu_index = -1;
    std::int64_t cu_count = 0;
    std::int64_t gfx_version = 0;  // gfx_target_version: 90500 is gfx950 (9.5.0)
    std::string name, product_name;
  };
  struct Row {  // one record's fields, reset at each record
    std::int64_t start = -1, end = -1, thread = -1, correlation = 0;
    bool has_start = false, has_end = false;  // written in the record, whatever their value
    std::int64_t kind = -1, operation = -1, kernel_id = -1, bytes = 0;
    std::uint64_t agent = 0, queue = 0, src_agent = 0, dst_agent = 0;
    std::int64_t workgroup[3] = {-1, -1, -1}, grid[3] = {-1, -1, -1};
    std::int64_t lds = -1;
    std::string text;  // a kind's name, a symbol's name
  };
  struct Pending {  // a dispatch or copy whose name, device and stream are known only at the end
    std::size_t activity;
    std::uint64_t agent;
    std::uint64_t queue;
    std::int64_t kernel_id;
    std::int64_t kind, operation;  // copies: the operation's name gives the direction
  };
  struct Api {
    std::size_t index;  // into runtime_calls or host_events
    bool runtime;
    std::int64_t kind, operation;
  };
  struct Marker {  // a roctx record with a span; a region once its message is found (finish_process)
    TimeNs start, end;
    std::int64_t tid;
    std::int64_t correlation;
  };
  struct Process {
    Profile profile;
    std::int64_t pid = 0;
    std::vector<Agent> agents;
    std::unordered_map<std::int64_t, std::string> symbols;                // kernel_id → name
    std::vector<std::pair<std::string, std::vector<std::string>>> kinds;  // by kind number
    std::vector<Pending> pending;
    std::vector<Api> apis;
    std::unordered_map<std::int64_t, std::uint32_t> threads;  // tid → index
    std::vector<Marker> markers;
    std::unordered_map<std::int64_t, std::string> marker_texts;  // correlation id → roctx message
    std::uint64_t marks = 0;                                     // roctxMarkA: instants, no span
    TimeNs durations = 0;
    std::uint64_t bad_times = 0, incomplete = 0;
  };

  Process& current();
  bool span(Process& p, TimeNs& start, TimeNs& end);
  std::uint32_t thread(Process& p, std::int64_t tid);
  void finish_process(Process& p);

  std::vector<Process> processes_;
  Record record_ = Record::None;
  Row row_;
  std::vector<std::string> operations_;  // a KindNames record's list
  std::uint64_t strings_bytes_ = 0;
};

}  // namespace perfgate::rocprof
